/**
 * The notarizer's float rule on named cases (each outcome also holds for Go's math/big, see
 * test/differential/go-float.test.ts, and for the vectors in test/vectors).
 */
import { describe, expect, it } from 'vitest';
import { encodeFloatValue } from '../../../src/encoding/floatEncode.js';
import { INF, ZERO, textF } from '../../../src/encoding/goFloat.js';
import { prepareAttestationData } from '../../../src/encoding/index.js';
import { codeOf } from '../../support/errors.js';

const padded = (s: string, p: number): string => prepareAttestationData(s, { value: 'float', precision: p }, 'api.example.com');
const enc = (s: string, p: number): bigint | string => {
  let v: bigint | undefined;
  const code = codeOf(() => (v = encodeFloatValue(padded(s, p), p)));
  return v ?? code;
};

describe('encodeFloatValue (the notarizer float rule)', () => {
  it('scales exact values', () => {
    expect(enc('104941.2', 1)).toBe(1049412n);
    expect(enc('104941.2', 2)).toBe(10494120n);
    expect(enc('0', 12)).toBe(0n);
    expect(enc('0.5', 1)).toBe(5n);
  });
  it('refuses a fraction longer than the precision before parsing', () => {
    expect(enc('104941.2', 0)).toBe('ENCODE_TOO_PRECISE');
    expect(enc('1.x5', 1)).toBe('ENCODE_TOO_PRECISE');
  });
  it('refuses what does not print back to the same string (information loss)', () => {
    expect(enc('00012.5', 1)).toBe('ENCODE_FLOAT_LOSSY'); // leading zeros
    expect(enc('+1.5', 1)).toBe('ENCODE_FLOAT_LOSSY'); // sign
    expect(enc('.5', 1)).toBe('ENCODE_FLOAT_LOSSY'); // no integer digit
    expect(enc('inf', 0)).toBe('ENCODE_FLOAT_LOSSY'); // parses as +Inf, prints "+Inf"
    expect(enc('1e5', 0)).toBe('ENCODE_FLOAT_LOSSY'); // exponent parses, never prints back
    expect(enc('18446744073709551615', 1)).toBe('ENCODE_FLOAT_LOSSY');
    expect(enc('9007199254740993', 5)).toBe('ENCODE_FLOAT_LOSSY');
  });
  it('accepts what the 64-bit round trip keeps, saturating at 2^64 - 1', () => {
    expect(enc('18446744073709551615', 0)).toBe((1n << 64n) - 1n);
    expect(enc('18446744073709551616', 12)).toBe((1n << 64n) - 1n);
    expect(enc('9007199254740993', 2)).toBe(900719925474099300n);
    expect(enc('123456789.123456789', 12)).toBe((1n << 64n) - 1n); // 1.2e20 × … > 2^64
  });
  it('names the notations it refuses', () => {
    expect(enc('1p-3', 3)).toBe('ENCODE_DECIMALLESS_SCIENTIFIC');
    expect(enc('1e+3', 3)).toBe('ENCODE_SCIENTIFIC_NOTATION');
    expect(enc('1E-3', 3)).toBe('ENCODE_SCIENTIFIC_NOTATION');
    expect(enc('-1.5', 3)).toBe('ENCODE_NEGATIVE_FLOAT');
    expect(enc('1.2.3', 3)).toBe('ENCODE_FLOAT_PARSE');
    expect(enc('nan', 3)).toBe('ENCODE_FLOAT_PARSE');
    expect(enc('1e99999999999999999999', 0)).toBe('ENCODE_FLOAT_PARSE'); // exponent beyond int64
    expect(codeOf(() => encodeFloatValue('1.', 2))).toBe('ENCODE_FLOAT_PARSE'); // a raw trailing '.'
    expect(enc('1.', 2)).toBe(100n); // padded with zeros it is fine
    expect(codeOf(() => encodeFloatValue('1.5', 13))).toBe('ENCODE_PRECISION_TOO_BIG');
  });
});

describe("textF (big.Float Text('f', n))", () => {
  it('rounds the exact binary value half to even', () => {
    expect(textF({ kind: 'finite', mant: 3n, exp: -1 }, 0)).toBe('2'); // 1.5
    expect(textF({ kind: 'finite', mant: 5n, exp: -1 }, 0)).toBe('2'); // 2.5
    expect(textF({ kind: 'finite', mant: 1n, exp: -1 }, 0)).toBe('0'); // 0.5
    expect(textF({ kind: 'finite', mant: 1n, exp: -10 }, 2)).toBe('0.00');
  });
  it('prints the shortest digits for a negative precision', () => {
    expect(textF({ kind: 'finite', mant: 3n, exp: -1 }, -1)).toBe('1.5');
    expect(textF(ZERO, -1)).toBe('0');
    expect(textF(ZERO, 3)).toBe('0.000');
    expect(textF(INF, 2)).toBe('+Inf');
  });
});
