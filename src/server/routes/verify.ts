/**
 * POST /verify, wire-compatible with the official JS SDK 2.1.1 (notarizer-client-ledger.md §2):
 * request `{ reports: AttestationResponse[] }`, answer `{ success, validReports, errorMessage? }`
 * (+ `reportErrors`, per failed report). Unlike the reference backend, EVERY report is checked
 * (no stop at the first bad one).
 *
 * Per report: the report bytes come from `oracleData.report` (10-chunk struct text) when present,
 * else from the base64 `attestationReport` zero-padded to 5120 bytes (when both are present they
 * must agree). The attested data: `oracleData.userData` when present, which must then equal the
 * re-encoding of the response fields (attestationRequest, attestationData, responseStatusCode,
 * timestamp) in the current or the legacy (pre Feb 2025) encoding — otherwise the response could
 * carry other data than the one bound to the report; without `oracleData.userData` the
 * re-encoding itself is used (current era first, legacy when the binding fails). `reportType`
 * must match the detected kind; a Nitro `nonce` must match the document's.
 *
 * Status: 400 unreadable body or no reports, 200 otherwise (failures are in the body).
 */
import type { FastifyError, FastifyPluginAsync } from 'fastify';
import { encodeProofData, padProofData } from '../../encoding/encode.js';
import type { EncodingEra, ProofDataInput } from '../../encoding/types.js';
import { parseChunkedStruct, REPORT_CHUNKS, USER_DATA_CHUNKS, CHUNK_BYTES } from '../../ledger/struct.js';
import { decodeNonce } from '../../verify/nonce.js';
import { toFailure } from '../../verify/failure.js';
import type { FailureInfo, VerifyOutcome } from '../../verify/types.js';
import { classifyHttpError } from '../httpErrors.js';
import type { VerifyRouteCode } from './verifyCodes.js';

/** Verifies one (userData, report) pair: in process (verifyReportBytes) or through the pool. */
export type ReportVerifier = (userData: Uint8Array, report: Uint8Array, opts?: { nonce?: Uint8Array }) => Promise<VerifyOutcome>;

export interface VerifyRouteOptions {
  /** Most reports accepted in one request (default 16). */
  maxReports?: number;
}

export interface ReportCheck {
  valid: boolean;
  error?: FailureInfo;
}

const REPORT_BYTES = REPORT_CHUNKS * CHUNK_BYTES;
const USER_DATA_BYTES = USER_DATA_CHUNKS * CHUNK_BYTES;

