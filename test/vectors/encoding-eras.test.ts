/**
 * The era seam (src/encoding/eras) on every real vector: detection, per-request decoding, token
 * ids, the oracle's request hashes, and re-encoding of the notarizer responses byte for byte.
 */
import { describe, expect, it } from 'vitest';
import {
  ERAS, USER_DATA_CHUNK_COUNTS, decodeUserDataBytes, detectEras, encodingCandidates, parseUserData, requestHashes,
} from '../../src/encoding/eras/index.js';
import { decodeProofData } from '../../src/encoding/decode.js';
import { CHUNK_BYTES } from '../../src/aleo/struct.js';
import { responseRequests } from '../../src/verify/attestationResponse.js';
import { isVerifierError } from '../../src/errors.js';
import { multiToken, realResponses, realUserDataTexts } from '../support/era-vectors.js';
import { readVectorJson } from '../support/paths.js';

const u128 = (s: string): string => s.replace(/u128$/, '');
const codeOf = (f: () => unknown): string => {
  try {
    f();
  } catch (e) {
    if (isVerifierError(e)) return e.code;
    throw e;
  }
  return 'no error';
};
const sameBytes = (a: Uint8Array, b: Uint8Array) => Buffer.from(a).equals(Buffer.from(b));

describe('the era registry', () => {
  it('knows eras 1–4 with 8 or 10 chunks; eras of one chunk count share the request layout', () => {
    expect(ERAS.map((e) => [e.id, e.chunks, e.requestPerChunk])).toEqual([[1, 8, false], [2, 8, false], [3, 8, false], [4, 10, true]]);
    expect(USER_DATA_CHUNK_COUNTS).toEqual([8, 10]);
    for (const n of USER_DATA_CHUNK_COUNTS) expect(new Set(ERAS.filter((e) => e.chunks === n).map((e) => e.requestPerChunk)).size).toBe(1);
  });
});

describe('era detection on every real vector', () => {
  for (const v of [...realResponses(), ...realUserDataTexts()]) {
    it(`${v.name}: eras ${v.eras.join(', ')}`, () => {
      const bytes = parseUserData(v.userData);
      expect(detectEras(bytes).eras.map((e) => e.id)).toEqual(v.eras);
      const d = decodeUserDataBytes(bytes);
      // the first request is what the seed's decoder made of the whole data (8 chunks) or of c0
      expect(d.decodedData).toEqual(decodeProofData(v.eras[0] === 4 ? bytes.subarray(0, CHUNK_BYTES) : bytes));
    });
  }

  it('every 8-chunk response decodes to one request with its attested data and timestamp', () => {
    for (const v of realResponses().filter((r) => !r.eras.includes(4))) {
      const d = decodeUserDataBytes(parseUserData(v.userData));
      expect(d.decodedRequests).toHaveLength(1);
      expect(d.decodedRequests[0]).toMatchObject({ timestamp: v.response.timestamp, url: v.response.attestationRequest.url });
      expect(d.decodedRequests[0]!.requestHash).toBeUndefined();
    }
  });

  it('every Go-encoded request of the encoding vectors is era-1 data and decodes as the reference decoder did', () => {
    const cases = readVectorJson<any[]>('aleo/encoding/prepare-proof-data-vectors.json').filter((c) => c.preparedHex && c.decodedJson && c.preparedLen <= 8 * CHUNK_BYTES);
    expect(cases.length).toBeGreaterThan(20);
    for (const c of cases) {
      const bytes = new Uint8Array(8 * CHUNK_BYTES);
      bytes.set(Buffer.from(c.preparedHex, 'hex'));
      const d = decodeUserDataBytes(bytes);
      expect(d.eras.map((e) => e.id)[0], c.name).toBe(1);
      expect(JSON.stringify(d.decodedData), c.name).toBe(c.decodedJson);
    }
  });

  it('first-generation price feeds carry their token id in byte 0 (btc 12, eth 11, aleo 8) only for price_feed URLs', () => {
    const enc = readVectorJson<any>('aleo/encoding/prepare-proof-data-vectors.json');
    const cases = (Array.isArray(enc) ? enc : enc.cases) as any[];
    const feeds = cases.filter((c) => c.preparedHex && String(c.response.attestationRequest.url).startsWith('price_feed: '));
    expect(feeds.length).toBeGreaterThan(0);
    for (const c of feeds) {
      const bytes = new Uint8Array(8 * CHUNK_BYTES);
      bytes.set(Buffer.from(c.preparedHex, 'hex'));
      const d = decodeUserDataBytes(bytes);
      expect(d.eras.map((e) => e.id)).toContain(1);
      expect(d.decodedRequests[0]!.tokenId).toBe({ 'price_feed: btc': 12, 'price_feed: eth': 11, 'price_feed: aleo': 8 }[d.decodedData.url as string]);
    }
    for (const v of realResponses().filter((r) => !r.eras.includes(4))) {
      expect(decodeUserDataBytes(parseUserData(v.userData)).decodedRequests[0]!.tokenId).toBeUndefined();
    }
  });
});

