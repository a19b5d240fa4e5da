/** Encoding of proof data as the notarizer does it (ledger-encoding.md §2). */
import { VerifierError } from '../errors.js';
import { BLOCK, BlockWriter, encodeUtf8, writeU64LE } from './blocks.js';
import type { ProofDataCode, ProofDataEncodeCode } from './errors.js';
import {
  NUMBER_PADDED_CHARS, attestationSectionSize, checkEncodingOptions, encodeAttestationValue,
  prepareAttestationData, priceFeedLength,
} from './attestationData.js';
import { encodeHeaders } from './headers.js';
import { writeMetaHeader } from './metaHeader.js';
import { encodeOptionalFields } from './optionalFields.js';
import type { EncodingEra, ProofDataInput } from './types.js';

export const PROOF_DATA_SIZE = 4096;

function bad(code: ProofDataEncodeCode, message: string): never {
  throw new VerifierError<ProofDataEncodeCode>(code, `proof data encode: ${message}`);
}

function u64Block(v: bigint): Uint8Array {
  const b = new Uint8Array(BLOCK);
  writeU64LE(b, 0, v);
  return b;
}

function checkInt(v: number, what: string, min: number): bigint {
  if (!Number.isSafeInteger(v) || v < min) bad('ENCODE_BAD_INPUT', `${what} must be a safe integer ≥ ${min}, got ${v}`);
  return BigInt(v);
}

function text(s: string, what: string): Uint8Array {
  const b = encodeUtf8(s);
  if (b.length > 0xffff) bad('ENCODE_FIELD_TOO_LONG', `${what} is ${b.length} bytes, at most 65535 fit a meta header length`);
  return b;
}

/** Meta-header byte that carries the token id of a price feed since 2025-09 (src/encoding/eras). */
export const TOKEN_ID_BYTE = 21;
/** Attestation data length of a token price feed since 2025-09: the 8-byte u64 value, unpadded. */
const TOKEN_FEED_LENGTH = 8;

export interface EncodeOptions {
  /** Attestation data padding: 'legacy' (Dec 2023 – Feb 2025) encodes the raw value with its raw length. */
  era?: EncodingEra;
  /**
   * Token id of a price feed (1–255), written at meta-header byte 21 (since 2025-09); the value is
   * then encoded unpadded with attestation length 8, whatever the URL.
   */
  tokenId?: number;
}

/**
 * Prepares and encodes proof data; returns the exact bytes before zero padding (see padProofData).
 * era 'legacy' (Dec 2023 – Feb 2025) encodes the raw value with its raw length in the meta header.
 */
export function encodeProofData(input: ProofDataInput, opts: EncodeOptions = {}): Uint8Array {
  const era = opts.era ?? 'current';
  const tokenId = opts.tokenId;
  if (tokenId !== undefined && (!Number.isInteger(tokenId) || tokenId < 1 || tokenId > 255)) {
    bad('ENCODE_BAD_INPUT', `token id must be an integer in 1…255, got ${tokenId}`);
  }
  const options = checkEncodingOptions(input.encodingOptions);
  let format: bigint;
  if (input.responseFormat === 'json') format = 0n;
  else if (input.responseFormat === 'html') format = 1n;
  else bad('ENCODE_BAD_RESPONSE_FORMAT', `unknown response type ${JSON.stringify(input.responseFormat)}, expected json or html`);

  const special = tokenId !== undefined ? TOKEN_FEED_LENGTH : priceFeedLength(input.url);
  const prepared = era === 'current' && tokenId === undefined ? prepareAttestationData(input.attestationData, options, input.url) : input.attestationData;
  const value = encodeAttestationValue(prepared, options);
  let attLength: number;
  if (special !== undefined) attLength = special;
  else if (era === 'legacy') attLength = encodeUtf8(prepared).length;
  else attLength = options.value === 'string' ? encodeUtf8(prepared).length : NUMBER_PADDED_CHARS;
  if (attLength > 0xffff) bad('ENCODE_FIELD_TOO_LONG', `attestation data length ${attLength} exceeds 65535`);
  if (attestationSectionSize(attLength) < Math.ceil(value.length / BLOCK) * BLOCK) {
    bad('ENCODE_VALUE_TOO_LONG', `attestation data of ${value.length} bytes does not fit the section of meta header length ${attLength}`);
  }
  const attSection = new Uint8Array(attestationSectionSize(attLength));
  attSection.set(value);

  const url = text(input.url, 'url');
  const selector = text(input.selector, 'selector');
  const method = text(input.requestMethod, 'request method');
  const optionsBlock = new Uint8Array(BLOCK);
  writeU64LE(optionsBlock, 0, BigInt(['string', 'int', 'float'].indexOf(options.value)));
  writeU64LE(optionsBlock, 8, BigInt(options.precision));
  const headers = encodeHeaders(input.requestHeaders);
  const optional = encodeOptionalFields({
    htmlResultType: input.htmlResultType,
    requestContentType: input.requestContentType,
    requestBody: input.requestBody,
  });
  if (headers.length > 0xffff || optional.length > 0xffff) bad('ENCODE_FIELD_TOO_LONG', 'headers or optional fields exceed 65535 bytes');

  const w = new BlockWriter();
  const meta = writeMetaHeader({
    attestationData: attLength, timestamp: 8, statusCode: 8, method: method.length, responseFormat: 1,
    url: url.length, selector: selector.length, encodingOptions: BLOCK, headers: headers.length, optionalFields: optional.length,
  });
  if (tokenId !== undefined) meta[TOKEN_ID_BYTE] = tokenId;
  w.push(meta);
  w.push(attSection);
  w.push(u64Block(BigInt.asUintN(64, BigInt(checkInt(input.timestamp, 'timestamp', Number.MIN_SAFE_INTEGER)))));
  w.push(u64Block(checkInt(input.responseStatusCode, 'responseStatusCode', 0)));
  w.push(url);
  w.push(selector);
  w.push(u64Block(format).subarray(0, 1));
  w.push(method);
  w.push(optionsBlock);
  w.push(headers);
  w.push(optional);
  return w.concat();
}

/** Zero-pads encoded proof data to `size` bytes (the userData size); fails when it is longer. */
export function padProofData(bytes: Uint8Array, size: number = PROOF_DATA_SIZE): Uint8Array {
  if (bytes.length > size) {
    throw new VerifierError<ProofDataCode>('PROOF_DATA_TOO_LONG', `proof data is ${bytes.length} bytes, more than the ${size} bytes of userData`);
  }
  const out = new Uint8Array(size);
  out.set(bytes);
  return out;
}
