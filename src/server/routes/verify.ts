/**
 * POST /verify, wire-compatible with the official JS SDKs (@zkportal/aleo-oracle-sdk 2.1.x and the
 * second generation's aleo-oracle-sdk-js; notarizer-client-ledger.md §2): request
 * `{ reports: AttestationResponse[] }`, answer `{ success, validReports, errorMessage? }`
 * (+ `reportErrors`, per report that is not valid, with its `outcome`, and `unverifiableReports`).
 * Unlike the reference backend, EVERY report is checked (no stop at the first bad one). The
 * per-report checks (single- and multi-request responses, every userData era) are in
 * src/verify/attestationResponse.ts.
 *
 * Every entry is checked against the AttestationResponse schema first
 * (src/verify/attestationResponseSchema.ts): an entry of the wrong shape (not an object, an
 * unknown reportType, a field of the wrong type) makes the whole request a 400 naming the entry
 * (`field "reports/6" must be an object, got a string`), as the reference backend, which decodes
 * the whole request into typed structs, refuses it.
 *
 * Outcomes (src/errorCodes.ts traits): a report is `valid`, `invalid` (a check failed on the
 * evidence) or `unverifiable` (the verifier could not decide: PCCS or collateral unavailable).
 * `success` is true exactly when every report is valid and `validReports` lists only valid ones,
 * as the SDKs read them (they keep the attestations of validReports): an unverifiable report is
 * never passed off as valid. Work the verifier refused — its pool full or closed, a task past its
 * time limit, a worker lost (codes with the `refused` trait) — is no verdict on any report: the
 * whole request is answered as POST /decodeReport answers it (503 with Retry-After: 1, or 500),
 * never `success: false` as if the reports were bad. A batch is taken whole or refused whole: the
 * pool is asked for room for every report before any is handed over (VerifierService.admit). A
 * batch larger than the pool can ever hold (VerifierService.capacity: workers + maxQueue) is taken
 * in parts of that size, one after the other, each whole or refused whole: a 503 always means a
 * later retry can succeed.
 *
 * Status: 400 unreadable body, an entry of the wrong shape, no reports (HTTP_NO_REPORTS) or more
 * than maxReports (HTTP_TOO_MANY_REPORTS); 503 the pool refused the batch or a report of it
 * (POOL_OVERLOADED, POOL_CLOSED, POOL_TASK_TIMEOUT; Retry-After: 1); 500 a worker died
 * (POOL_WORKER_FAILED); 200 otherwise (the verdicts are in the body).
 */
import type { FastifyPluginAsync, FastifySchemaValidationError } from 'fastify';
import { outcomeFor, traitsOf, type ErrorCode, type Outcome } from '../../errorCodes.js';
import { isVerifierError, VerifierError } from '../../errors.js';
import { toFailure } from '../../verify/failure.js';
import type { ReportCheck } from '../../verify/attestationResponse.js';
import { attestationResponseSchema, type AttestationResponse } from '../../verify/attestationResponseSchema.js';
import { outcomeSchema } from '../schemas.js';

export { checkAttestationResponse, type ReportCheck, type ReportVerifier } from '../../verify/attestationResponse.js';

/** Checks one schema-checked entry where verification runs (VerifierService.checkResponse). */
export type ResponseChecker = (entry: AttestationResponse) => Promise<ReportCheck>;

export interface VerifyRouteOptions {
  /** Most reports accepted in one request (default 16). */
  maxReports?: number;
  /** Throws the refusal when the verifier cannot take this many verifications now (VerifierService.admit). */
  admit?: (count: number) => void;
  /** The most verifications the verifier can ever hold at once (VerifierService.capacity): a larger batch is admitted in parts. */
  capacity?: number;
}

const indices = { type: 'array', items: { type: 'integer', minimum: 0 } } as const;

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
        description:
          'Every report is checked. success is true exactly when every report is valid; validReports lists the valid ones only. A report that is not valid is listed in reportErrors with its errorCode and outcome: invalid (a check failed on the evidence) or unverifiable (the verifier could not decide, e.g. the PCCS or collateral is unavailable: try again later); unverifiableReports lists the latter. When the verification pool cannot take the whole batch, or refuses or times out a report of it, no report is judged: the whole request is answered 503 with Retry-After: 1 (POOL_OVERLOADED, POOL_CLOSED, POOL_TASK_TIMEOUT), as POST /decodeReport answers a full pool; a batch needs as many free places in the pool as it has reports, and one larger than the pool ever holds (workers + maxQueue) is taken in parts of that size, so a 503 can always succeed on retry.',
        response: {
          200: {
            type: 'object',
            required: ['success', 'validReports'],
            properties: {
              success: { type: 'boolean', description: 'true exactly when every report is valid' },
              validReports: { ...indices, description: 'Indices of the valid reports' },
              unverifiableReports: { ...indices, description: 'Indices of the reports the verifier could not decide (outcome unverifiable); present when there are some' },
              errorMessage: { type: 'string' },
              reportErrors: {
                type: 'array',
                items: {
                  type: 'object',
                  required: ['index', 'errorCode', 'errorMessage', 'outcome'],
                  properties: { index: { type: 'integer' }, errorCode: { type: 'string' }, errorMessage: { type: 'string' }, outcome: { ...outcomeSchema, enum: ['invalid', 'unverifiable'] } },
                },
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
      // Parts the pool can hold: the whole batch, unless it is larger than the pool ever holds.
      const partSize = Math.max(1, Math.min(reports.length, opts.capacity ?? reports.length));
      const checks: ReportCheck[] = [];
      for (let from = 0; from < reports.length; from += partSize) {
        const part = reports.slice(from, from + partSize);
        // The whole part or nothing: a full pool refuses it here (503) before any report is handed over.
        opts.admit?.(part.length);
        // A report the pool refused, timed out or lost after all is no verdict either: the first such
        // refusal answers the whole request (the app's error handler: 503 + Retry-After, or 500).
        checks.push(
          ...(await Promise.all(
            part.map((r) =>
              check(r).catch((e: unknown): ReportCheck => {
                if (isVerifierError(e) && traitsOf(e.code).refused) throw e;
                return { valid: false, error: toFailure(e) };
              }),
            ),
          )),
        );
      }
      const validReports: number[] = [];
      const unverifiableReports: number[] = [];
      const reportErrors: { index: number; errorCode: ErrorCode; errorMessage: string; outcome: Outcome }[] = [];
      checks.forEach((c, index) => {
        if (c.valid) {
          validReports.push(index);
          return;
        }
        const errorCode = c.error?.code ?? 'INTERNAL_ERROR';
        const outcome = outcomeFor(false, errorCode);
        if (outcome === 'unverifiable') unverifiableReports.push(index);
        reportErrors.push({ index, errorCode, errorMessage: c.error?.message ?? 'invalid', outcome });
      });
      const body: Record<string, unknown> = { success: reportErrors.length === 0, validReports };
      if (unverifiableReports.length) body.unverifiableReports = unverifiableReports;
      if (reportErrors.length) {
        body.errorMessage = reportErrors.map((e) => `report ${e.index}: ${e.outcome === 'unverifiable' ? 'could not verify: ' : ''}${e.errorMessage}`).join('; ');
        body.reportErrors = reportErrors;
      }
      return body;
    },
  );
};
