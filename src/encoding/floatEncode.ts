/**
 * The notarizer's float rule (ledger-encoding.md §2): a decimal string becomes the u64
 * value × 10^precision, or one of the notarizer's refusals. The checks run in the notarizer's
 * order on its own terms (byte lengths, Go's lower-casing, math/big parsing and rounding, the
 * string round trip), so the same input gets the same bytes or the same refusal:
 *
 *  1. lower-case; a '.' as the last byte → parse failure
 *  2. with a '.': drop trailing '0's, then a trailing '.'; a longer fraction than `precision` → too precise
 *  3. "p-" → decimalless scientific; "e+", "e-", "p+" → scientific; any '-' → negative
 *  4. parse as a big.Float (64-bit mantissa, rounded away from zero) → failure to parse
 *  5. y = x × 10^precision (same rounding); z = y ÷ 10^precision
 *  6. z printed back (with the notarizer's length adjustment) must equal the string → else information loss
 *  7. float64(y) must be whole → else too precise
 *  8. the result is uint64(y): truncated, saturated at 2^64 - 1
 */
import { VerifierError } from '../errors.js';
import type { ProofDataEncodeCode } from './errors.js';
import { type GoFloat, INF, ZERO, bitLength, float64IsWhole, mulUint, quoUint, roundRational, textF, toUint64 } from './goFloat.js';

export const MAX_FLOAT_PRECISION = 12;
/** Longest value the encoder reads (a meta header length is a u16). */
export const MAX_FLOAT_INPUT_BYTES = 0xffff;

const INT32_MIN = -(2 ** 31);
const INT32_MAX = 2 ** 31 - 1;
const INT64_MAX = (1n << 63n) - 1n;

function fail(code: ProofDataEncodeCode, message: string): never {
  throw new VerifierError<ProofDataEncodeCode>(code, `attestation data: ${message}`);
}

/**
 * Go's strings.ToLower (simple per-code-point mapping), returned as a byte string: one JS char
 * per UTF-8 byte, so that indexes and lengths are byte counts as in the notarizer.
 */
function lowerBytes(value: string): string {
  let lowered = '';
  for (const ch of value) {
    const cp = ch.codePointAt(0)!;
    if (cp < 0x80) lowered += cp >= 65 && cp <= 90 ? String.fromCharCode(cp + 32) : ch;
    else if (cp === 0x130) lowered += 'i'; // U+0130's simple lower-case mapping (JS gives "i̇")
    else lowered += ch.toLowerCase();
  }
  return Buffer.from(lowered, 'utf8').toString('latin1');
}

/** Outcome of parsing with big.ParseFloat(s, 10, 64, AwayFromZero). */
type Parsed = { kind: 'error' } | { kind: 'exponent' } | { kind: 'value'; value: GoFloat };

function isDigit(c: string | undefined): boolean {
  return c !== undefined && c >= '0' && c <= '9';
}

/**
 * Go's big.Float parsing in base 10: optional sign, digits with at most one '.', at least one
 * digit, an optional 'e' (×10^n) or 'p' (×2^n) exponent with an int64 value, nothing after.
 * "inf"/"+inf" parse as +Inf. A value with an exponent is reported as such without evaluating it:
 * the notarizer's printed form never contains 'e' or 'p', so such a value always ends in the
 * information-loss refusal (only a malformed or out-of-range exponent is a parse failure first).
 */
function parseGoDecimal(s: string): Parsed {
  if (s === 'inf' || s === '+inf') return { kind: 'value', value: INF };
  let i = 0;
  let negative = false;
  if (s[i] === '+' || s[i] === '-') {
    negative = s[i] === '-';
    i++;
  }
  let digits = '';
  let fraction = -1;
  for (; i < s.length; i++) {
    const c = s[i]!;
    if (c === '.' && fraction < 0) fraction = digits.length;
    else if (isDigit(c)) digits += c;
    else break;
  }
  if (digits.length === 0) return { kind: 'error' };
  const fracDigits = fraction < 0 ? 0 : digits.length - fraction;
  let exponent: bigint | undefined;
  if (s[i] === 'e' || s[i] === 'p') {
    i++;
    let sign = 1n;
    if (s[i] === '+' || s[i] === '-') {
      if (s[i] === '-') sign = -1n;
      i++;
    }
    const start = i;
    while (isDigit(s[i])) i++;
    if (i === start) return { kind: 'error' };
    exponent = sign * BigInt(s.slice(start, i));
    if (exponent > INT64_MAX || exponent < -INT64_MAX - 1n) return { kind: 'error' };
  }
  if (i !== s.length) return { kind: 'error' };
  const mant = BigInt(digits);
  if (mant === 0n) return { kind: 'value', value: ZERO };
  if (exponent !== undefined) {
    const exp2 = BigInt(bitLength(mant) - fracDigits) + exponent;
    if (exp2 < BigInt(INT32_MIN) || exp2 > BigInt(INT32_MAX)) return { kind: 'error' };
    return { kind: 'exponent' };
  }
  if (negative) return { kind: 'error' }; // unreachable after the '-' check; never encode a negative
  return { kind: 'value', value: roundRational(mant, 10n ** BigInt(fracDigits), 64, 'awayFromZero') };
}

