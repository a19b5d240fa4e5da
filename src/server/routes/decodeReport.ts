import type { FastifyPluginAsync } from 'fastify';
import type { VerifierService } from '../../verify/types.js';
import { decodeReportBody } from '../../verify/decodeReportBody.js';
import { decodeReportRequest, decodeReportResponse } from '../schemas.js';

/** The content type Fastify gives a JSON answer it serialises itself. */
const JSON_UTF8 = 'application/json; charset=utf-8';

export const decodeReportRoute = (svc: VerifierService): FastifyPluginAsync => async (app) => {
  const answer = svc.decodeReportAnswer?.bind(svc);
  app.post<{ Body: { userData: string; report: string; nonce?: string } }>(
    '/decodeReport',
    {
      schema: {
        summary: 'Decode userData and report, verify the report and its binding to userData',
        body: decodeReportRequest,
        response: { 200: decodeReportResponse },
      },
    },
    async (req, reply) => {
      const { userData, report, nonce } = req.body;
      const opts = nonce === undefined ? {} : { nonce };
      // The answer's bytes as the service made them (a pool worker serialised them with this
      // route's response schema: src/verify/decodeReportAnswer.ts), sent as they are.
      if (answer) return reply.header('content-type', JSON_UTF8).send((await answer(userData, report, opts)).body);
      return decodeReportBody(await svc.decodeReport(userData, report, opts));
    },
  );
};
