/**
 * One notarizer AttestationResponse, as POST /verify receives it, checked against its report
 * (notarizer-client-ledger.md §2; venture23 README for the second generation).
 *
 * Shapes: first generation (@zkportal/aleo-oracle-sdk 2.1.x) and second-generation single-request
 * responses carry the request fields at the top level (attestationRequest, attestationData,
 * responseStatusCode, timestamp); second-generation multi-request responses carry them per
 * request in `attestationResults[]` (top-level fields absent), one request per userData chunk.
 *
 * Report bytes: `oracleData.report` (10-chunk struct text) when present, else the base64
 * `attestationReport` zero-padded to 5120 bytes (both present: they must agree).
 * Attested data: `oracleData.userData` (8 or 10 chunks) when present; its encoding eras are
 * detected (src/encoding/eras) and the response's requests, re-encoded as those eras'
 * notarizers did, must give exactly these bytes — so every result's data is checked against its
 * chunk. Without `oracleData.userData` the re-encodings of every era are candidates, handed to
 * the core together: the one whose Poseidon8 hash equals the bytes the report binds (read from its
 * structure) is verified, once; when none does, the first is, and the binding check names the
 * mismatch. `reportType` must match the kind the report's first bytes name, checked before any
 * verification; a Nitro `nonce` must match the document's.
 *
 * This runs where the verification runs (a pool worker, or in process): the HTTP thread only
 * hands the schema-checked entry over.
 *
 * The entry's shape (field types, reportType a wire name of the kinds registry) is the route
 * schema's (src/verify/attestationResponseSchema.ts): what reaches this module is typed.
 */
import { encodingCandidates, detectEras, USER_DATA_CHUNK_COUNTS, parseUserData, type EraDetection } from '../encoding/eras/index.js';
import type { ProofDataInput } from '../encoding/types.js';
import { CHUNK_BYTES, parseChunkedStruct, REPORT_CHUNKS } from '../aleo/struct.js';
import type { ResponseCode } from './errors.js';
import { toFailure } from './failure.js';
import { findReportKind, wireKind } from './kinds/index.js';
import type { AttestationResponse, AttestationResult } from './attestationResponseSchema.js';
import { decodeNonce } from './nonce.js';
import type { ReportCheck, ReportVerifier, VerifyOutcome } from './types.js';

export type { ReportCheck, ReportVerifier } from './types.js';
import { equalBytes } from '../bytes.js';

function summary(o: VerifyOutcome): NonNullable<ReportCheck['verification']> {
  return {
    reportValid: o.reportValid,
    ...(o.reportType ? { reportType: o.reportType } : {}),
    ...(o.error ? { error: o.error } : {}),
    ...(o.timings ? { timings: o.timings } : {}),
  };
}

const REPORT_BYTES = REPORT_CHUNKS * CHUNK_BYTES;
/** The largest userData: no attested value can be longer. */
const MAX_USER_DATA_BYTES = Math.max(...USER_DATA_CHUNK_COUNTS) * CHUNK_BYTES;

function failure(code: ResponseCode, message: string): ReportCheck {
  return { valid: false, error: { code, message } };
}

function decodeBase64Report(s: string): Uint8Array | undefined {
  const t = s.trim();
  if (t === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(t) || t.length % 4 !== 0) return undefined;
  return Uint8Array.from(Buffer.from(t, 'base64'));
}

/** The request fields of a single-request response, or of one result of a multi-request one. */
export type RequestFields = Pick<AttestationResponse, 'attestationRequest' | 'attestationData' | 'responseStatusCode' | 'timestamp' | 'attestationResults'>;

/**
 * One request's fields as the encoder's input. A value longer than the largest userData cannot be
 * in it: tooLong refuses it before encoding, which keeps a hostile request from making the encoder
 * parse a multi-kilobyte float.
 */
function proofInput(r: AttestationResult): ProofDataInput {
  const q = r.attestationRequest;
  const input: ProofDataInput = {
    url: q.url,
    requestMethod: q.requestMethod,
    selector: q.selector ?? '',
    responseFormat: q.responseFormat,
    encodingOptions: { value: q.encodingOptions.value, precision: q.encodingOptions.precision ?? 0 },
    attestationData: r.attestationData,
    responseStatusCode: r.responseStatusCode,
    timestamp: r.timestamp,
  };
  if (q.htmlResultType) input.htmlResultType = q.htmlResultType;
  if (q.requestBody) input.requestBody = q.requestBody;
  if (q.requestContentType) input.requestContentType = q.requestContentType;
  if (q.requestHeaders) input.requestHeaders = { ...q.requestHeaders };
  return input;
}

/**
 * The response's requests in order: `attestationResults[]` (second-generation multi-request
 * responses) or the top-level fields. A string: what is missing.
 */
export function responseRequests(r: RequestFields): ProofDataInput[] | string {
  if (r.attestationResults) {
    if (r.attestationResults.length === 0) return 'attestationResults is empty';
    return r.attestationResults.map(proofInput);
  }
  const { attestationRequest, attestationData, responseStatusCode, timestamp } = r;
  if (attestationRequest === undefined || attestationData === undefined || responseStatusCode === undefined || timestamp === undefined) {
    return 'attestationRequest, attestationData, responseStatusCode and timestamp are required';
  }
  return [proofInput({ attestationRequest, attestationData, responseStatusCode, timestamp })];
}

