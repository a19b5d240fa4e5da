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
 * chunk. Without `oracleData.userData` the re-encodings of every era are tried in registry order
 * (the next one only when the binding hash does not match). `reportType` must match the
 * detected kind; a Nitro `nonce` must match the document's.
 */
import { encodingCandidates, detectEras, USER_DATA_CHUNK_COUNTS, parseUserData } from '../encoding/eras/index.js';
import type { ProofDataInput } from '../encoding/types.js';
import { CHUNK_BYTES, parseChunkedStruct, REPORT_CHUNKS } from '../ledger/struct.js';
import type { ResponseCode } from './errors.js';
import { toFailure } from './failure.js';
import { kindOfWireName, WIRE_REPORT_TYPES } from './kinds/index.js';
import { decodeNonce } from './nonce.js';
import type { FailureInfo, VerifyOutcome } from './types.js';
import { equalBytes } from '../bytes.js';

/** Verifies one (userData, report) pair: in process or through the pool. */
export type ReportVerifier = (userData: Uint8Array, report: Uint8Array, opts?: { nonce?: Uint8Array }) => Promise<VerifyOutcome>;

export interface ReportCheck {
  valid: boolean;
  error?: FailureInfo;
}

const REPORT_BYTES = REPORT_CHUNKS * CHUNK_BYTES;
/** The largest userData: no attested value can be longer. */
const MAX_USER_DATA_BYTES = Math.max(...USER_DATA_CHUNK_COUNTS) * CHUNK_BYTES;

function failure(code: ResponseCode, message: string): ReportCheck {
  return { valid: false, error: { code, message } };
}

function isObj(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}


function decodeBase64Report(s: string): Uint8Array | undefined {
  const t = s.trim();
  if (t === '' || !/^[A-Za-z0-9+/]+={0,2}$/.test(t) || t.length % 4 !== 0) return undefined;
  return Uint8Array.from(Buffer.from(t, 'base64'));
}

/**
 * One request's fields as the encoder's input; undefined when they are not all present. A value
 * longer than the largest userData cannot be in it: refusing it here keeps a hostile request from
 * making the encoder parse a multi-kilobyte float.
 */
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
 * The response's requests in order: `attestationResults[]` (second-generation multi-request
 * responses) or the top-level fields. A string: what is missing.
 */
export function responseRequests(r: Record<string, unknown>): ProofDataInput[] | string {
  if (Array.isArray(r.attestationResults)) {
    const list = r.attestationResults as unknown[];
    if (list.length === 0) return 'attestationResults is empty';
    const inputs: ProofDataInput[] = [];
    for (const [i, item] of list.entries()) {
      const input = isObj(item) ? proofInput(item) : undefined;
      if (!input) return `attestationResults[${i}] needs attestationRequest, attestationData, responseStatusCode and timestamp`;
      inputs.push(input);
    }
    return inputs;
  }
  const input = proofInput(r);
  return input ? [input] : 'attestationRequest, attestationData, responseStatusCode and timestamp are required';
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

function reportBytes(r: Record<string, unknown>, od: Record<string, unknown> | undefined): Uint8Array | ReportCheck {
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
    if (report && !equalBytes(report, padded)) return failure('REPORT_MISMATCH', 'oracleData.report does not carry attestationReport');
    report ??= padded;
  }
  return report ?? failure('REPORT_MISSING', 'neither oracleData.report nor attestationReport is present');
}

/** Checks one AttestationResponse (see the module comment). Never throws. */
export async function checkAttestationResponse(r: unknown, verify: ReportVerifier): Promise<ReportCheck> {
  if (!isObj(r)) return failure('BAD_REPORT_ENTRY', 'report entry is not an object');
  const reportType = r.reportType;
  const kind = kindOfWireName(reportType);
  if (!kind) return failure('BAD_REPORT_TYPE', `reportType must be ${WIRE_REPORT_TYPES.join(' or ')}, got ${JSON.stringify(reportType)}`);
  const od = isObj(r.oracleData) ? r.oracleData : undefined;
  const report = reportBytes(r, od);
  if (!(report instanceof Uint8Array)) return report;

  // nonce (Nitro documents carry the notarizer's nonce)
  let nonce: Uint8Array | undefined;
  if (kind.acceptsNonce && typeof r.nonce === 'string' && r.nonce !== '') {
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
  const requests = responseRequests(r);
  let outcome: VerifyOutcome;
  if (od && typeof od.userData === 'string') {
    let userData: Uint8Array;
    let eras;
    try {
      userData = parseUserData(od.userData);
      eras = detectEras(userData).eras;
    } catch (e) {
      return { valid: false, error: toFailure(e) };
    }
    if (typeof requests === 'string') return failure('RESPONSE_FIELDS_MISSING', requests);
    const candidates = tooLong(requests) ? [] : encodingCandidates(requests, eras);
    if (!candidates.some((c) => equalBytes(c, userData))) {
      return failure('RESPONSE_FIELDS_MISMATCH', mismatchMessage(userData, candidates, eras.some((e) => e.requestPerChunk)));
    }
    outcome = await run(userData);
  } else {
    if (typeof requests === 'string') return failure('RESPONSE_FIELDS_MISSING', `no oracleData.userData, and to re-encode it ${requests}`);
    const candidates = tooLong(requests) ? [] : encodingCandidates(requests);
    if (!candidates.length) return failure('RESPONSE_FIELDS_NOT_ENCODABLE', 'the response fields cannot be encoded as oracle userData');
    outcome = { reportValid: false };
    for (const c of candidates) {
      outcome = await run(c);
      if (outcome.reportValid || outcome.error?.code !== 'USERDATA_HASH_MISMATCH') break;
    }
  }
  if (outcome.reportType && outcome.reportType !== kind.id) {
    return failure('REPORT_TYPE_MISMATCH', `reportType is ${kind.wireName} but the report is ${outcome.reportType}`);
  }
  if (!outcome.reportValid) return { valid: false, error: outcome.error ?? { code: 'INTERNAL_ERROR', message: 'report is not valid' } };
  return { valid: true };
}
