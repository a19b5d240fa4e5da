/**
 * The oracle's per-request hashes (venture23 README; notarizer v1.5.0):
 * requestHash = Poseidon8 of the request's struct (its chunk, or the whole userData of the
 * one-request eras) with c0.f2 (attestation data) and c0.f3 (timestamp) zeroed;
 * timestampedRequestHash = Poseidon8 of `{ request_hash, attestation_timestamp }`, the timestamp
 * being c0.f3 as a u128.
 */
import { hashReportDataU128, hashTimestampedRequest } from '../../hash/index.js';
import { u128FromLE } from '../../aleo/u128.js';

const F2 = 2 * 16;
const F4 = 4 * 16;
const F3 = 3 * 16;

export interface RequestHashes {
  requestHash: bigint;
  timestampedRequestHash: bigint;
}

/** `message`: the request's struct bytes (a multiple of 512). */
export function requestHashes(message: Uint8Array): RequestHashes {
  const masked = message.slice();
  masked.fill(0, F2, F4);
  const requestHash = hashReportDataU128(masked);
  return { requestHash, timestampedRequestHash: hashTimestampedRequest(requestHash, u128FromLE(message, F3)) };
}
