/**
 * POST /verify, wire-compatible with the official JS SDKs (@zkportal/aleo-oracle-sdk 2.1.x and the
 * second generation's aleo-oracle-sdk-js; notarizer-client-ledger.md §2): request
 * `{ reports: AttestationResponse[] }`, answer `{ success, validReports, errorMessage? }`
 * (+ `reportErrors`, per failed report). Unlike the reference backend, EVERY report is checked
 * (no stop at the first bad one). The per-report checks (single- and multi-request responses,
 * every userData era) are in src/verify/attestationResponse.ts.
 *
 * Every entry is checked against the AttestationResponse schema first
 * (src/verify/attestationResponseSchema.ts): an entry of the wrong shape (not an object, an
 * unknown reportType, a field of the wrong type) makes the whole request a 400 naming the entry
 * (`field "reports/6" must be an object, got a string`), as the reference backend, which decodes
 * the whole request into typed structs, refuses it.
 *
 * Status: 400 unreadable body, an entry of the wrong shape, no reports (HTTP_NO_REPORTS) or more
 * than maxReports (HTTP_TOO_MANY_REPORTS); 200 otherwise (failures are in the body).
 */
import type { FastifyPluginAsync, FastifySchemaValidationError } from 'fastify';
import type { ErrorCode } from '../../errorCodes.js';
import { VerifierError } from '../../errors.js';
import { toFailure } from '../../verify/failure.js';
import type { ReportCheck } from '../../verify/attestationResponse.js';
import { attestationResponseSchema, type AttestationResponse } from '../../verify/attestationResponseSchema.js';

export { checkAttestationResponse, type ReportCheck, type ReportVerifier } from '../../verify/attestationResponse.js';

/** Checks one schema-checked entry where verification runs (VerifierService.checkResponse). */
export type ResponseChecker = (entry: AttestationResponse) => Promise<ReportCheck>;

export interface VerifyRouteOptions {
  /** Most reports accepted in one request (default 16). */
  maxReports?: number;
}

/**
 * The schema error of a request body. The report count outside the schema's bounds keeps its own
 * codes; the app's error handler (src/server/errorResponses.ts) answers both kinds in the route's
 * body shape and describes the other schema errors itself.
 */
function schemaError(errors: FastifySchemaValidationError[], maxReports: number): Error {
  const e = errors[0];
  if (e?.instancePath === '/reports' && (e.keyword === 'minItems' || e.keyword === 'maxItems')) {
    if (e.keyword === 'minItems') return new VerifierError<ErrorCode>('HTTP_NO_REPORTS', 'no reports to verify');
    const data = (e as { data?: unknown }).data; // Ajv's `verbose` option (app.ts)
    return new VerifierError<ErrorCode>('HTTP_TOO_MANY_REPORTS', `at most ${maxReports} reports per request${Array.isArray(data) ? `, got ${data.length}` : ''}`);
  }
  return new Error(e?.message ?? 'invalid request body');
}

export const verifyRoute = (check: ResponseChecker, opts: VerifyRouteOptions = {}): FastifyPluginAsync => async (app) => {
  const maxReports = opts.maxReports ?? 16;
  app.post(
    '/verify',
    {
      schemaErrorFormatter: (errors) => schemaError(errors, maxReports),
      schema: {
        summary: 'Verify notarizer attestations (official SDK wire format): every report is checked',
        body: {
          type: 'object',
          required: ['reports'],
          properties: { reports: { type: 'array', minItems: 1, maxItems: maxReports, items: attestationResponseSchema } },
        },
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
            description:
              'The body is not readable or an entry is not an AttestationResponse (HTTP_INVALID_BODY, …, naming the entry: `field "reports/6" must be an object, got a string`), no reports (HTTP_NO_REPORTS) or more than the limit (HTTP_TOO_MANY_REPORTS)',
            type: 'object',
            properties: { success: { type: 'boolean' }, validReports: { type: 'array', items: { type: 'integer' } }, errorMessage: { type: 'string' }, errorCode: { type: 'string' } },
          },
        },
      },
    },
    async (req) => {
      const reports = (req.body as { reports: AttestationResponse[] }).reports;
      // A report the service could not take (its pool full or shut down) fails alone, with its code.
      const checks = await Promise.all(reports.map((r) => check(r).catch((e: unknown): ReportCheck => ({ valid: false, error: toFailure(e) }))));
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