/** The encoding options' precision: a non-negative integer, at most MAX_FLOAT_PRECISION. */
export function checkPrecision(precision: number): void {
  if (!Number.isInteger(precision) || precision < 0) fail('ENCODE_BAD_PRECISION', `precision must be a non-negative integer, got ${precision}`);
  if (precision > MAX_FLOAT_PRECISION) fail('ENCODE_PRECISION_TOO_BIG', `encoding precision ${precision} is too big (max ${MAX_FLOAT_PRECISION})`);
}

/** The prepared float string → u64 of value × 10^precision, or the notarizer's refusal. */
export function encodeFloatValue(prepared: string, precision: number): bigint {
  checkPrecision(precision);
  if (Buffer.byteLength(prepared, 'utf8') > MAX_FLOAT_INPUT_BYTES) {
    fail('ENCODE_FIELD_TOO_LONG', `float value is longer than ${MAX_FLOAT_INPUT_BYTES} bytes`);
  }
  const shown = JSON.stringify(prepared.replace(/0+$/, '').slice(0, 40));
  let data = lowerBytes(prepared);

  // 1-2: the decimal point and the fraction length
  const dot = data.indexOf('.');
  if (dot === data.length - 1) fail('ENCODE_FLOAT_PARSE', `extracted value ${shown} expected to be float but failed to parse as float`);
  if (dot !== -1) data = data.replace(/0+$/, '');
  if (dot === data.length - 1) {
    data = data.replace(/\.+$/, '');
  } else if (dot !== -1 && data.length - dot - 1 > precision) {
    fail('ENCODE_TOO_PRECISE', `extracted value ${shown} is more precise than precision ${precision}`);
  }

  // 3: notations the notarizer refuses by name
  if (data.includes('p-')) fail('ENCODE_DECIMALLESS_SCIENTIFIC', `decimalless scientific notation is not supported for floats (${shown})`);
  if (data.includes('e+') || data.includes('e-') || data.includes('p+')) {
    fail('ENCODE_SCIENTIFIC_NOTATION', `scientific notation is not supported for floats (${shown})`);
  }
  if (data.includes('-')) fail('ENCODE_NEGATIVE_FLOAT', `negative numbers are not supported for floats (${shown})`);

  // 4: parse
  const parsed = parseGoDecimal(data);
  if (parsed.kind === 'error') fail('ENCODE_FLOAT_PARSE', `extracted value ${shown} expected to be float but failed to parse as float`);
  const lossy: () => never = () => fail('ENCODE_FLOAT_LOSSY', `cannot encode ${shown} as a 64-bit scaled float without losing information`);
  if (parsed.kind === 'exponent') lossy();
  const x = parsed.value;

  // 5: scale and scale back
  const magnitude = 10n ** BigInt(precision);
  const y = mulUint(x, magnitude, 64, 'awayFromZero');
  const whole = float64IsWhole(y);
  const result = toUint64(y);
  const z = quoUint(y, magnitude, 64, 'awayFromZero');

  // 6: the printed value must give the string back
  let adjusted = precision;
  const lenDiff = textF(z, precision).length - data.length;
  if (precision !== 0 && data.length !== 0 && lenDiff !== 0) adjusted -= lenDiff;
  if (data !== textF(z, adjusted)) lossy();

  // 7-8
  if (!whole) fail('ENCODE_TOO_PRECISE', `extracted value ${shown} is more precise than precision ${precision}`);
  return result;
}
