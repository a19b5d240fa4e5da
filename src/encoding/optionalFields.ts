/**
 * Optional fields section: flag block (bit 1 html result type, 2 content type, 4 body; bytes 8–15
 * following block count) | html block (1 element, 2 value) | content-type length block + bytes |
 * body length block + bytes.
 */
import { VerifierError } from '../errors.js';
import { BLOCK, BlockWriter, decodeUtf8, encodeUtf8, readU64LE, u64ToSafeNumber, writeU64LE } from './blocks.js';
import type { ProofDataCode, ProofDataEncodeCode } from './errors.js';

export const FLAG_HTML_RESULT_TYPE = 1n;
export const FLAG_CONTENT_TYPE = 2n;
export const FLAG_BODY = 4n;
const HTML_TYPES = ['element', 'value'] as const;

export interface OptionalFields {
  htmlResultType?: string;
  requestContentType?: string;
  requestBody?: string;
}

function u64Block(v: bigint): Uint8Array {
  const b = new Uint8Array(BLOCK);
  writeU64LE(b, 0, v);
  return b;
}

export function encodeOptionalFields(f: OptionalFields): Uint8Array {
  let flags = 0n;
  let html = 0n;
  if (f.htmlResultType !== undefined) {
    const i = (HTML_TYPES as readonly string[]).indexOf(f.htmlResultType);
    if (i < 0) {
      throw new VerifierError<ProofDataEncodeCode>('ENCODE_BAD_HTML_RESULT_TYPE', `HTML result type ${JSON.stringify(f.htmlResultType)} is unknown, expected element or value`);
    }
    flags |= FLAG_HTML_RESULT_TYPE;
    html = BigInt(i + 1);
  }
  const ct = f.requestContentType !== undefined ? encodeUtf8(f.requestContentType) : new Uint8Array(0);
  const body = f.requestBody !== undefined ? encodeUtf8(f.requestBody) : new Uint8Array(0);
  if (f.requestContentType !== undefined) flags |= FLAG_CONTENT_TYPE;
  if (f.requestBody !== undefined) flags |= FLAG_BODY;
  const w = new BlockWriter();
  w.push(u64Block(html));
  w.push(u64Block(BigInt(ct.length)));
  w.push(ct);
  w.push(u64Block(BigInt(body.length)));
  w.push(body);
  const first = new Uint8Array(BLOCK);
  writeU64LE(first, 0, flags);
  writeU64LE(first, 8, BigInt(w.length / BLOCK));
  const out = new Uint8Array(BLOCK + w.length);
  out.set(first);
  out.set(w.concat(), BLOCK);
  return out;
}

function bad(message: string): never {
  throw new VerifierError<ProofDataCode>('PROOF_DATA_BAD_OPTIONAL_FIELDS', `proof data optional fields: ${message}`);
}

/** Decodes the optional fields section (`base` = its buffer offset, for messages). */
export function decodeOptionalFields(section: Uint8Array, base: number): OptionalFields {
  if (section.length < 4 * BLOCK) bad(`section is ${section.length} bytes, at least ${4 * BLOCK} expected`);
  const flags = readU64LE(section, 0);
  const following = readU64LE(section, 8);
  const available = BigInt(section.length / BLOCK - 1);
  if (following !== available) bad(`flag block at offset ${base} announces ${following} following blocks, the section holds ${available}`);
  if ((flags & ~(FLAG_HTML_RESULT_TYPE | FLAG_CONTENT_TYPE | FLAG_BODY)) !== 0n) bad(`unknown flag bits in 0x${flags.toString(16)} at offset ${base}`);
  const out: OptionalFields = {};
  const html = readU64LE(section, BLOCK);
  if ((flags & FLAG_HTML_RESULT_TYPE) !== 0n) {
    if (html !== 1n && html !== 2n) bad(`html result type ${html} at offset ${base + BLOCK}, expected 1 (element) or 2 (value)`);
    out.htmlResultType = html === 1n ? 'element' : 'value';
  } else if (html !== 0n) {
    bad(`html result type ${html} at offset ${base + BLOCK} without its flag`);
  }
  let pos = 2 * BLOCK;
  const readString = (flag: bigint, name: string): string | undefined => {
    if (pos + BLOCK > section.length) bad(`${name} length block at offset ${base + pos} is past the section end`);
    const len = u64ToSafeNumber(readU64LE(section, pos), `${name} length`);
    const start = pos + BLOCK;
    const next = start + Math.ceil(len / BLOCK) * BLOCK;
    if (next > section.length) bad(`${name} of ${len} bytes at offset ${base + start} overruns the section end (${base + section.length})`);
    pos = next;
    if ((flags & flag) === 0n) {
      if (len !== 0) bad(`${name} of ${len} bytes at offset ${base + start} without its flag`);
      return undefined;
    }
    return decodeUtf8(section.subarray(start, start + len));
  };
  const ct = readString(FLAG_CONTENT_TYPE, 'content type');
  const body = readString(FLAG_BODY, 'body');
  if (pos !== section.length) bad(`${(section.length - pos) / BLOCK} block(s) left over at offset ${base + pos}`);
  if (body !== undefined) out.requestBody = body;
  if (ct !== undefined) out.requestContentType = ct;
  return out;
}
