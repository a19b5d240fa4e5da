/**
 * POST /verify, wire-compatible with the official JS SDKs (@zkportal/aleo-oracle-sdk 2.1.x and the
 * second generation's aleo-oracle-sdk-js; notarizer-client-ledger.md §2): request
 * `{ reports: AttestationResponse[] }`, answer `{ success, validReports, errorMessage? }`
 * (+ `reportErrors`, per failed report). Unlike the reference backend, EVERY report is checked
 * (no stop at the first bad one). The per-report checks (single- and multi-request responses,
 * every userData era) are in src/verify/attestationResponse.ts.
 *
 * Status: 400 unreadable body or no reports, 200 otherwise (failures are in the body).
 */
import type { FastifyPluginAsync } from 'fastify';
import type { ErrorCode } from '../../errorCodes.js';
import { checkAttestationResponse, type ReportVerifier } from '../../verify/attestationResponse.js';
import { failureBody } from '../errorResponses.js';

export { checkAttestationResponse, type ReportCheck, type ReportVerifier } from '../../verify/attestationResponse.js';

export interface VerifyRouteOptions {
  /** Most reports accepted in one request (default 16). */
  maxReports?: number;
}

/** A request-level 400 in the route's body shape (the app's error handler answers the others). */
function answer400(message: string, code: ErrorCode): Record<string, unknown> {
  return failureBody('/verify', code, message);
}

export const verifyRoute = (verify: ReportVerifier, opts: VerifyRouteOptions = {}): FastifyPluginAsync => async (app) => {
  const maxReports = opts.maxReports ?? 16;
  app.post(
    '/verify',
    {
      schema: {
        summary: 'Verify notarizer attestations (official SDK wire format): every report is checked',
        body: { type: 'object', required: ['reports'], properties: { reports: { type: 'array', items: {} } } },
        response: {
          200: {
            type: 'object',
            properties: {
              success: { type: 'boolean' },
              validReports: { type: 'array', items: { type: 'integer' } },
              errorMessage: { type: 'string' },
              reportErrors: {
                type: 'array',
                items: { type: 'object', properties: { index: { type: 'integer' }, errorCode: { type: 'string' }, errorMessage: { type: 'string' } } },
              },
            },
          },
          400: {
            type: 'object',
            properties: { success: { type: 'boolean' }, validReports: { type: 'array', items: { type: 'integer' } }, errorMessage: { type: 'string' }, errorCode: { type: 'string' } },
          },
        },
      },
    },
    async (req, reply) => {
      const reports = (req.body as { reports: unknown[] }).reports;
      if (reports.length === 0) return reply.code(400).send(answer400('no reports to verify', 'HTTP_NO_REPORTS'));
      if (reports.length > maxReports) return reply.code(400).send(answer400(`at most ${maxReports} reports per request, got ${reports.length}`, 'HTTP_TOO_MANY_REPORTS'));
      const checks = await Promise.all(reports.map((r) => checkAttestationResponse(r, verify)));
      const validReports: number[] = [];
      const reportErrors: { index: number; errorCode: ErrorCode; errorMessage: string }[] = [];
      checks.forEach((c, index) => {
        if (c.valid) validReports.push(index);
        else reportErrors.push({ index, errorCode: c.error?.code ?? 'INTERNAL_ERROR', errorMessage: c.error?.message ?? 'invalid' });
      });
      const body: Record<string, unknown> = { success: reportErrors.length === 0, validReports };
      if (reportErrors.length) {
        body.errorMessage = reportErrors.map((e) => `report ${e.index}: ${e.errorMessage}`).join('; ');
        body.reportErrors = reportErrors;
      }
      return body;
    },
  );
};
