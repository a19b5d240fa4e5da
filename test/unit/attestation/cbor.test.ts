import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeCbor, type CborNode } from '../../../src/attestation/cbor.js';
import { parseTypeB } from '../../../src/attestation/typeB/index.js';
import { encodeCbor, indefinite, type CborInput } from '../../support/cbor-encode.js';
import { codeOf } from '../../support/errors.js';

const h = (s: string): Uint8Array => new Uint8Array(Buffer.from(s.replace(/\s/g, ''), 'hex'));
const oracle = new Uint8Array(
  Buffer.from(readFileSync(path.resolve(process.cwd(), '../shared/vectors/nitro/oracle-nitro-report.hex'), 'utf8').trim(), 'hex'),
);

/** Converts a node back to plain JS values (maps as arrays of pairs) for comparisons. */
function plain(n: CborNode): unknown {
  switch (n.kind) {
    case 'array':
      return n.items.map(plain);
    case 'map':
      return n.entries.map(([k, v]) => [plain(k), plain(v)]);
    case 'tag':
      return { tag: n.tag, item: plain(n.item) };
    case 'bytes':
      return Buffer.from(n.value).toString('hex');
    default:
      return n.value;
  }
}

describe('strict CBOR decoder', () => {
  it('decodes integers, with bigint beyond 2^53', () => {
    expect(plain(decodeCbor(h('00')))).toBe(0);
    expect(plain(decodeCbor(h('17')))).toBe(23);
    expect(plain(decodeCbor(h('1818')))).toBe(24);
    expect(plain(decodeCbor(h('1b001fffffffffffff')))).toBe(2 ** 53 - 1);
    expect(plain(decodeCbor(h('1b0020000000000000')))).toBe(2n ** 53n);
    expect(plain(decodeCbor(h('1bffffffffffffffff')))).toBe(2n ** 64n - 1n);
    expect(plain(decodeCbor(h('3822')))).toBe(-35);
    expect(plain(decodeCbor(h('3bffffffffffffffff')))).toBe(-(2n ** 64n));
    expect(plain(decodeCbor(h('f4')))).toBe(false);
    expect(plain(decodeCbor(h('f6')))).toBe(null);
    expect(plain(decodeCbor(h('f93c00')))).toBe(1);
    expect(plain(decodeCbor(h('fb3ff8000000000000')))).toBe(1.5);
  });

  it('keeps exact byte ranges and aliases definite strings', () => {
    const buf = h('83 01 43 010203 9f 02 ff');
    const n = decodeCbor(buf);
    if (n.kind !== 'array') throw new Error('not an array');
    const [a, b, c] = n.items as [CborNode, CborNode, CborNode];
    expect([n.start, n.end, a.start, a.end, b.start, b.end, c.start, c.end]).toEqual([0, 9, 1, 2, 2, 6, 6, 9]);
    if (b.kind !== 'bytes') throw new Error('not bytes');
    expect(b.value.buffer).toBe(buf.buffer);
  });

  it('decodes indefinite strings, arrays and maps', () => {
    expect(plain(decodeCbor(h('5f 42 0102 41 03 ff')))).toBe('010203');
    expect(plain(decodeCbor(h('7f 62 6869 61 21 ff')))).toBe('hi!');
    expect(plain(decodeCbor(h('bf 61 61 01 61 62 9f ff ff')))).toEqual([['a', 1], ['b', []]]);
  });

  it('refuses malformed items', () => {
    for (const bad of ['1c', '3d', '5e', 'ff', '1f', '3f', 'df', '5f 61 61 ff', '5f 5f 40 ff ff', '62 c328', '9f 01', 'a1 01', 'a2 0101 0102', 'a2 6161 01 6161 02', 'f8 10']) {
      const code = codeOf(() => decodeCbor(h(bad)));
      expect(['CBOR_MALFORMED', 'CBOR_TRUNCATED'], bad).toContain(code);
    }
    expect(codeOf(() => decodeCbor(h('a2 0101 0102')))).toBe('CBOR_MALFORMED');
    expect(codeOf(() => decodeCbor(h('62 c328')))).toBe('CBOR_MALFORMED');
  });

  it('refuses trailing bytes and unknown tags', () => {
    expect(codeOf(() => decodeCbor(h('0000')))).toBe('CBOR_TRAILING_BYTES');
    expect(codeOf(() => decodeCbor(h('d2 80')))).toBe('CBOR_TAG_NOT_ALLOWED');
    expect(codeOf(() => decodeCbor(h('c1 1a 5f000000')))).toBe('CBOR_TAG_NOT_ALLOWED');
    expect(plain(decodeCbor(h('d2 80'), { allowedTags: [18] }))).toEqual({ tag: 18, item: [] });
  });

  it('hostile lengths fail at once without allocating', () => {
    const before = process.memoryUsage().arrayBuffers;
    for (const bad of ['5a ffffffff', '5b ffffffffffffffff', '7a ffffffff 00', '9a ffffffff', '9b 0000000100000000', 'ba ffffffff', 'bb ffffffffffffffff', '5b 0020000000000000', '84 44 a1013822 a0 59 ffff']) {
      expect(codeOf(() => decodeCbor(h(bad))), bad).toBe('CBOR_TRUNCATED');
    }
    // a map declaring 3 entries needs at least 6 bytes
    expect(codeOf(() => decodeCbor(h('a3 0000 0000')))).toBe('CBOR_TRUNCATED');
    // Ten inputs declaring up to 2^64 bytes or items. CBOR_TRUNCATED (not CBOR_LIMIT) shows that
    // the declared size was compared with the bytes left before any item was walked, and no
    // buffer of the declared size was allocated (measured in bytes, not in time).
    expect(process.memoryUsage().arrayBuffers - before).toBeLessThan(1 << 20);
  });

  it('bounds nesting depth and item count', () => {
    expect(codeOf(() => decodeCbor(new Uint8Array(100_000).fill(0x81)))).toBe('CBOR_LIMIT');
    expect(codeOf(() => decodeCbor(new Uint8Array(100_000).fill(0x9f)))).toBe('CBOR_LIMIT');
    expect(codeOf(() => decodeCbor(new Uint8Array(100_000).fill(0xbf)))).toBe('CBOR_LIMIT');
    const deep = Buffer.concat([new Uint8Array(16).fill(0x81), h('00')]);
    expect(codeOf(() => decodeCbor(deep))).toBe('OK');
    expect(codeOf(() => decodeCbor(Buffer.concat([h('81'), deep])))).toBe('CBOR_LIMIT');
    expect(codeOf(() => decodeCbor(new Uint8Array(100_000).fill(0x80), { maxDepth: 1 }))).toBe('CBOR_TRAILING_BYTES');
    const wide = Buffer.concat([h('9a 00004e21'), new Uint8Array(20_001)]);
    expect(codeOf(() => decodeCbor(wide))).toBe('CBOR_LIMIT');
    expect(codeOf(() => decodeCbor(Buffer.concat([h('9f'), new Uint8Array(20_000), h('ff')])))).toBe('CBOR_LIMIT');
    expect(codeOf(() => decodeCbor(Buffer.concat([h('5f'), new Uint8Array(20_000).fill(0x40), h('ff')])))).toBe('CBOR_LIMIT');
  });

  it('truncation of oracle-nitro-report at every offset throws a VerifierError', () => {
    const payload = parseTypeB(oracle).payloadBytes;
    for (let i = 0; i < oracle.length; i++) {
      expect(codeOf(() => parseTypeB(oracle.subarray(0, i)))).toBe('CBOR_TRUNCATED');
    }
    for (let i = 0; i < payload.length; i++) {
      expect(codeOf(() => decodeCbor(payload.subarray(0, i)))).toBe('CBOR_TRUNCATED');
    }
  });

  it('random bytes and random mutations of the real document only ever throw VerifierError', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 64 }), (b) => {
        codeOf(() => decodeCbor(b));
      }),
      { numRuns: 3000 },
    );
    fc.assert(
      fc.property(fc.nat(oracle.length - 1), fc.integer({ min: 1, max: 255 }), (off, x) => {
        const b = oracle.slice();
        b[off]! ^= x;
        codeOf(() => parseTypeB(b));
      }),
      { numRuns: 2000 },
    );
  });

  it('round-trips values produced by the test encoder', () => {
    const leaf = fc.oneof(
      fc.integer({ min: -(2 ** 53) + 2, max: 2 ** 53 - 1 }),
      fc.bigInt({ min: 2n ** 53n, max: 2n ** 64n - 1n }),
      fc.string(),
      fc.uint8Array({ maxLength: 40 }),
      fc.boolean(),
      fc.constant(null),
    );
    const value = fc.letrec<{ v: CborInput }>((tie) => ({
      v: fc.oneof({ depthSize: 'small', maxDepth: 4 }, leaf, fc.array(tie('v'), { maxLength: 5 })),
    })).v;
    fc.assert(
      fc.property(value, fc.boolean(), (v, indef) => {
        const enc = encodeCbor(Array.isArray(v) && indef ? indefinite(v) : v);
        const toPlain = (x: CborInput): unknown =>
          x instanceof Uint8Array ? Buffer.from(x).toString('hex') : Array.isArray(x) ? x.map(toPlain) : x;
        expect(plain(decodeCbor(enc))).toEqual(toPlain(v));
      }),
      { numRuns: 500 },
    );
  });
});
