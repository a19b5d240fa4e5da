/** Builds ledger struct texts (userData, report) around minted attestations, as a notarizer does. */
import { encodeProofData, padProofData } from '../../src/encoding/index.js';
import type { ProofDataInput } from '../../src/encoding/types.js';
import { formatChunkedStruct, REPORT_CHUNKS, USER_DATA_CHUNKS } from '../../src/aleo/struct.js';
import { hashReportData } from '../../src/hash/index.js';

export const REPORT_BYTES = 5120;

export const sampleRequest: ProofDataInput = {
  url: 'api.example.com/price?symbol=BTCUSDC',
  requestMethod: 'GET',
  selector: 'price',
  responseFormat: 'json',
  requestHeaders: { Accept: '*/*', 'X-Api-Key': '*****' },
  encodingOptions: { value: 'float', precision: 8 },
  attestationData: '59408.01000000',
  responseStatusCode: 200,
  timestamp: 1725008028,
};

export interface UserData {
  bytes: Uint8Array;
  text: string;
  hash: Uint8Array;
}

export function makeUserData(overrides: Partial<ProofDataInput> = {}): UserData {
  const bytes = padProofData(encodeProofData({ ...sampleRequest, ...overrides }), USER_DATA_CHUNKS * 512);
  return { bytes, text: formatChunkedStruct(bytes, USER_DATA_CHUNKS, 'reference'), hash: hashReportData(bytes) };
}

/** The 5120-byte ledger report: the attestation, then zeros (or `tail` right after it). */
export function reportText(attestation: Uint8Array, tail?: Uint8Array): string {
  const b = new Uint8Array(REPORT_BYTES);
  b.set(attestation, 0);
  if (tail) b.set(tail, attestation.length);
  return formatChunkedStruct(b, REPORT_CHUNKS, 'reference');
}

/** typeA: the Open Enclave remote-report header (version 1, type 2, u64 LE length) + quote. */
export function openEnclaveReport(quote: Uint8Array): Uint8Array {
  const out = new Uint8Array(16 + quote.length);
  const dv = new DataView(out.buffer);
  dv.setUint32(0, 1, true);
  dv.setUint32(4, 2, true);
  dv.setBigUint64(8, BigInt(quote.length), true);
  out.set(quote, 16);
  return out;
}