describe('the multi-token response (era 4, 10 chunks)', () => {
  const r = multiToken();
  const bytes = parseUserData(r.oracleData.userData);

  it('decodes to three requests: ALEO, USDC, USDT with token ids 8, 10, 9 at 1768393737', () => {
    expect(bytes.length).toBe(10 * CHUNK_BYTES);
    const d = decodeUserDataBytes(bytes);
    expect(d.decodedRequests.map((q) => [q.url, q.attestationData, q.tokenId, q.timestamp, q.selector, q.encodingOptions])).toEqual([
      ['price_feed: aleo', '0.124466', 8, 1768393737, 'weightedAvgPrice', { value: 'float', precision: 6 }],
      ['price_feed: usdc', '0.999598', 10, 1768393737, 'weightedAvgPrice', { value: 'float', precision: 6 }],
      ['price_feed: usdt', '0.999403', 9, 1768393737, 'weightedAvgPrice', { value: 'float', precision: 6 }],
    ]);
    const { tokenId: _t, requestHash: _h, timestampedRequestHash: _th, ...first } = d.decodedRequests[0]!;
    expect(d.decodedData).toEqual(first);
  });

  it('recomputes the three requestHash values of the response exactly', () => {
    const d = decodeUserDataBytes(bytes);
    expect(d.decodedRequests.map((q) => q.requestHash)).toEqual(r.attestationResults.map((a: any) => u128(a.requestHash)));
    for (const q of d.decodedRequests) expect(q.timestampedRequestHash).toMatch(/^[1-9]\d{0,38}$/);
  });

  it('re-encoding the attestationResults gives exactly its userData (and only as era 4)', () => {
    const requests = responseRequests(r);
    if (typeof requests === 'string') throw new Error(requests);
    expect(requests).toHaveLength(3);
    const [only, ...rest] = encodingCandidates(requests, detectEras(bytes).eras);
    expect(rest).toHaveLength(0);
    expect(sameBytes(only!, bytes)).toBe(true);
    expect(encodingCandidates(requests, ERAS.filter((e) => e.chunks === 8))).toHaveLength(0);
  });
});

describe('request hashes of the one-request eras (whole userData with c0.f2, c0.f3 zeroed)', () => {
  for (const v of realResponses().filter((x) => typeof x.response.oracleData.requestHash === 'string')) {
    it(`${v.name}: requestHash and timestampedRequestHash recompute`, () => {
      const h = requestHashes(parseUserData(v.userData));
      expect(h.requestHash.toString()).toBe(u128(v.response.oracleData.requestHash));
      expect(h.timestampedRequestHash.toString()).toBe(u128(v.response.oracleData.timestampedRequestHash));
    });
  }
});

describe('re-encoding every single-request response reproduces its userData', () => {
  for (const v of realResponses().filter((x) => !x.eras.includes(4))) {
    it(v.name, () => {
      const requests = responseRequests(v.response);
      if (typeof requests === 'string') throw new Error(requests);
      const bytes = parseUserData(v.userData);
      expect(encodingCandidates(requests, detectEras(bytes).eras).some((c) => sameBytes(c, bytes))).toBe(true);
    });
  }
});

describe('a 10-chunk request longer than its chunk (cut to 512 bytes by the notarizer)', () => {
  const weather = realResponses().find((v) => v.name.startsWith('Gramine weather'))!.response;
  const aleo = multiToken().attestationResults[0];

  it('decodes without the cut optional fields, marked truncated; the other requests are whole', () => {
    const requests = responseRequests({ attestationResults: [weather, aleo] });
    if (typeof requests === 'string') throw new Error(requests);
    const [bytes] = encodingCandidates(requests, ERAS.filter((e) => e.id === 4));
    const d = decodeUserDataBytes(bytes!);
    expect(d.decodedRequests).toHaveLength(2);
    expect(d.decodedRequests[0]).toMatchObject({ url: weather.attestationRequest.url, selector: weather.attestationRequest.selector, attestationData: '9.90000', timestamp: 1754278324, truncated: true });
    expect(d.decodedRequests[0]!.requestHeaders).toEqual(weather.attestationRequest.requestHeaders); // they fit, the optional fields do not
    expect(d.decodedData.truncated).toBe(true);
    expect(d.decodedRequests[1]).toMatchObject({ url: 'price_feed: aleo', attestationData: '0.124466', tokenId: 8 });
    expect(d.decodedRequests[1]!.truncated).toBeUndefined();
    // the same chunk is refused by the whole-message decoder, and a cut inside the core sections is refused
    expect(codeOf(() => decodeProofData(bytes!.subarray(0, CHUNK_BYTES)))).toBe('PROOF_DATA_SECTION_OVERRUN');
    const longUrl = bytes!.slice();
    longUrl[10] = 0xf0; // url length 496: the url section runs past the chunk
    longUrl[11] = 0x01;
    expect(codeOf(() => decodeUserDataBytes(longUrl))).toBe('PROOF_DATA_SECTION_OVERRUN');
  });
});

