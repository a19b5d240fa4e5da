/**
 * `Plaintext::to_fields` of the chunked u128 struct `{ c0: { f0 … f31 }, …, c(n-1): {…} }`
 * computed straight from the message bytes (no text round trip).
 *
 * Layout: see bits.ts. The outer struct has members c0…c(n−1), each an inner struct of
 * members f0…f31, each a u128 literal.
 *
 * Only the 128 value bits of each u128 depend on the message, so the rest is a constant template
 * per chunk count (cached); the value bits are spliced into it.
 */
import { VerifierError } from '../errors.js';
import { BitWriter, FIELD_DATA_BITS, packFields, U128_BITS, U128_LITERAL_BITS } from './bits.js';
import type { HashCode } from './errors.js';

export const STRUCT_CHUNK_BYTES = 512;
export const STRUCT_FIELDS_PER_CHUNK = 32;
/** The struct member count is encoded in 8 bits. */
export const STRUCT_MAX_CHUNKS = 255;
export { FIELD_DATA_BITS };

interface Template {
  /** Field elements with all value bits zero. */
  readonly base: readonly bigint[];
  /** Per 16-byte group g (in message order): field index and bit shift of its value's bit 0. */
  readonly index: Uint16Array;
  readonly shift: Uint16Array;
}

function buildTemplate(chunks: number): Template {
  const valueOffsets: number[] = [];
  const outer = new BitWriter();
  outer.structHeader(chunks);
  for (let c = 0; c < chunks; c++) {
    const inner = new BitWriter();
    const innerValueOffsets: number[] = [];
    inner.structHeader(STRUCT_FIELDS_PER_CHUNK);
    for (let f = 0; f < STRUCT_FIELDS_PER_CHUNK; f++) {
      inner.memberHeader(`f${f}`, U128_LITERAL_BITS);
      innerValueOffsets.push(inner.u128Literal(0n));
    }
    outer.memberHeader(`c${c}`, inner.length);
    const innerStart = outer.length;
    outer.append(inner);
    for (const o of innerValueOffsets) valueOffsets.push(innerStart + o);
  }
  const base = packFields(outer);
  const index = new Uint16Array(valueOffsets.length);
  const shift = new Uint16Array(valueOffsets.length);
  valueOffsets.forEach((o, g) => {
    index[g] = Math.floor(o / FIELD_DATA_BITS);
    shift[g] = o % FIELD_DATA_BITS;
  });
  return { base, index, shift };
}

const templates = new Map<number, Template>();

function templateFor(chunks: number): Template {
  let t = templates.get(chunks);
  if (t === undefined) {
    t = buildTemplate(chunks);
    templates.set(chunks, t);
  }
  return t;
}

/** Number of field elements `to_fields` yields for an n-chunk struct (8 → 205, 10 → 256). */
export function structFieldCount(chunks: number): number {
  checkChunks(chunks);
  return templateFor(chunks).base.length;
}

function checkChunks(chunks: number): void {
  if (!Number.isInteger(chunks) || chunks < 1 || chunks > STRUCT_MAX_CHUNKS) {
    throw new VerifierError<HashCode>(
      'HASH_INPUT_TOO_LARGE',
      `chunk count must be an integer in 1..${STRUCT_MAX_CHUNKS}, got ${chunks}`,
    );
  }
}

/** Validates the message length and returns its chunk count. */
export function structChunkCount(bytes: Uint8Array): number {
  if (!(bytes instanceof Uint8Array)) {
    throw new VerifierError<HashCode>('HASH_INPUT_LENGTH', 'struct message must be a Uint8Array');
  }
  if (bytes.length === 0) {
    throw new VerifierError<HashCode>('HASH_INPUT_EMPTY', 'struct message is empty (need a positive multiple of 512 bytes)');
  }
  if (bytes.length % STRUCT_CHUNK_BYTES !== 0) {
    throw new VerifierError<HashCode>(
      'HASH_INPUT_LENGTH',
      `struct message length ${bytes.length} is not a multiple of ${STRUCT_CHUNK_BYTES} bytes`,
    );
  }
  const chunks = bytes.length / STRUCT_CHUNK_BYTES;
  if (chunks > STRUCT_MAX_CHUNKS) {
    throw new VerifierError<HashCode>(
      'HASH_INPUT_TOO_LARGE',
      `struct message has ${chunks} chunks; at most ${STRUCT_MAX_CHUNKS} fit the 8-bit member count`,
    );
  }
  return chunks;
}

/**
 * `to_fields` of the chunked u128 struct holding `bytes` (length a positive multiple of 512):
 * 16-byte group g is a little-endian u128 stored as c⌊g/32⌋.f(g mod 32).
 */
export function structFieldElements(bytes: Uint8Array): bigint[] {
  const chunks = structChunkCount(bytes);
  const { base, index, shift } = templateFor(chunks);
  const out = base.slice();
  const dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const groups = index.length;
  for (let g = 0; g < groups; g++) {
    const lo = dv.getBigUint64(g * 16, true);
    const hi = dv.getBigUint64(g * 16 + 8, true);
    if (lo === 0n && hi === 0n) continue;
    const v = lo | (hi << 64n);
    const k = index[g] as number;
    const s = shift[g] as number;
    const room = FIELD_DATA_BITS - s;
    if (room >= U128_BITS) {
      out[k] = (out[k] as bigint) | (v << BigInt(s));
    } else {
      const r = BigInt(room);
      out[k] = (out[k] as bigint) | ((v & ((1n << r) - 1n)) << BigInt(s));
      out[k + 1] = (out[k + 1] as bigint) | (v >> r);
    }
  }
  return out;
}
