import { createHash } from 'node:crypto';
import type { FastifyPluginAsync, FastifyRequest } from 'fastify';
import type { VerifierService } from '../../verify/types.js';
import { decodeReportBody } from '../../verify/decodeReportBody.js';
import { decodeReportRequest, decodeReportResponse } from '../schemas.js';
import { failureSchema } from '../errorResponses.js';
import { outcomeFor } from '../../errorCodes.js';
import { VerifierError } from '../../errors.js';
import { EAR_MEDIA_TYPE } from '../../ear/claims.js';
import type { EarIssuer } from '../../ear/issuer.js';
import type { EarCode } from '../../ear/errors.js';

/** The content type Fastify gives a JSON answer it serialises itself. */
const JSON_UTF8 = 'application/json; charset=utf-8';

const sha256 = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');

/** The caller asks for an EAR: `?format=ear`, or an Accept naming application/eat+jwt. */
function wantsEar(req: FastifyRequest<{ Querystring: { format?: string } }>): boolean {
  if (req.query.format !== undefined) return req.query.format === 'ear';
  const accept = req.headers.accept ?? '';
  return accept.split(',').some((m) => m.split(';')[0]!.trim().toLowerCase() === 'application/eat+jwt');
}

export const decodeReportRoute = (svc: VerifierService, ear?: EarIssuer): FastifyPluginAsync => async (app) => {
  const answer = svc.decodeReportAnswer?.bind(svc);
  app.post<{ Body: { userData: string; report: string; nonce?: string }; Querystring: { format?: string } }>(
    '/decodeReport',
    {
      schema: {
        summary: 'Decode userData and report, verify the report and its binding to userData',
        description: `With \`?format=ear\` or \`Accept: application/eat+jwt\` the verdict is answered as a signed EAR JWT (content type \`${EAR_MEDIA_TYPE}\`, docs/ear.md; the public key at GET /.well-known/jwks.json); 406 EAR_NOT_CONFIGURED when this verifier has no EAR_SIGNING_KEY.`,
        querystring: { type: 'object', properties: { format: { type: 'string', enum: ['json', 'ear'], description: 'ear: answer a signed EAR JWT instead of the JSON verdict' } }, additionalProperties: false },
        body: decodeReportRequest,
        response: { 200: decodeReportResponse, 406: { description: 'An EAR was asked for and this verifier has no signing key (EAR_NOT_CONFIGURED)', ...failureSchema('/decodeReport') } },
      },
    },
    async (req, reply) => {
      const { userData, report, nonce } = req.body;
      const opts = nonce === undefined ? {} : { nonce };
      if (wantsEar(req)) {
        if (!ear) throw new VerifierError<EarCode>('EAR_NOT_CONFIGURED', 'this verifier signs no EAR (no EAR_SIGNING_KEY): ask for the JSON verdict');
        const out = await svc.decodeReport(userData, report, opts);
        const jwt = await ear.issue(
          { ...(out.reportType ? { reportType: out.reportType } : {}), outcome: outcomeFor(out.reportValid, out.error?.code), ...(out.error ? { errorCode: out.error.code } : {}), ...(out.checks ? { checks: out.checks } : {}) },
          { report: sha256(report), userData: sha256(userData) },
        );
        return reply.header('content-type', EAR_MEDIA_TYPE).send(jwt);
      }
      // The answer's bytes as the service made them (a pool worker serialised them with this
      // route's response schema: src/verify/decodeReportAnswer.ts), sent as they are.
      if (answer) return reply.header('content-type', JSON_UTF8).send((await answer(userData, report, opts)).body);
      return decodeReportBody(await svc.decodeReport(userData, report, opts));
    },
  );
};