describe('data that fits no era is refused with a code', () => {
  const weather = parseUserData(realResponses().find((v) => v.name.startsWith('Gramine weather'))!.userData);
  const multi = parseUserData(multiToken().oracleData.userData);

  it('byte 21 on 8-chunk data makes it era 3 with that token id; another reserved byte fits no era', () => {
    const b = weather.slice();
    b[21] = 12;
    const d = decodeUserDataBytes(b);
    expect(d.eras.map((e) => e.id)).toEqual([3]);
    expect(d.decodedRequests[0]).toMatchObject({ tokenId: 12, attestationData: '9.90000' });
    for (const i of [20, 22, 31]) {
      const x = weather.slice();
      x[i] = 1;
      expect(codeOf(() => detectEras(x))).toBe('USERDATA_ERA_UNKNOWN');
    }
  });

  it('the Go decoder vector with non-zero reserved bytes still decodes (codec) but fits no era', () => {
    const v = readVectorJson<any[]>('aleo/encoding/decode-proof-data-vectors.json').find((c) => c.name.startsWith('reserved header bytes'));
    const buf = new Uint8Array(8 * CHUNK_BYTES);
    buf.set(Buffer.from(v.hex, 'hex'));
    expect(() => decodeProofData(buf)).not.toThrow();
    expect(codeOf(() => decodeUserDataBytes(buf))).toBe('USERDATA_ERA_UNKNOWN');
  });

  it('10 chunks: c0 empty, a chunk after an empty one, a reserved byte in any chunk', () => {
    const noFirst = multi.slice();
    noFirst.fill(0, 0, CHUNK_BYTES);
    expect(codeOf(() => detectEras(noFirst))).toBe('USERDATA_NO_REQUEST');
    const gap = multi.slice();
    gap.set(multi.subarray(0, CHUNK_BYTES), 5 * CHUNK_BYTES);
    expect(codeOf(() => detectEras(gap))).toBe('USERDATA_CHUNK_AFTER_EMPTY');
    const reserved = multi.slice();
    reserved[2 * CHUNK_BYTES + 25] = 1;
    expect(codeOf(() => detectEras(reserved))).toBe('USERDATA_ERA_UNKNOWN');
  });

  it('other sizes: 9 chunks of bytes fit no era; struct text of 9 or 11 chunks is refused by the parser', () => {
    expect(codeOf(() => detectEras(new Uint8Array(9 * CHUNK_BYTES)))).toBe('USERDATA_ERA_UNKNOWN');
    expect(codeOf(() => detectEras(new Uint8Array(8 * CHUNK_BYTES)))).toBe('USERDATA_NO_REQUEST');
    const text = (n: number) => `{ ${Array.from({ length: n }, (_, c) => `c${c}: { ${Array.from({ length: 32 }, (_, f) => `f${f}: 0u128`).join(', ')} }`).join(', ')} }`;
    expect(codeOf(() => parseUserData(text(9)))).toBe('STRUCT_CHUNK_COUNT');
    expect(codeOf(() => parseUserData(text(11)))).toBe('STRUCT_CHUNK_COUNT');
    expect(codeOf(() => parseUserData(text(7)))).toBe('STRUCT_CHUNK_COUNT');
    expect(parseUserData(text(10)).length).toBe(5120);
    expect(parseUserData(text(8)).length).toBe(4096);
  });

  it('a decoding error in a later chunk names the chunk', () => {
    const b = multi.slice();
    b[CHUNK_BYTES + 8] = 0xff; // c1: method length 255 overruns the chunk
    try {
      decodeUserDataBytes(b);
      expect.unreachable();
    } catch (e) {
      expect((e as Error).message).toMatch(/^chunk c1: /);
    }
  });
});
