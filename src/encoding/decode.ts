/** Decoding of the proof data recovered from userData (ledger-encoding.md §2). */
import { VerifierError } from '../errors.js';
import { BLOCK, META_HEADER_BYTES, decodeUtf8, expectZero, readU64LE, u64ToSafeNumber } from './blocks.js';
import type { ProofDataCode } from './errors.js';
import { MAX_FLOAT_PRECISION, attestationSectionSize, decodeAttestationValue } from './attestationData.js';
import { decodeHeaders } from './headers.js';
import { readMetaHeader } from './metaHeader.js';
import { decodeOptionalFields } from './optionalFields.js';
import type { DecodedData, ValueEncoding } from './types.js';

const VALUE_TYPES: readonly ValueEncoding[] = ['string', 'int', 'float'];

function fail(code: ProofDataCode, message: string): never {
  throw new VerifierError<ProofDataCode>(code, `proof data ${message}`);
}

interface Section {
  name: string;
  offset: number;
  length: number; // meta-header length
  size: number; // padded bytes
}

function expectLength(s: Section, want: number): void {
  if (s.length !== want) fail('PROOF_DATA_BAD_SECTION_LENGTH', `${s.name}: meta header length ${s.length}, expected ${want}`);
}

/** Sections that must lie inside the buffer even when it holds a cut message (all but headers, optional fields). */
const CORE_SECTIONS = 8;

export interface DecodeOptions {
  /**
   * The buffer holds the message's first `bytes.length` bytes only (one-request-per-chunk
   * userData keeps each request's first 512 bytes): the headers and optional-field sections may
   * run past its end; they are then left out and the result carries `truncated: true`.
   */
  cut?: boolean;
}

/**
 * Decodes proof data. `bytes` is the whole recovered userData (normally 4096 bytes, zero padded);
 * everything after the encoded sections must be zero.
 */
