/**
 * Property tests of the era seam's decoder (src/encoding/eras) on 8- and 10-chunk userData:
 * generated requests round-trip in every era; hostile section lengths in every chunk, arbitrary
 * bytes, a non-zero chunk after a zero one and byte 21 on first-era data are refused with a
 * VerifierError code or decoded consistently — never another exception, never a guess.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ERAS, decodeUserDataBytes, detectEras, encodingCandidates } from '../../../../src/encoding/eras/index.js';
import { decodeProofData } from '../../../../src/encoding/decode.js';
import { encodeProofData, padProofData } from '../../../../src/encoding/encode.js';
import type { ProofDataInput } from '../../../../src/encoding/types.js';
import { isVerifierError } from '../../../../src/errors.js';
import { CHUNK_BYTES } from '../../../../src/aleo/struct.js';

const era4 = ERAS.filter((e) => e.id === 4);
const ascii = (max: number) => fc.string({ unit: 'grapheme-ascii', maxLength: max });

/** Small requests (they fit a 512-byte chunk), price feeds among them. */
const requestArb: fc.Arbitrary<ProofDataInput> = fc.record({
  url: fc.oneof(fc.constantFrom('price_feed: aleo', 'price_feed: usdc', 'price_feed: usdt', 'price_feed: btc', 'price_feed: eth'), ascii(60).map((s) => `api.example.com/${s}`)),
  requestMethod: fc.constantFrom('GET', 'POST'),
  selector: ascii(30),
  responseFormat: fc.constant('json'),
  encodingOptions: fc.constant({ value: 'float', precision: 6 }),
  attestationData: fc.integer({ min: 0, max: 999_999_999 }).map((v) => (v / 1e6).toFixed(6)),
  responseStatusCode: fc.constantFrom(200, 404),
  timestamp: fc.integer({ min: 1_700_000_000, max: 1_900_000_000 }),
});

/** Runs `f`; a thrown error must be a VerifierError (returned as its code). */
function outcome<T>(f: () => T): T | string {
  try {
    return f();
  } catch (e) {
    if (!isVerifierError(e)) throw e;
    return e.code;
  }
}

function tenChunks(requests: ProofDataInput[]): Uint8Array {
  const [bytes, ...more] = encodingCandidates(requests, era4);
  if (!bytes || more.length) throw new Error('no unique era-4 encoding');
  return bytes;
}

const fitsOneChunk = (r: ProofDataInput) => encodeProofData(r).length <= CHUNK_BYTES;

