/**
 * Float handling of the proof data (service-spec.md precision rule, ledger-encoding.md §2):
 * the client-side truncation rule, the notarizer's decimal → scaled u64 conversion, and the
 * decoder's lossy float64 printing.
 */
import { U64_MAX } from './blocks.js';

/**
 * Cuts the fractional part of a decimal string to `precision` digits (never rounds); precision 0
 * drops the fraction and the point. A shorter fraction is kept as is.
 */
export function truncateFloatString(value: string, precision: number): string {
  if (!Number.isInteger(precision) || precision < 0) {
    throw new RangeError(`truncateFloatString: precision must be a non-negative integer, got ${precision}`);
  }
  const dot = value.indexOf('.');
  if (dot < 0) return value;
  if (precision === 0) return value.slice(0, dot);
  return value.slice(0, dot + 1 + precision);
}

/** Result of rounding a positive rational to a 64-bit binary mantissa. */
interface Binary64x {
  mant: bigint; // 2^63 <= mant < 2^64 (or 0)
  exp: number; // value = mant * 2^exp
  exact: boolean;
}

function bitLength(v: bigint): number {
  return v === 0n ? 0 : v.toString(2).length;
}

/** num/den (both > 0) rounded away from zero to a 64-bit mantissa. */
function roundUp64(num: bigint, den: bigint): Binary64x {
  if (num === 0n) return { mant: 0n, exp: 0, exact: true };
  // choose e so that num / (den * 2^e) lies in [2^63, 2^64)
  let e = bitLength(num) - bitLength(den) - 64;
  for (;;) {
    const n = e >= 0 ? num : num << BigInt(-e);
    const d = e >= 0 ? den << BigInt(e) : den;
    const q = n / d;
    if (q >= 1n << 64n) {
      e += 1;
      continue;
    }
    if (q < 1n << 63n) {
      e -= 1;
      continue;
    }
    const exact = q * d === n;
    let mant = exact ? q : q + 1n;
    let exp = e;
    if (mant === 1n << 64n) {
      mant = 1n << 63n;
      exp += 1;
    }
    return { mant, exp, exact };
  }
}

function floorOf(x: Binary64x): bigint {
  return x.exp >= 0 ? x.mant << BigInt(x.exp) : x.mant >> BigInt(-x.exp);
}

export interface ScaledFloat {
  /** floor(value × 10^precision) as the notarizer computes it, saturated at 2^64-1. */
  value: bigint;
  /** Whether the 64-bit intermediate results were exact (decimal value and scaled value). */
  exact: boolean;
}

/**
 * Decimal digits (integer part, fraction part; both plain ASCII digit strings) → u64 of
 * value × 10^precision, reproducing the reference: the decimal is rounded up to a 64-bit binary
 * mantissa, multiplied by 10^precision with the same rounding, truncated and saturated at 2^64-1.
 */
export function scaleDecimal(intDigits: string, fracDigits: string, precision: number): ScaledFloat {
  const m = BigInt((intDigits + fracDigits) || '0');
  if (m === 0n) return { value: 0n, exact: true };
  const x = roundUp64(m, 10n ** BigInt(fracDigits.length));
  const num = x.mant * 10n ** BigInt(precision);
  const y = x.exp >= 0 ? roundUp64(num << BigInt(x.exp), 1n) : roundUp64(num, 1n << BigInt(-x.exp));
  const f = floorOf(y);
  return { value: f > U64_MAX ? U64_MAX : f, exact: x.exact && y.exact };
}

const F64 = new DataView(new ArrayBuffer(8));

/** Exact binary decomposition of a finite non-negative double: x = mant × 2^exp. */
function decomposeDouble(x: number): { mant: bigint; exp: number } {
  F64.setFloat64(0, x);
  const hi = F64.getUint32(0);
  const lo = F64.getUint32(4);
  const biased = (hi >>> 20) & 0x7ff;
  const frac = (BigInt(hi & 0xfffff) << 32n) | BigInt(lo);
  if (biased === 0) return { mant: frac, exp: -1074 };
  return { mant: frac | (1n << 52n), exp: biased - 1075 };
}

/**
 * Prints a finite non-negative double with exactly `digits` fractional digits, correctly rounded
 * (ties to even) from its exact binary value — the behaviour of Go's strconv.FormatFloat(x, 'f', digits, 64).
 */
export function formatDoubleFixed(x: number, digits: number): string {
  const { mant, exp } = decomposeDouble(x);
  const scaled = mant * 10n ** BigInt(digits);
  let n: bigint;
  if (exp >= 0) {
    n = scaled << BigInt(exp);
  } else {
    const sh = BigInt(-exp);
    n = scaled >> sh;
    const rem = scaled - (n << sh);
    const half = 1n << (sh - 1n);
    if (rem > half || (rem === half && (n & 1n) === 1n)) n += 1n;
  }
  const s = n.toString();
  if (digits === 0) return s;
  const padded = s.padStart(digits + 1, '0');
  return `${padded.slice(0, padded.length - digits)}.${padded.slice(padded.length - digits)}`;
}

/** Significant digits the decoder keeps for values below 10^15 (the reference's behaviour). */
export const DECODE_SIGNIFICANT_DIGITS = 15;

/**
 * Decoder rule (reproduces the reference's lossy output on every vector): the exact decimal
 * u / 10^precision is, when below 10^15, rounded to 15 significant digits (ties to even); the
 * result is taken to the nearest float64 and printed with exactly `precision` fractional digits,
 * correctly rounded from the double's exact binary value.
 */
export function formatScaledFloat(u: bigint, precision: number): string {
  let digits = u.toString();
  const scale = 10n ** BigInt(precision);
  if (u < 10n ** 15n * scale && digits.length > DECODE_SIGNIFICANT_DIGITS) {
    const drop = digits.length - DECODE_SIGNIFICANT_DIGITS;
    const unit = 10n ** BigInt(drop);
    let q = u / unit;
    const r = u - q * unit;
    const half = unit / 2n;
    if (r > half || (r === half && (q & 1n) === 1n)) q += 1n;
    digits = (q * unit).toString();
  }
  const padded = digits.padStart(precision + 1, '0');
  const decimal = precision === 0 ? padded : `${padded.slice(0, padded.length - precision)}.${padded.slice(padded.length - precision)}`;
  return formatDoubleFixed(Number(decimal), precision);
}
