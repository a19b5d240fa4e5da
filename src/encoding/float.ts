/**
 * Float handling of the proof data (service-spec.md precision rule, ledger-encoding.md §2): the
 * client-side truncation rule and the decoder's lossy float64 printing. The notarizer's
 * decimal → scaled u64 rule is in floatEncode.ts.
 */

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