describe('10-chunk data (era 4)', () => {
  it('1–10 generated requests decode to the same requests in chunk order, each with request hashes', () => {
    fc.assert(
      fc.property(fc.array(requestArb.filter(fitsOneChunk), { minLength: 1, maxLength: 10 }), (requests) => {
        const bytes = tenChunks(requests);
        const d = decodeUserDataBytes(bytes);
        expect(d.eras.map((e) => e.id)).toEqual([4]);
        expect(d.decodedRequests.map((q) => [q.url, q.attestationData, q.timestamp])).toEqual(requests.map((r) => [r.url, r.attestationData, r.timestamp]));
        d.decodedRequests.forEach((q, i) => {
          expect(q.tokenId).toBe({ 'price_feed: aleo': 8, 'price_feed: usdt': 9, 'price_feed: usdc': 10, 'price_feed: eth': 11, 'price_feed: btc': 12 }[requests[i]!.url]);
          expect(q.requestHash).toMatch(/^\d+$/);
        });
      }),
      { numRuns: 25 },
    );
  });

  it('requests longer than their chunk keep every core field; headers are whole or left out, marked truncated', () => {
    const withHeaders = fc.tuple(requestArb, fc.dictionary(fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 12 }).filter((k) => !k.includes(':')), ascii(60), { minKeys: 1, maxKeys: 8 }));
    fc.assert(
      fc.property(fc.array(withHeaders, { minLength: 1, maxLength: 4 }), (list) => {
        const requests = list.map(([r, h]) => ({ ...r, requestHeaders: h }));
        const bytes = tenChunks(requests);
        const d = decodeUserDataBytes(bytes);
        d.decodedRequests.forEach((q, i) => {
          const whole = decodeProofData(encodeProofData(requests[i]!));
          const cut = encodeProofData(requests[i]!).length > CHUNK_BYTES;
          expect(q.truncated).toBe(cut ? true : undefined);
          const { tokenId: _t, requestHash: _h, timestampedRequestHash: _th, truncated: _c, requestHeaders, requestBody: _b, requestContentType: _ct, htmlResultType: _ht, ...core } = q;
          const { requestHeaders: wantHeaders, requestBody: _wb, requestContentType: _wct, htmlResultType: _wht, ...wantCore } = whole;
          expect(core).toEqual(wantCore);
          if (requestHeaders !== undefined) expect(requestHeaders).toEqual(wantHeaders);
          else expect(cut).toBe(true);
        });
      }),
      { numRuns: 60 },
    );
  });

  it('hostile section lengths in every chunk: a code or the chunk decoded on its own, never more', () => {
    fc.assert(
      fc.property(
        fc.array(requestArb.filter(fitsOneChunk), { minLength: 1, maxLength: 10 }),
        fc.array(fc.array(fc.integer({ min: 0, max: 0xffff }), { minLength: 10, maxLength: 10 }), { minLength: 10, maxLength: 10 }),
        (requests, lengths) => {
          const bytes = tenChunks(requests);
          requests.forEach((_, c) => lengths[c]!.forEach((len, k) => {
            bytes[c * CHUNK_BYTES + 2 * k] = len & 0xff;
            bytes[c * CHUNK_BYTES + 2 * k + 1] = len >> 8;
          }));
          const d = outcome(() => decodeUserDataBytes(bytes));
          if (typeof d === 'string') {
            expect(d).toMatch(/^(PROOF_DATA_|USERDATA_)/);
            return;
          }
          d.decodedRequests.forEach((q, c) => {
            const { tokenId: _t, requestHash: _h, timestampedRequestHash: _th, ...alone } = q;
            expect(alone).toEqual(decodeProofData(bytes.subarray(c * CHUNK_BYTES, (c + 1) * CHUNK_BYTES), { cut: true }));
          });
        },
      ),
      { numRuns: 150 },
    );
  });

  it('a non-zero chunk after a zero one is always refused', () => {
    fc.assert(
      fc.property(
        fc.array(requestArb.filter(fitsOneChunk), { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 0, max: 10 }),
        fc.integer({ min: 0, max: CHUNK_BYTES - 1 }),
        fc.integer({ min: 1, max: 255 }),
        (requests, gap, offset, value) => {
          const bytes = tenChunks(requests);
          const at = Math.min(9, requests.length + 1 + (gap % (9 - requests.length)));
          bytes[at * CHUNK_BYTES + offset] = value;
          expect(outcome(() => detectEras(bytes))).toBe('USERDATA_CHUNK_AFTER_EMPTY');
        },
      ),
      { numRuns: 100 },
    );
  });

  it('arbitrary bytes of 8, 9 or 10 chunks: only VerifierError codes', () => {
    fc.assert(
      fc.property(fc.constantFrom(8, 9, 10), fc.array(fc.tuple(fc.nat(), fc.integer({ min: 0, max: 255 })), { maxLength: 80 }), (chunks, writes) => {
        const bytes = new Uint8Array(chunks * CHUNK_BYTES);
        for (const [at, v] of writes) bytes[at % 64 + CHUNK_BYTES * (at % chunks)] = v;
        const d = outcome(() => decodeUserDataBytes(bytes));
        if (chunks === 9) expect(d).toBe('USERDATA_ERA_UNKNOWN');
      }),
      { numRuns: 300 },
    );
  });
});

describe('byte 21 on first-era (8-chunk) data', () => {
  it('makes it era 3 with that token id and changes no decoded field; other reserved bytes fit no era', () => {
    fc.assert(
      fc.property(requestArb, fc.integer({ min: 1, max: 255 }), fc.constantFrom(20, 22, 23, 27, 31), (request, tokenId, other) => {
        const bytes = padProofData(encodeProofData(request), 8 * CHUNK_BYTES);
        const before = decodeUserDataBytes(bytes);
        expect(before.eras.map((e) => e.id)).not.toContain(3);
        bytes[21] = tokenId;
        const after = decodeUserDataBytes(bytes);
        expect(after.eras.map((e) => e.id)).toEqual([3]);
        expect(after.decodedData).toEqual(before.decodedData);
        expect(after.decodedRequests).toEqual([{ ...before.decodedData, tokenId }]);
        bytes[other] = 1;
        expect(outcome(() => decodeUserDataBytes(bytes))).toBe('USERDATA_ERA_UNKNOWN');
      }),
      { numRuns: 100 },
    );
  });
});