function tooLong(inputs: readonly ProofDataInput[]): boolean {
  return inputs.some((i) => Buffer.byteLength(i.attestationData, 'utf8') > MAX_USER_DATA_BYTES);
}

/** Why no re-encoding equals `userData`: the first differing chunk when requests are per chunk. */
function mismatchMessage(userData: Uint8Array, candidates: readonly Uint8Array[], perChunk: boolean): string {
  const base = 'the response fields (attestationRequest, attestationData, responseStatusCode, timestamp) are not the data in oracleData.userData';
  const same = candidates.find((c) => c.length === userData.length);
  if (!perChunk || !same) return base;
  for (let c = 0; c * CHUNK_BYTES < userData.length; c++) {
    if (!equalBytes(same.subarray(c * CHUNK_BYTES, (c + 1) * CHUNK_BYTES), userData.subarray(c * CHUNK_BYTES, (c + 1) * CHUNK_BYTES))) {
      return `${base}: attestationResults[${c}] differs from chunk c${c}`;
    }
  }
  return base;
}

function reportBytes(r: AttestationResponse): Uint8Array | ReportCheck {
  const text = r.oracleData?.report;
  let report: Uint8Array | undefined;
  try {
    if (text !== undefined) report = parseChunkedStruct(text, REPORT_CHUNKS, 'report');
  } catch (e) {
    return { valid: false, error: toFailure(e) };
  }
  if (r.attestationReport !== undefined) {
    const raw = decodeBase64Report(r.attestationReport);
    if (!raw) return failure('BAD_ATTESTATION_REPORT', 'attestationReport is not base64');
    if (raw.length > REPORT_BYTES) return failure('BAD_ATTESTATION_REPORT', `attestationReport is ${raw.length} bytes, more than the ${REPORT_BYTES} bytes of a ledger report`);
    const padded = new Uint8Array(REPORT_BYTES);
    padded.set(raw);
    if (report && !equalBytes(report, padded)) return failure('REPORT_MISMATCH', 'oracleData.report does not carry attestationReport');
    report ??= padded;
  }
  return report ?? failure('REPORT_MISSING', 'neither oracleData.report nor attestationReport is present');
}

/** Checks one AttestationResponse (see the module comment). Never throws on an entry of the schema's shape. */
export async function checkAttestationResponse(r: AttestationResponse, verify: ReportVerifier): Promise<ReportCheck> {
  const kind = wireKind(r.reportType);
  const report = reportBytes(r);
  if (!(report instanceof Uint8Array)) return report;

  // nonce (Nitro documents carry the notarizer's nonce)
  let nonce: Uint8Array | undefined;
  if (kind.acceptsNonce && r.nonce) {
    try {
      nonce = decodeNonce(r.nonce);
    } catch (e) {
      return { valid: false, error: toFailure(e) };
    }
  }
  /** The report's kind by its first bytes must be the entry's reportType: checked before verifying. */
  const found = findReportKind(report);
  const typeMismatch = found && found.id !== kind.id ? failure('REPORT_TYPE_MISMATCH', `reportType is ${kind.wireName} but the report is ${found.id}`) : undefined;
  const run = async (userData: Uint8Array | readonly Uint8Array[], eras?: EraDetection): Promise<ReportCheck> => {
    if (typeMismatch) return typeMismatch;
    let outcome: VerifyOutcome;
    try {
      outcome = await verify(userData, report, { ...(nonce ? { nonce } : {}), ...(eras ? { eras } : {}) });
    } catch (e) {
      return { valid: false, error: toFailure(e) };
    }
    if (!outcome.reportValid) return { valid: false, error: outcome.error ?? { code: 'INTERNAL_ERROR', message: 'report is not valid' }, verification: summary(outcome) };
    return { valid: true, verification: summary(outcome) };
  };

  // attested data
  const requests = responseRequests(r);
  const userDataText = r.oracleData?.userData;
  if (userDataText !== undefined) {
    let userData: Uint8Array;
    let detected: EraDetection;
    try {
      userData = parseUserData(userDataText);
      detected = detectEras(userData);
    } catch (e) {
      return { valid: false, error: toFailure(e) };
    }
    if (typeof requests === 'string') return failure('RESPONSE_FIELDS_MISSING', requests);
    const candidates = tooLong(requests) ? [] : encodingCandidates(requests, detected.eras);
    if (!candidates.some((c) => equalBytes(c, userData))) {
      return failure('RESPONSE_FIELDS_MISMATCH', mismatchMessage(userData, candidates, detected.eras.some((e) => e.requestPerChunk)));
    }
    return run(userData, detected);
  }
  if (typeof requests === 'string') return failure('RESPONSE_FIELDS_MISSING', `no oracleData.userData, and to re-encode it ${requests}`);
  const candidates = tooLong(requests) ? [] : encodingCandidates(requests);
  if (!candidates.length) return failure('RESPONSE_FIELDS_NOT_ENCODABLE', 'the response fields cannot be encoded as oracle userData');
  return run(candidates);
}
