/**
 * A small exact model of the parts of Go's `math/big.Float` that the notarizer's float encoder
 * relies on (ledger-encoding.md §2): decimal parsing, multiplication and division rounded to a
 * 64-bit mantissa, conversion to float64 and uint64, and `Text('f', n)` including the shortest
 * form for negative n. Every value here is non-negative (the encoder refuses '-' beforehand).
 *
 * Each operation is computed exactly with bigint rationals and then rounded once, which is what
 * Go does (its division and multiplication are correctly rounded). The decimal formatter mirrors
 * Go's algorithm step by step, including its digit-by-digit shortest search, because the
 * encoder compares strings and a "better" formatter would accept or refuse different inputs.
 * Checked against Go's math/big on random inputs by test/differential/go-float.test.ts.
 */

import { U64_MAX } from './blocks.js';

/** A non-negative big.Float: zero, +Inf, or exactly mant × 2^exp (mant > 0). */
export type GoFloat = { readonly kind: 'zero' } | { readonly kind: 'inf' } | { readonly kind: 'finite'; readonly mant: bigint; readonly exp: number };

export type RoundingMode = 'awayFromZero' | 'nearestEven';

export const ZERO: GoFloat = Object.freeze({ kind: 'zero' });
export const INF: GoFloat = Object.freeze({ kind: 'inf' });

export function bitLength(v: bigint): number {
  return v === 0n ? 0 : v.toString(2).length;
}

/** num / den (both > 0) correctly rounded to `prec` significant bits. */
export function roundRational(num: bigint, den: bigint, prec: number, mode: RoundingMode): GoFloat {
  if (num === 0n) return ZERO;
  let e = bitLength(num) - bitLength(den) - prec;
  for (;;) {
    const n = e >= 0 ? num : num << BigInt(-e);
    const d = e >= 0 ? den << BigInt(e) : den;
    const q = n / d;
    if (q >= 1n << BigInt(prec)) {
      e += 1;
      continue;
    }
    if (q < 1n << BigInt(prec - 1)) {
      e -= 1;
      continue;
    }
    const rem = n - q * d;
    let up = false;
    if (rem !== 0n) up = mode === 'awayFromZero' ? true : 2n * rem > d || (2n * rem === d && (q & 1n) === 1n);
    let mant = up ? q + 1n : q;
    let exp = e;
    if (mant === 1n << BigInt(prec)) {
      mant >>= 1n;
      exp += 1;
    }
    return { kind: 'finite', mant, exp };
  }
}

/** The exact value of a finite float as num / den. */
function asRational(x: { mant: bigint; exp: number }): { num: bigint; den: bigint } {
  return x.exp >= 0 ? { num: x.mant << BigInt(x.exp), den: 1n } : { num: x.mant, den: 1n << BigInt(-x.exp) };
}

/** x × m rounded to `prec` bits (m a positive integer). */
export function mulUint(x: GoFloat, m: bigint, prec: number, mode: RoundingMode): GoFloat {
  if (x.kind !== 'finite') return x;
  const { num, den } = asRational(x);
  return roundRational(num * m, den, prec, mode);
}

/** x ÷ m rounded to `prec` bits (m a positive integer). */
export function quoUint(x: GoFloat, m: bigint, prec: number, mode: RoundingMode): GoFloat {
  if (x.kind !== 'finite') return x;
  const { num, den } = asRational(x);
  return roundRational(num, den * m, prec, mode);
}

/** Go's Float.Uint64(): truncation toward zero, saturated at 2^64 - 1 (+Inf too). */
export function toUint64(x: GoFloat): bigint {
  if (x.kind === 'zero') return 0n;
  if (x.kind === 'inf') return U64_MAX;
  const v = x.exp >= 0 ? x.mant << BigInt(x.exp) : x.mant >> BigInt(-x.exp);
  return v > U64_MAX ? U64_MAX : v;
}

/**
 * Whether Go's Float.Float64() of x (nearest float64, ties to even) is a whole number
 * (`f == math.Floor(f)`; true for +Inf). Valid for the normal float64 range, which is all the
 * encoder can produce (10^-12 ≤ x < 10^268).
 */
export function float64IsWhole(x: GoFloat): boolean {
  if (x.kind !== 'finite') return true;
  const { num, den } = asRational(x);
  const f = roundRational(num, den, 53, 'nearestEven');
  if (f.kind !== 'finite' || f.exp >= 0) return true;
  return (f.mant & ((1n << BigInt(-f.exp)) - 1n)) === 0n;
}

/** Go's multiprecision decimal: value = 0.mant × 10^exp, mant without trailing zeros. */
interface Decimal {
  mant: string;
  exp: number;
}

