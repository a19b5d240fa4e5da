/**
 * The oracle's per-request hashes (venture23 README; notarizer v1.5.0):
 * requestHash = Poseidon8 of the request's struct (its chunk, or the whole userData of the
 * one-request eras) with c0.f2 (attestation data) and c0.f3 (timestamp) zeroed;
 * timestampedRequestHash = Poseidon8 of `{ request_hash, attestation_timestamp }`, the timestamp
 * being c0.f3 as a u128.
 */
import { hashReportDataU128, hashTimestampedRequest } from '../../hash/index.js';
import { u128FromLE } from '../../aleo/u128.js';
import { CHUNK_BYTES } from '../../aleo/struct.js';

const F1 = 1 * 16;
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

/**
 * Which requests of a userData a program stores under their hashes: the whole userData as one
 * request (`whole`), or each of its first `chunks` chunks, a chunk whose f1 is 0 (an empty request
 * slot) skipped.
 */
export type RequestLayout = 'whole' | { chunks: number };

/** One stored request: its two keys and the value's fields (u128 decimals). */
export interface RequestKeys {
  requestHash: string;
  timestampedRequestHash: string;
  /** c0.f2 of the request. */
  data: string;
  /** c0.f3 of the request. */
  attestationTimestamp: string;
}

function keysOf(message: Uint8Array): RequestKeys {
  const { requestHash, timestampedRequestHash } = requestHashes(message);
  return { requestHash: requestHash.toString(), timestampedRequestHash: timestampedRequestHash.toString(), data: u128FromLE(message, F2).toString(), attestationTimestamp: u128FromLE(message, F3).toString() };
}

/**
 * The keys of every request of `userData` stored as `layout` says, in chunk order. Pure (no pool,
 * no ledger): computed where the bytes are, a verification worker (the CLI's and the watcher's
 * batches) or the caller's thread.
 */
export function requestKeysOf(userData: Uint8Array, layout: RequestLayout): RequestKeys[] {
  if (layout === 'whole') return [keysOf(userData)];
  const out: RequestKeys[] = [];
  for (let c = 0; c < layout.chunks && (c + 1) * CHUNK_BYTES <= userData.length; c++) {
    const chunk = userData.subarray(c * CHUNK_BYTES, (c + 1) * CHUNK_BYTES);
    // The data program skips a chunk whose f1 is 0 (an empty request slot).
    if (u128FromLE(chunk, F1) === 0n) continue;
    out.push(keysOf(chunk));
  }
  return out;
}
