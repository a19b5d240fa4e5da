import { describe, expect, it } from 'vitest';
import { codesOf } from '../../../src/errorCodes.js';
import { FIELD_DATA_BITS, structChunkCount, structFieldCount, structFieldElements } from '../../../src/hash/structFields.js';
import { codeOf } from '../../support/errors.js';
import { pseudoRandomBytes } from '../../support/random.js';

describe('structFieldElements input validation', () => {
  it('rejects an empty message', () => {
    expect(codeOf(() => structFieldElements(new Uint8Array(0)))).toBe('HASH_INPUT_EMPTY');
  });

  it.each([1, 16, 511, 513, 4095, 4097])('rejects length %i (not a multiple of 512)', (n) => {
    expect(codeOf(() => structFieldElements(new Uint8Array(n)))).toBe('HASH_INPUT_LENGTH');
    expect(() => structFieldElements(new Uint8Array(n))).toThrow(`length ${n} is not a multiple of 512`);
  });

  it('rejects more chunks than the 8-bit member count allows', () => {
    expect(codeOf(() => structChunkCount(new Uint8Array(256 * 512)))).toBe('HASH_INPUT_TOO_LARGE');
    expect(structChunkCount(new Uint8Array(255 * 512))).toBe(255);
    expect(codeOf(() => structFieldCount(0))).toBe('HASH_INPUT_TOO_LARGE');
    expect(codeOf(() => structFieldCount(1.5))).toBe('HASH_INPUT_TOO_LARGE');
  });

  it('rejects non-Uint8Array input', () => {
    expect(codeOf(() => structFieldElements([0, 1] as unknown as Uint8Array))).toBe('HASH_INPUT_LENGTH');
  });

  it('declares only codes from the closed list', () => {
    expect(codesOf('hash')).toEqual(expect.arrayContaining(['HASH_INPUT_EMPTY', 'HASH_INPUT_LENGTH', 'HASH_INPUT_TOO_LARGE']));
  });
});

describe('structFieldElements layout properties', () => {
  it('gives 26 elements per chunk for c0–c9 (8 → 205, 10 → 256)', () => {
    expect([1, 2, 8, 10].map(structFieldCount)).toEqual([26, 52, 205, 256]);
  });

  it('yields elements below 2^252, the last one short and ending in the terminator bit', () => {
    const f = structFieldElements(pseudoRandomBytes(4096, 7));
    for (const x of f) expect(x >= 0n && x < 1n << BigInt(FIELD_DATA_BITS)).toBe(true);
    // 51483 bits: the last element holds 51483 − 204·252 = 75 bits, its top bit the terminator.
    expect((f[204] as bigint).toString(2)).toHaveLength(75);
  });

  it('honours byteOffset (subarray / Buffer views) and does not mutate the input', () => {
    const backing = pseudoRandomBytes(4096 + 48, 3);
    const view = backing.subarray(16, 16 + 4096);
    const before = Buffer.from(view).toString('hex');
    const copy = new Uint8Array(view);
    expect(structFieldElements(view)).toEqual(structFieldElements(copy));
    expect(structFieldElements(Buffer.from(copy))).toEqual(structFieldElements(copy));
    expect(Buffer.from(view).toString('hex')).toBe(before);
  });

  it('returns a fresh array each call (the cached template is not shared)', () => {
    const a = structFieldElements(new Uint8Array(512));
    a[0] = 42n;
    expect(structFieldElements(new Uint8Array(512))[0]).not.toBe(42n);
  });

  it('maps each message bit to exactly one field bit, distinct per message bit', () => {
    const zero = structFieldElements(new Uint8Array(1024));
    const seen = new Set<string>();
    for (let bit = 0; bit < 1024 * 8; bit += 37) {
      const m = new Uint8Array(1024);
      m[bit >> 3] = 1 << (bit & 7);
      const f = structFieldElements(m);
      const diffs = f.map((x, k) => [k, x ^ (zero[k] as bigint)] as const).filter(([, d]) => d !== 0n);
      expect(diffs).toHaveLength(1);
      const [k, d] = diffs[0] as readonly [number, bigint];
      expect(d & (d - 1n)).toBe(0n); // a single bit
      const key = `${k}:${d}`;
      expect(seen.has(key)).toBe(false);
      seen.add(key);
    }
  });
});