function failure(code: VerifyRouteCode, message: string): ReportCheck {
  return { valid: false, error: { code, message } };
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function equal(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

function decodeBase64Report(s: string): Uint8Array | undefined {
  const t = s.trim();
  if (t === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(t) || t.length % 4 !== 0) return undefined;
  return Uint8Array.from(Buffer.from(t, 'base64'));
}

/** The response fields as the encoder's input; undefined when they are not all present. */
function proofInput(r: Record<string, unknown>): ProofDataInput | undefined {
  const q = r.attestationRequest;
  if (!isObj(q) || typeof r.attestationData !== 'string' || typeof r.responseStatusCode !== 'number' || typeof r.timestamp !== 'number') return undefined;
  const eo = q.encodingOptions;
  if (typeof q.url !== 'string' || typeof q.requestMethod !== 'string' || typeof q.responseFormat !== 'string' || !isObj(eo) || typeof eo.value !== 'string') return undefined;
  const input: ProofDataInput = {
    url: q.url,
    requestMethod: q.requestMethod,
    selector: typeof q.selector === 'string' ? q.selector : '',
    responseFormat: q.responseFormat,
    encodingOptions: { value: eo.value, precision: typeof eo.precision === 'number' ? eo.precision : 0 },
    attestationData: r.attestationData,
    responseStatusCode: r.responseStatusCode,
    timestamp: r.timestamp,
  };
  if (typeof q.htmlResultType === 'string' && q.htmlResultType !== '') input.htmlResultType = q.htmlResultType;
  if (typeof q.requestBody === 'string' && q.requestBody !== '') input.requestBody = q.requestBody;
  if (typeof q.requestContentType === 'string' && q.requestContentType !== '') input.requestContentType = q.requestContentType;
  if (isObj(q.requestHeaders)) {
    const h: Record<string, string> = {};
    for (const [k, v] of Object.entries(q.requestHeaders)) {
      if (typeof v !== 'string') return undefined;
      h[k] = v;
    }
    input.requestHeaders = h;
  }
  return input;
}

/**
 * A value longer than the whole userData cannot be in it; refusing it before encoding keeps a
 * hostile request from making the HTTP thread parse a multi-kilobyte float (price-feed URLs are
 * encoded unpadded, so the encoder alone does not bound the value's length).
 */
function reencode(input: ProofDataInput, era: EncodingEra): Uint8Array | undefined {
  if (Buffer.byteLength(input.attestationData, 'utf8') > USER_DATA_BYTES) return undefined;
  try {
    return padProofData(encodeProofData(input, { era }), USER_DATA_BYTES);
  } catch {
    return undefined;
  }
}

const KIND: Record<string, string> = { sgx: 'typeA', nitro: 'typeB' };

/** Checks one AttestationResponse (see the module comment). Never throws. */
export async function checkAttestationResponse(r: unknown, verify: ReportVerifier): Promise<ReportCheck> {
  if (!isObj(r)) return failure('BAD_REPORT_ENTRY', 'report entry is not an object');
  const reportType = r.reportType;
  if (reportType !== 'sgx' && reportType !== 'nitro') return failure('BAD_REPORT_TYPE', `reportType must be sgx or nitro, got ${JSON.stringify(reportType)}`);
  const od = isObj(r.oracleData) ? r.oracleData : undefined;

  // report bytes
  let report: Uint8Array | undefined;
  try {
    if (od && typeof od.report === 'string') report = parseChunkedStruct(od.report, REPORT_CHUNKS, 'report');
  } catch (e) {
    return { valid: false, error: toFailure(e) };
  }
  if (typeof r.attestationReport === 'string') {
    const raw = decodeBase64Report(r.attestationReport);
    if (!raw) return failure('BAD_ATTESTATION_REPORT', 'attestationReport is not base64');
    if (raw.length > REPORT_BYTES) return failure('BAD_ATTESTATION_REPORT', `attestationReport is ${raw.length} bytes, more than the ${REPORT_BYTES} bytes of a ledger report`);
    const padded = new Uint8Array(REPORT_BYTES);
    padded.set(raw);
    if (report && !equal(report, padded)) return failure('REPORT_MISMATCH', 'oracleData.report does not carry attestationReport');
    report ??= padded;
  }
  if (!report) return failure('REPORT_MISSING', 'neither oracleData.report nor attestationReport is present');

  // nonce (Nitro documents carry the notarizer's nonce)
  let nonce: Uint8Array | undefined;
  if (reportType === 'nitro' && typeof r.nonce === 'string' && r.nonce !== '') {
    try {
      nonce = decodeNonce(r.nonce);
    } catch (e) {
      return { valid: false, error: toFailure(e) };
    }
  }
  const run = async (userData: Uint8Array): Promise<VerifyOutcome> => {
    try {
      return await verify(userData, report, nonce ? { nonce } : {});
    } catch (e) {
      return { reportValid: false, error: toFailure(e) };
    }
  };

  // attested data
  const input = proofInput(r);
  const candidates = input ? [reencode(input, 'current'), reencode(input, 'legacy')].filter((c): c is Uint8Array => c !== undefined) : [];
  let outcome: VerifyOutcome;
  if (od && typeof od.userData === 'string') {
    let userData: Uint8Array;
    try {
      userData = parseChunkedStruct(od.userData, USER_DATA_CHUNKS, 'userData');
    } catch (e) {
      return { valid: false, error: toFailure(e) };
    }
    if (!input) return failure('RESPONSE_FIELDS_MISSING', 'attestationRequest, attestationData, responseStatusCode and timestamp are required');
    if (!candidates.some((c) => equal(c, userData))) {
      return failure('RESPONSE_FIELDS_MISMATCH', 'the response fields (attestationRequest, attestationData, responseStatusCode, timestamp) are not the data in oracleData.userData');
    }
    outcome = await run(userData);
  } else {
    if (!input) return failure('RESPONSE_FIELDS_MISSING', 'no oracleData.userData and the response fields needed to re-encode it are missing');
    if (!candidates.length) return failure('RESPONSE_FIELDS_NOT_ENCODABLE', 'the response fields cannot be encoded as oracle userData');
    outcome = await run(candidates[0] as Uint8Array);
    if (!outcome.reportValid && outcome.error?.code === 'USERDATA_HASH_MISMATCH' && candidates[1]) outcome = await run(candidates[1]);
  }
  if (outcome.reportType && outcome.reportType !== KIND[reportType]) {
    return failure('REPORT_TYPE_MISMATCH', `reportType is ${reportType} but the report is ${outcome.reportType}`);
  }
  if (!outcome.reportValid) return { valid: false, error: outcome.error ?? { code: 'INTERNAL_ERROR', message: 'report is not valid' } };
  return { valid: true };
}

function answer400(message: string, code: string): Record<string, unknown> {
  return { success: false, validReports: [], errorMessage: message, errorCode: code };
}

export const verifyRoute = (verify: ReportVerifier, opts: VerifyRouteOptions = {}): FastifyPluginAsync => async (app) => {
  const maxReports = opts.maxReports ?? 16;
  app.setErrorHandler((err: FastifyError, req, reply) => {
    const f = classifyHttpError(err);
    if (f.status >= 500 && f.status !== 503) req.log.error({ err }, 'request failed');
    if (f.retryAfter !== undefined) void reply.header('retry-after', String(f.retryAfter));
    return reply.code(f.status).send(answer400(f.message, f.code));
  });
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
      const reportErrors: { index: number; errorCode: string; errorMessage: string }[] = [];
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
