/**
 * `Plaintext::to_fields` of the chunked u128 struct `{ c0: { f0 … f31 }, …, c(n-1): {…} }`
 * computed straight from the message bytes (no text round trip).
 *
 * Bit string (little-endian, LSB first):
 *   struct   = variant bits (0,1) | member count (8 bits) | members…
 *   member   = name length in bits (8 bits) | name ASCII bytes | member bit length (16 bits) | member bits
 *   u128     = variant bits (0,0) | type id 13 (8 bits) | 128 (16 bits) | value (128 bits)
 * then one terminating 1 bit; cut into 252-bit little-endian field elements (last one short).
 *
 * Only the 128 value bits of each u128 depend on the message, so the rest is a constant template
 * per chunk count (cached); the value bits are spliced into it.
 */
import { VerifierError } from '../errors.js';
import type { HashCode } from './errors.js';

export const STRUCT_CHUNK_BYTES = 512;
export const STRUCT_FIELDS_PER_CHUNK = 32;
/** The struct member count is encoded in 8 bits. */
export const STRUCT_MAX_CHUNKS = 255;
/** Data bits per field element in `to_fields` (BLS12-377 scalar field capacity). */
export const FIELD_DATA_BITS = 252;

const U128_TYPE_ID = 13;
const U128_BITS = 128;
const U128_LITERAL_BITS = 2 + 8 + 16 + U128_BITS; // 154

interface Template {
  /** Field elements with all value bits zero. */
  readonly base: readonly bigint[];
  /** Per 16-byte group g (in message order): field index and bit shift of its value's bit 0. */
  readonly index: Uint16Array;
  readonly shift: Uint16Array;
}

class BitWriter {
  readonly bits: number[] = [];
  push(value: number, count: number): void {
    for (let i = 0; i < count; i++) this.bits.push((value >>> i) & 1);
  }
  append(other: BitWriter): void {
    for (const b of other.bits) this.bits.push(b);
  }
  get length(): number {
    return this.bits.length;
  }
}

function writeMemberHeader(w: BitWriter, name: string, memberBits: number): void {
  w.push(name.length * 8, 8);
  for (let i = 0; i < name.length; i++) w.push(name.charCodeAt(i), 8);
  w.push(memberBits, 16);
}

function buildTemplate(chunks: number): Template {
  const valueOffsets: number[] = [];
  const outer = new BitWriter();
  outer.push(0, 1);
  outer.push(1, 1);
  outer.push(chunks, 8);
  for (let c = 0; c < chunks; c++) {
    const inner = new BitWriter();
    const innerValueOffsets: number[] = [];
    inner.push(0, 1);
    inner.push(1, 1);
    inner.push(STRUCT_FIELDS_PER_CHUNK, 8);
    for (let f = 0; f < STRUCT_FIELDS_PER_CHUNK; f++) {
      writeMemberHeader(inner, `f${f}`, U128_LITERAL_BITS);
      inner.push(0, 2);
      inner.push(U128_TYPE_ID, 8);
      inner.push(U128_BITS, 16);
      innerValueOffsets.push(inner.length);
      inner.push(0, U128_BITS);
    }
    writeMemberHeader(outer, `c${c}`, inner.length);
    const innerStart = outer.length;
    outer.append(inner);
    for (const o of innerValueOffsets) valueOffsets.push(innerStart + o);
  }
  outer.push(1, 1); // terminator
  const bits = outer.bits;
  const count = Math.ceil(bits.length / FIELD_DATA_BITS);
  const base: bigint[] = [];
  for (let k = 0; k < count; k++) {
    let x = 0n;
    const end = Math.min(bits.length, (k + 1) * FIELD_DATA_BITS);
    for (let i = end - 1; i >= k * FIELD_DATA_BITS; i--) x = (x << 1n) | BigInt(bits[i] as number);
    base.push(x);
  }
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