export function decodeProofData(bytes: Uint8Array, opts: DecodeOptions = {}): DecodedData {
  if (bytes.length < META_HEADER_BYTES) {
    fail('PROOF_DATA_TOO_SHORT', `is ${bytes.length} bytes, shorter than the ${META_HEADER_BYTES}-byte meta header`);
  }
  const meta = readMetaHeader(bytes);
  const layout: Array<[string, number, number]> = [
    ['attestation data', meta.attestationData, attestationSectionSize(meta.attestationData)],
    ['timestamp', meta.timestamp, Math.ceil(meta.timestamp / BLOCK) * BLOCK],
    ['status code', meta.statusCode, Math.ceil(meta.statusCode / BLOCK) * BLOCK],
    ['url', meta.url, Math.ceil(meta.url / BLOCK) * BLOCK],
    ['selector', meta.selector, Math.ceil(meta.selector / BLOCK) * BLOCK],
    ['response format', meta.responseFormat, Math.ceil(meta.responseFormat / BLOCK) * BLOCK],
    ['request method', meta.method, Math.ceil(meta.method / BLOCK) * BLOCK],
    ['encoding options', meta.encodingOptions, Math.ceil(meta.encodingOptions / BLOCK) * BLOCK],
    ['headers', meta.headers, Math.ceil(meta.headers / BLOCK) * BLOCK],
    ['optional fields', meta.optionalFields, Math.ceil(meta.optionalFields / BLOCK) * BLOCK],
  ];
  let offset = META_HEADER_BYTES;
  const sections: Section[] = [];
  let cutAt: number | undefined;
  for (const [name, length, size] of layout) {
    if (opts.cut && sections.length >= CORE_SECTIONS && offset + size > bytes.length) {
      cutAt ??= sections.length;
    } else if (offset + size > bytes.length) {
      fail('PROOF_DATA_SECTION_OVERRUN', `${name}: ${size} bytes at offset ${offset} overrun the ${bytes.length}-byte buffer (meta header length ${length})`);
    }
    sections.push({ name, offset, length, size });
    offset += size;
  }
  if (cutAt === undefined) expectZero(bytes, offset, bytes.length, `after the encoded sections (offset ${offset})`);
  const [att, ts, status, url, selector, format, method, options, headers, optional] = sections as [
    Section, Section, Section, Section, Section, Section, Section, Section, Section, Section,
  ];
  expectLength(ts, 8);
  expectLength(status, 8);
  expectLength(format, 1);
  expectLength(options, 16);
  if (headers.length < BLOCK || headers.length % BLOCK !== 0) {
    fail('PROOF_DATA_BAD_SECTION_LENGTH', `headers: meta header length ${headers.length}, expected a positive multiple of ${BLOCK}`);
  }
  if (optional.length < 4 * BLOCK || optional.length % BLOCK !== 0) {
    fail('PROOF_DATA_BAD_SECTION_LENGTH', `optional fields: meta header length ${optional.length}, expected a multiple of ${BLOCK} of at least ${4 * BLOCK}`);
  }

  const formatByte = bytes[format.offset] ?? 0;
  if (formatByte > 1) fail('PROOF_DATA_BAD_FORMAT', `response format: byte ${formatByte} at offset ${format.offset}, expected 0 (json) or 1 (html)`);
  const typeCode = readU64LE(bytes, options.offset);
  const valueType = typeCode < 3n ? VALUE_TYPES[Number(typeCode)] : undefined;
  if (valueType === undefined) {
    fail('PROOF_DATA_BAD_ENCODING_OPTIONS', `encoding options: value type ${typeCode} at offset ${options.offset}, expected 0 (string), 1 (int) or 2 (float)`);
  }
  const precisionCode = readU64LE(bytes, options.offset + 8);
  if (precisionCode > BigInt(MAX_FLOAT_PRECISION)) {
    fail('PROOF_DATA_BAD_ENCODING_OPTIONS', `encoding options: precision ${precisionCode} at offset ${options.offset + 8}, at most ${MAX_FLOAT_PRECISION} allowed`);
  }
  const precision = Number(precisionCode);

  const text = (s: Section): string => decodeUtf8(bytes.subarray(s.offset, s.offset + s.length));
  const attestationData = decodeAttestationValue(bytes.subarray(att.offset, att.offset + att.size), att.length, valueType, precision);
  const timestamp = BigInt.asIntN(64, readU64LE(bytes, ts.offset));
  if (timestamp > BigInt(Number.MAX_SAFE_INTEGER) || timestamp < BigInt(Number.MIN_SAFE_INTEGER)) {
    fail('PROOF_DATA_VALUE_OUT_OF_RANGE', `timestamp: ${timestamp} at offset ${ts.offset} is outside ±(2^53-1)`);
  }
  const statusCode = u64ToSafeNumber(readU64LE(bytes, status.offset), `status code at offset ${status.offset}`);
  const present = (i: number): boolean => cutAt === undefined || i < cutAt;
  const headerList = present(CORE_SECTIONS) ? decodeHeaders(bytes.subarray(headers.offset, headers.offset + headers.size), headers.offset) : [];
  const opt = present(CORE_SECTIONS + 1) ? decodeOptionalFields(bytes.subarray(optional.offset, optional.offset + optional.size), optional.offset) : {};

  const out: DecodedData = {
    url: text(url),
    requestMethod: text(method),
  } as DecodedData;
  const sel = text(selector);
  if (sel !== '') out.selector = sel;
  out.responseFormat = formatByte === 1 ? 'html' : 'json';
  if (opt.htmlResultType !== undefined) out.htmlResultType = opt.htmlResultType;
  if (opt.requestBody !== undefined) out.requestBody = opt.requestBody;
  if (opt.requestContentType !== undefined) out.requestContentType = opt.requestContentType;
  if (headerList.length > 0) out.requestHeaders = Object.fromEntries(headerList);
  out.encodingOptions = { value: valueType, precision };
  out.attestationData = attestationData;
  out.responseStatusCode = statusCode;
  out.timestamp = Number(timestamp);
  if (cutAt !== undefined) out.truncated = true;
  return out;
}
