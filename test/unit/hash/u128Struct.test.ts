import { describe, expect, it } from 'vitest';
import { hashTimestampedRequest, hashU128Struct } from '../../../src/hash/index.js';
import { u128StructFieldElements } from '../../../src/hash/u128Struct.js';
import { codeOf } from '../../support/errors.js';
import fc from 'fast-check';
import { BitWriter, packFields, U128_LITERAL_BITS } from '../../../src/hash/bits.js';

/** The layout bit by bit (bits.ts's BitWriter and packFields): what the word-wise builder must equal. */
function bitByBit(members: readonly { name: string; value: bigint }[]): bigint[] {
  const w = new BitWriter();
  w.structHeader(members.length);
  for (const { name, value } of members) {
    w.memberHeader(name, U128_LITERAL_BITS);
    w.u128Literal(value);
  }
  return packFields(w);
}


describe('u128StructFieldElements', () => {
  it('lays out { request_hash, attestation_timestamp } in 3 field elements', () => {
    // 10 + (8+96+16+154) + (8+168+16+154) + 1 = 631 bits → 3 elements of ≤ 252 bits.
    const f = u128StructFieldElements([
      { name: 'request_hash', value: 1n },
      { name: 'attestation_timestamp', value: 2n },
    ]);
    expect(f).toHaveLength(3);
    expect((f[2] as bigint).toString(2)).toHaveLength(631 - 504);
  });

  it('equals the bit-by-bit layout for any names and values (the word-wise builder and its cached templates)', () => {
    const name = fc.stringMatching(/^[A-Za-z][A-Za-z0-9_]{0,30}$/);
    const value = fc.bigInt({ min: 0n, max: (1n << 128n) - 1n });
    const members = fc.uniqueArray(fc.record({ name, value }), { minLength: 1, maxLength: 6, selector: (m) => m.name });
    fc.assert(fc.property(members, (m) => {
      expect(u128StructFieldElements(m)).toEqual(bitByBit(m));
    }), { numRuns: 400 });
    // The oracle's struct, twice through its cached template, with extreme values.
    for (const [a, b] of [[0n, 0n], [(1n << 128n) - 1n, (1n << 128n) - 1n], [1n, (1n << 127n) + 5n]] as const) {
      const m = [{ name: 'request_hash', value: a }, { name: 'attestation_timestamp', value: b }];
      expect(u128StructFieldElements(m)).toEqual(bitByBit(m));
    }
  });

  it('is order-sensitive and value-sensitive', () => {
    expect(hashTimestampedRequest(1n, 2n)).not.toBe(hashTimestampedRequest(2n, 1n));
    expect(hashU128Struct([{ name: 'a', value: 1n }])).not.toBe(hashU128Struct([{ name: 'b', value: 1n }]));
  });

  it.each([
    ['no members', [], 'HASH_STRUCT_MEMBER'],
    ['leading digit', [{ name: '1a', value: 0n }], 'HASH_STRUCT_MEMBER'],
    ['dash', [{ name: 'a-b', value: 0n }], 'HASH_STRUCT_MEMBER'],
    ['32-byte name', [{ name: 'x'.repeat(32), value: 0n }], 'HASH_STRUCT_MEMBER'],
    ['duplicate', [{ name: 'a', value: 0n }, { name: 'a', value: 1n }], 'HASH_STRUCT_MEMBER'],
    ['negative', [{ name: 'a', value: -1n }], 'HASH_U128_OUT_OF_RANGE'],
    ['2^128', [{ name: 'a', value: 1n << 128n }], 'HASH_U128_OUT_OF_RANGE'],
  ] as const)('rejects %s with %s', (_label, members, code) => {
    expect(codeOf(() => u128StructFieldElements(members))).toBe(code);
  });

  it('accepts a 31-byte identifier and the maximal u128', () => {
    expect(u128StructFieldElements([{ name: 'x'.repeat(31), value: (1n << 128n) - 1n }]).length).toBeGreaterThan(0);
  });
});