/** Exact decimal of m × 2^shift (m ≥ 0). */
function decimalOf(m: bigint, shift: number): Decimal {
  if (m === 0n) return { mant: '', exp: 0 };
  let digits: string;
  let exp: number;
  if (shift >= 0) {
    digits = (m << BigInt(shift)).toString();
    exp = digits.length;
  } else {
    // m / 2^k = m·5^k / 10^k
    const k = -shift;
    digits = (m * 5n ** BigInt(k)).toString();
    exp = digits.length - k;
  }
  let n = digits.length;
  while (n > 0 && digits[n - 1] === '0') n--;
  return { mant: digits.slice(0, n), exp };
}

function digitAt(d: Decimal, i: number): string {
  return i >= 0 && i < d.mant.length ? d.mant[i]! : '0';
}

function trimDecimal(d: Decimal): void {
  let i = d.mant.length;
  while (i > 0 && d.mant[i - 1] === '0') i--;
  d.mant = d.mant.slice(0, i);
  if (i === 0) d.exp = 0;
}

function roundDown(d: Decimal, n: number): void {
  if (n < 0 || n >= d.mant.length) return;
  d.mant = d.mant.slice(0, n);
  trimDecimal(d);
}

function roundUp(d: Decimal, n: number): void {
  if (n < 0 || n >= d.mant.length) return;
  while (n > 0 && d.mant[n - 1]! >= '9') n--;
  if (n === 0) {
    // all digits up to n were 9s: the value becomes 1 × 10^(exp+1)
    d.mant = '1';
    d.exp += 1;
    return;
  }
  d.mant = d.mant.slice(0, n - 1) + String.fromCharCode(d.mant.charCodeAt(n - 1) + 1);
}

/** Go's decimal rounding to n digits: half to even on the exact digits (a lone '5' at n = 0 goes down). */
function roundDecimal(d: Decimal, n: number): void {
  if (n < 0 || n >= d.mant.length) return;
  const c = d.mant[n]!;
  const up = c === '5' && n + 1 === d.mant.length ? n > 0 && (d.mant.charCodeAt(n - 1) - 48) % 2 === 1 : c >= '5';
  if (up) roundUp(d, n);
  else roundDown(d, n);
}

/**
 * Go's shortest decimal that still reads back as x at x's 64-bit precision, found digit by digit
 * between x - ½ulp and x + ½ulp (with Go's own handling of the bounds).
 */
function roundShortest(d: Decimal, x: { mant: bigint; exp: number }, prec: number): void {
  if (d.mant.length === 0) return;
  // normalise to prec bits, then one more bit so that the lsb is half an ulp
  const bits = bitLength(x.mant);
  const norm = bits <= prec ? x.mant << BigInt(prec - bits) : x.mant >> BigInt(bits - prec);
  const exp = x.exp + (bits - prec);
  const mant = norm << 1n;
  const lower = decimalOf(mant - 1n, exp - 1);
  const upper = decimalOf(mant + 1n, exp - 1);
  const inclusive = (mant & 2n) === 0n;
  for (let i = 0; i < d.mant.length; i++) {
    const m = d.mant[i]!;
    const l = digitAt(lower, i);
    const u = digitAt(upper, i);
    const okDown = l !== m || (inclusive && i + 1 === lower.mant.length);
    const okUp = m !== u && (inclusive || m.charCodeAt(0) + 1 < u.charCodeAt(0) || i + 1 < upper.mant.length);
    if (okDown && okUp) return roundDecimal(d, i + 1);
    if (okDown) return roundDown(d, i + 1);
    if (okUp) return roundUp(d, i + 1);
  }
}

/** `%f` layout of a decimal with `prec` fractional digits (Go's fmtF). */
function layoutF(d: Decimal, prec: number): string {
  let out = '';
  if (d.exp > 0) {
    const m = Math.min(d.mant.length, d.exp);
    out += d.mant.slice(0, m) + '0'.repeat(d.exp - m);
  } else {
    out += '0';
  }
  if (prec > 0) {
    out += '.';
    for (let i = 0; i < prec; i++) out += digitAt(d, d.exp + i);
  }
  return out;
}

/**
 * Go's `x.Text('f', prec)` for a non-negative float of precision `floatPrec` bits: exact decimal
 * rounded to `prec` fractional digits (half to even), or for prec < 0 the shortest digits that
 * identify x. +Inf prints as "+Inf".
 */
export function textF(x: GoFloat, prec: number, floatPrec = 64): string {
  if (x.kind === 'inf') return '+Inf';
  const d: Decimal = x.kind === 'finite' ? decimalOf(x.mant, x.exp) : { mant: '', exp: 0 };
  if (prec < 0) {
    if (x.kind === 'finite') roundShortest(d, x, floatPrec);
    prec = Math.max(d.mant.length - d.exp, 0);
  } else {
    roundDecimal(d, d.exp + prec);
  }
  return layoutF(d, prec);
}
