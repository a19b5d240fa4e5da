/**
 * The attestation data section: the notarizer's preparation (current-era padding, price-feed
 * URLs), its encoding to bytes, and its decoding (ledger-encoding.md §2).
 */
import { VerifierError } from '../errors.js';
import { BLOCK, U64_MAX, decodeUtf8, encodeUtf8, readU64LE, writeU64LE } from './blocks.js';
import type { ProofDataCode, ProofDataEncodeCode } from './errors.js';
import { formatScaledFloat } from './float.js';
import { MAX_FLOAT_PRECISION, checkPrecision, encodeFloatValue } from './floatEncode.js';
import type { EncodingOptions, ValueEncoding } from './types.js';

export { MAX_FLOAT_PRECISION };

export const STRING_PADDED_BYTES = 3072;
export const NUMBER_PADDED_CHARS = 255;

/** Price-feed URLs of the oracle: no padding, meta header attestation length set to this value. */
export const PRICE_FEED_LENGTHS: Readonly<Record<string, number>> = Object.freeze({
  'price_feed: btc': 12,
  'price_feed: eth': 11,
  'price_feed: aleo': 8,
});

export function priceFeedLength(url: string): number | undefined {
  return Object.prototype.hasOwnProperty.call(PRICE_FEED_LENGTHS, url) ? PRICE_FEED_LENGTHS[url] : undefined;
}

function fail(code: ProofDataEncodeCode, message: string): never {
  throw new VerifierError<ProofDataEncodeCode>(code, `attestation data: ${message}`);
}

export function checkEncodingOptions(options: { value: string; precision: number }): EncodingOptions {
  const { value, precision } = options;
  if (value !== 'string' && value !== 'int' && value !== 'float') {
    fail('ENCODE_UNKNOWN_VALUE_TYPE', `unknown value type ${JSON.stringify(value)}, expected string, int or float`);
  }
  checkPrecision(precision);
  return { value, precision };
}

/**
 * Current-era preparation of the extracted value (what the notarizer encodes):
 * string → NUL-padded to 3072 bytes; float → '.' appended if absent, then '0'-padded to 255
 * characters; int → '0'-prefixed to 255 characters. Special price-feed URLs skip the padding.
 */
export function prepareAttestationData(value: string, options: EncodingOptions, url: string): string {
  const opts = checkEncodingOptions(options);
  if (priceFeedLength(url) !== undefined) return value;
  const byteLength = encodeUtf8(value).length;
  switch (opts.value) {
    case 'string':
      if (byteLength > STRING_PADDED_BYTES) {
        fail('ENCODE_VALUE_TOO_LONG', `string is ${byteLength} bytes, at most ${STRING_PADDED_BYTES} fit`);
      }
      return value + '\0'.repeat(STRING_PADDED_BYTES - byteLength);
    case 'float': {
      const withDot = value.includes('.') ? value : `${value}.`;
      const len = encodeUtf8(withDot).length;
      if (len > NUMBER_PADDED_CHARS) {
        fail('ENCODE_VALUE_TOO_LONG', `float is ${len} characters, at most ${NUMBER_PADDED_CHARS} fit`);
      }
      return withDot + '0'.repeat(NUMBER_PADDED_CHARS - len);
    }
    case 'int':
      if (byteLength > NUMBER_PADDED_CHARS) {
        fail('ENCODE_VALUE_TOO_LONG', `int is ${byteLength} characters, at most ${NUMBER_PADDED_CHARS} fit`);
      }
      return '0'.repeat(NUMBER_PADDED_CHARS - byteLength) + value;
  }
}

function isDigits(s: string): boolean {
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

/** Unsigned decimal integer up to 2^64-1 (digits only, leading zeros allowed). */
export function encodeIntValue(prepared: string): bigint {
  if (prepared.length === 0 || !isDigits(prepared)) {
    fail('ENCODE_INT_PARSE', `extracted value expected to be int but ${JSON.stringify(prepared.slice(0, 40))} is not an unsigned decimal integer`);
  }
  const v = BigInt(prepared);
  if (v > U64_MAX) fail('ENCODE_INT_PARSE', 'extracted value expected to be int but it exceeds 2^64-1');
  return v;
}

/** The attestation data section bytes (before block padding). */
export function encodeAttestationValue(prepared: string, options: EncodingOptions): Uint8Array {
  switch (options.value) {
    case 'string':
      return encodeUtf8(prepared);
    case 'int':
    case 'float': {
      const v = options.value === 'int' ? encodeIntValue(prepared) : encodeFloatValue(prepared, options.precision);
      const out = new Uint8Array(8);
      writeU64LE(out, 0, v);
      return out;
    }
  }
}

/** Section size in bytes for a meta-header attestation length (255 = one block). */
export function attestationSectionSize(headerLength: number): number {
  return headerLength === NUMBER_PADDED_CHARS ? BLOCK : Math.ceil(headerLength / BLOCK) * BLOCK;
}

/** Decodes the attestation data section `section` (its padded bytes) given the header length. */
export function decodeAttestationValue(section: Uint8Array, headerLength: number, type: ValueEncoding, precision: number): string {
  if (type === 'string') {
    if (headerLength > section.length) {
      throw new VerifierError<ProofDataCode>('PROOF_DATA_BAD_ATTESTATION_DATA', `attestation data: string length ${headerLength} exceeds its ${section.length}-byte section`);
    }
    let end = headerLength;
    while (end > 0 && section[end - 1] === 0) end--;
    return decodeUtf8(section.subarray(0, end));
  }
  if (section.length < 8) {
    throw new VerifierError<ProofDataCode>('PROOF_DATA_BAD_ATTESTATION_DATA', `attestation data: ${type} needs an 8-byte value, section is ${section.length} bytes (header length ${headerLength})`);
  }
  const v = readU64LE(section, 0);
  return type === 'int' ? v.toString() : formatScaledFloat(v, precision);
}
