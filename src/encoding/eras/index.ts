/**
 * The encoding eras of the oracle's userData: one registry that the decoder, the encoder,
 * POST /verify and the CLI read. Adding an era = one file (an `Era`) + one line in `ERAS`.
 *
 * | era | dates | chunks | requests | token id |
 * |---|---|---|---|---|
 * | 1 | 2023 – early 2025 (EGo) | 8 | one | byte 0 of a btc/eth/aleo price feed; legacy (raw length) or padded data |
 * | 2 | mid 2025 – 2025-09 (Gramine) | 8 | one | byte 0, as era 1 after Feb 2025 (padded data) |
 * | 3 | 2025-09-26 – 2026-02 | 8 | one | byte 21 (non-zero) |
 * | 4 | from 2026-02-02 | 10 | one per chunk, unused chunks zero | byte 21 of each chunk (0: none) |
 *
 * Detection (`detectEras`), in order; the first failing rule refuses the data with its code:
 * 1. the byte length is 512 × the chunk count of some era (8 or 10), else USERDATA_ERA_UNKNOWN;
 * 2. the requests: for one-request-per-chunk eras each 512-byte chunk up to the first all-zero
 *    one — c0 must be non-zero (USERDATA_NO_REQUEST) and no non-zero chunk may follow a zero one
 *    (USERDATA_CHUNK_AFTER_EMPTY); otherwise the whole userData (not all zero);
 * 3. the eras of that chunk count whose header rule every request fits: meta-header bytes 20–31
 *    zero (eras 1, 2; era 2 also needs a padded attestation length: 255, 3072 or a price-feed
 *    id), bytes 20 and 22–31 zero with byte 21 non-zero (era 3), bytes 20 and 22–31 zero in every
 *    request chunk (era 4). None: USERDATA_ERA_UNKNOWN (never guessed).
 * 8-chunk data is thus era 3 exactly when byte 21 is non-zero, else era 1/2 (eras 1 and 2 share
 * one layout and decode identically; an era-3 request without a token id is era-2 data).
 * A one-request-per-chunk request longer than its chunk was cut by the notarizer: its headers and
 * optional fields may be missing (decoded as `truncated: true`); every other section must fit.
 */
import { VerifierError } from '../../errors.js';
import { CHUNK_BYTES, parseChunkedStruct } from '../../aleo/struct.js';
import { decodeProofData } from '../decode.js';
import { padProofData } from '../encode.js';
import type { DecodedData, DecodedRequest, ProofDataInput } from '../types.js';
import { era1 } from './era1.js';
import { era2 } from './era2.js';
import { era3 } from './era3.js';
import { era4 } from './era4.js';
import type { EraCode } from './errors.js';
import { requestHashes } from './requestHash.js';
import type { Era } from './types.js';
import { equalBytes } from '../../bytes.js';

export type { Era } from './types.js';
export type { EraCode } from './errors.js';
export { requestHashes, requestKeysOf, type RequestHashes, type RequestKeys, type RequestLayout } from './requestHash.js';
export { TOKEN_IDS } from './rules.js';

/** Every era, oldest first (this order is also the order /verify tries re-encodings in). */
export const ERAS: readonly Era[] = [era1, era2, era3, era4];

/** The userData chunk counts of all eras, ascending (8, 10). */
export const USER_DATA_CHUNK_COUNTS: readonly number[] = [...new Set(ERAS.map((e) => e.chunks))].sort((a, b) => a - b);

function fail(code: EraCode, message: string): never {
  throw new VerifierError<EraCode>(code, `userData: ${message}`);
}

/** userData struct text of any era's chunk count → bytes (STRUCT_* codes; other counts: STRUCT_CHUNK_COUNT). */
export function parseUserData(text: string): Uint8Array {
  return parseChunkedStruct(text, USER_DATA_CHUNK_COUNTS, 'userData');
}

function isZero(b: Uint8Array): boolean {
  for (let i = 0; i < b.length; i++) if (b[i] !== 0) return false;
  return true;
}

/** One request of a userData: its message bytes and the chunk it starts at. */
export interface RequestSlot {
  chunk: number;
  message: Uint8Array;
}

export interface EraDetection {
  /** The eras whose rules the data fits (same chunk count and layout), oldest first. */
  eras: readonly Era[];
  requests: readonly RequestSlot[];
}

