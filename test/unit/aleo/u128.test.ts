import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { MAX_U128, u128DecimalAt, u128FromLE, u128LEToDecimal, u128ToLE } from '../../../src/aleo/u128.js';
import { isVerifierError } from '../../../src/errors.js';

function code(f: () => unknown): string | undefined {
  try {
    f();
  } catch (e) {
    return isVerifierError(e) ? e.code : `non-VerifierError: ${String(e)}`;
  }
  return undefined;
}

/** Reference: per-byte BigInt, independent of the DataView code under test. */
function refFromLE(b: Uint8Array, off: number): bigint {
  let v = 0n;
  for (let i = 15; i >= 0; i--) v = (v << 8n) | BigInt(b[off + i] as number);
  return v;
}

const EDGES = [0n, 1n, 9n, 10n, 2n ** 32n - 1n, 2n ** 32n, 2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, 2n ** 64n - 1n, 2n ** 64n,
  10n ** 7n, 10n ** 14n, 10n ** 21n - 1n, 10n ** 38n, MAX_U128 - 1n, MAX_U128];

describe('u128', () => {
  it('MAX_U128 is 2^128 - 1', () => {
    expect(MAX_U128).toBe(340282366920938463463374607431768211455n);
  });

  it('LE round trip and decimal text agree with BigInt for edge values', () => {
    for (const v of EDGES) {
      const b = u128ToLE(v);
      expect(b.length).toBe(16);
      expect(refFromLE(b, 0)).toBe(v);
      expect(u128FromLE(b)).toBe(v);
      expect(u128LEToDecimal(b)).toBe(v.toString());
    }
    expect(Array.from(u128ToLE(0x0102n))).toEqual([2, 1, ...new Array<number>(14).fill(0)]);
  });

  it('random bytes at random offsets (subarray views too)', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 16, maxLength: 64 }), fc.nat(), fc.nat(3), (buf, o, sub) => {
        const base = buf.subarray(Math.min(sub, buf.length - 16));
        const off = o % (base.length - 15);
        const v = refFromLE(base, off);
        expect(u128FromLE(base, off)).toBe(v);
        expect(u128LEToDecimal(base, off)).toBe(v.toString());
        expect(u128DecimalAt(new DataView(base.buffer, base.byteOffset, base.length), off)).toBe(v.toString());
        const out = new Uint8Array(base.length);
        u128ToLE(v, out, off);
        expect(Array.from(out.subarray(off, off + 16))).toEqual(Array.from(base.subarray(off, off + 16)));
      }),
      { numRuns: 500 },
    );
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: MAX_U128 }), (v) => {
        expect(u128LEToDecimal(u128ToLE(v))).toBe(v.toString());
      }),
      { numRuns: 500 },
    );
  });

  it('rejects out-of-range values and out-of-bounds offsets', () => {
    expect(code(() => u128ToLE(MAX_U128 + 1n))).toBe('U128_OUT_OF_RANGE');
    expect(code(() => u128ToLE(-1n))).toBe('U128_OUT_OF_RANGE');
    expect(code(() => u128ToLE(1 as unknown as bigint))).toBe('U128_OUT_OF_RANGE');
    expect(code(() => u128ToLE(1n, new Uint8Array(20), 5))).toBe('U128_OUT_OF_BOUNDS');
    expect(code(() => u128FromLE(new Uint8Array(15)))).toBe('U128_OUT_OF_BOUNDS');
    expect(code(() => u128FromLE(new Uint8Array(32), -1))).toBe('U128_OUT_OF_BOUNDS');
    expect(code(() => u128FromLE(new Uint8Array(32), 1.5))).toBe('U128_OUT_OF_BOUNDS');
    expect(code(() => u128LEToDecimal(new Uint8Array(32), 17))).toBe('U128_OUT_OF_BOUNDS');
  });
});