function slotsOf(userData: Uint8Array, perChunk: boolean): RequestSlot[] {
  if (!perChunk) {
    if (isZero(userData)) fail('USERDATA_NO_REQUEST', 'all bytes are zero: no request');
    return [{ chunk: 0, message: userData }];
  }
  const slots: RequestSlot[] = [];
  let emptyAt = -1;
  for (let c = 0; c * CHUNK_BYTES < userData.length; c++) {
    const message = userData.subarray(c * CHUNK_BYTES, (c + 1) * CHUNK_BYTES);
    if (isZero(message)) {
      if (c === 0) fail('USERDATA_NO_REQUEST', 'chunk c0 is all zero: no request');
      if (emptyAt < 0) emptyAt = c;
    } else {
      if (emptyAt >= 0) fail('USERDATA_CHUNK_AFTER_EMPTY', `chunk c${c} is not zero but chunk c${emptyAt} is: unused chunks must be the last ones`);
      slots.push({ chunk: c, message });
    }
  }
  return slots;
}

function hexBytes(b: Uint8Array, from: number, to: number): string {
  return Buffer.from(b.subarray(from, to)).toString('hex');
}

/** The eras the userData bytes fit (see the module comment); throws USERDATA_* when none. */
export function detectEras(userData: Uint8Array): EraDetection {
  const chunks = userData.length / CHUNK_BYTES;
  const sized = ERAS.filter((e) => e.chunks === chunks);
  if (sized.length === 0) {
    fail('USERDATA_ERA_UNKNOWN', `${userData.length} bytes is not ${USER_DATA_CHUNK_COUNTS.join(' or ')} chunks of ${CHUNK_BYTES} bytes`);
  }
  // eras of one chunk count share the request layout (checked by the era tests)
  const requests = slotsOf(userData, (sized[0] as Era).requestPerChunk);
  const eras = sized.filter((e) => requests.every((r) => e.fits(r.message)));
  if (eras.length === 0) {
    const r = requests.find((q) => !sized.some((e) => e.fits(q.message))) ?? (requests[0] as RequestSlot);
    fail(
      'USERDATA_ERA_UNKNOWN',
      `chunk c${r.chunk} fits no encoding era of ${chunks}-chunk data: meta-header bytes 20–31 are ${hexBytes(r.message, 20, 32)} (eras 1–2: all zero; eras 3–4: only byte 21, the token id, may be non-zero)`,
    );
  }
  return { eras, requests };
}

export interface DecodedUserData {
  eras: readonly Era[];
  /** The first request (the seed's `decodedData`). */
  decodedData: DecodedData;
  /** Every request in chunk order, with token id and (one-request-per-chunk eras) request hashes. */
  decodedRequests: DecodedRequest[];
}

/**
 * Detects the era and decodes every request (PROOF_DATA_* codes name the chunk when there are
 * several). `detected`: the caller's own detectEras of these bytes, so eras are detected once.
 */
export function decodeUserDataBytes(userData: Uint8Array, detected?: EraDetection): DecodedUserData {
  const { eras, requests } = detected ?? detectEras(userData);
  const era = eras[0] as Era;
  let first: DecodedData | undefined;
  const decodedRequests = requests.map(({ chunk, message }): DecodedRequest => {
    let d: DecodedData;
    try {
      d = decodeProofData(message, { cut: era.requestPerChunk });
    } catch (e) {
      if (era.requestPerChunk && e instanceof VerifierError) throw new VerifierError(e.code, `chunk c${chunk}: ${e.message}`);
      throw e;
    }
    first ??= d;
    const out: DecodedRequest = { ...d };
    const tokenId = era.tokenId(message, d.url);
    if (tokenId !== undefined) out.tokenId = tokenId;
    if (era.requestPerChunk) {
      const h = requestHashes(message);
      out.requestHash = h.requestHash.toString();
      out.timestampedRequestHash = h.timestampedRequestHash.toString();
    }
    return out;
  });
  return { eras, decodedData: first as DecodedData, decodedRequests };
}

/** Re-encodings of a response's requests as one era's notarizer wrote them (userData bytes). */
function encodeForEra(era: Era, requests: readonly ProofDataInput[]): Uint8Array[] {
  const size = era.chunks * CHUNK_BYTES;
  if (!era.requestPerChunk) {
    if (requests.length !== 1) return [];
    return era.encodeRequest(requests[0] as ProofDataInput).flatMap((m) => (m.length > size ? [] : [padProofData(m, size)]));
  }
  if (requests.length < 1 || requests.length > era.chunks) return [];
  let partial: Uint8Array[][] = [[]];
  for (const r of requests) partial = partial.flatMap((p) => era.encodeRequest(r).map((m) => [...p, m]));
  return partial.map((messages) => {
    const out = new Uint8Array(size);
    messages.forEach((m, i) => out.set(m, i * CHUNK_BYTES));
    return out;
  });
}


/**
 * Every userData the notarizers of `eras` could have written for these requests, in registry
 * order, without duplicates (the /verify retry order when the response carries no userData).
 */
export function encodingCandidates(requests: readonly ProofDataInput[], eras: readonly Era[] = ERAS): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (const era of eras) for (const c of encodeForEra(era, requests)) if (!out.some((o) => equalBytes(o, c))) out.push(c);
  return out;
}
