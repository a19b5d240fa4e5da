/**
 * `to_fields` of the chunked u128 struct (see structFields.ts) produced directly as 29-bit limbs,
 * without BigInt: the struct's bit string is kept as 32-bit words (a constant template per chunk
 * count with the message's value bits OR-ed in), and each 252-bit field element is cut from it.
 * Equal to structFieldElements (test/unit/hash/kernel.test.ts).
 */
import { BitWriter, FIELD_DATA_BITS, U128_LITERAL_BITS } from './bits.js';
import { LIMB_BITS, LIMB_MASK, LIMBS } from './limbs.js';
import { STRUCT_FIELDS_PER_CHUNK, structChunkCount } from './structFields.js';

interface WordTemplate {
  /** The bit string (incl. the terminating 1) as little-endian 32-bit words, zero-padded. */
  readonly words: Uint32Array;
  /** Bit offset of the value of 16-byte group g. */
  readonly valueOffset: Uint32Array;
  /** Number of field elements. */
  readonly fields: number;
}

function buildWordTemplate(chunks: number): WordTemplate {
  const valueOffsets: number[] = [];
  const outer = new BitWriter();
  outer.structHeader(chunks);
  for (let c = 0; c < chunks; c++) {
    const inner = new BitWriter();
    const innerOffsets: number[] = [];
    inner.structHeader(STRUCT_FIELDS_PER_CHUNK);
    for (let f = 0; f < STRUCT_FIELDS_PER_CHUNK; f++) {
      inner.memberHeader(`f${f}`, U128_LITERAL_BITS);
      innerOffsets.push(inner.u128Literal(0n));
    }
    outer.memberHeader(`c${c}`, inner.length);
    const start = outer.length;
    outer.append(inner);
    for (const o of innerOffsets) valueOffsets.push(start + o);
  }
  const bits = [...outer.bits, 1];
  const fields = Math.ceil(bits.length / FIELD_DATA_BITS);
  // Room for reading one word past the last element's last limb.
  const words = new Uint32Array(Math.ceil((fields * FIELD_DATA_BITS) / 32) + 2);
  bits.forEach((b, i) => {
    if (b) words[i >>> 5] = ((words[i >>> 5] as number) | (1 << (i & 31))) >>> 0;
  });
  return { words, valueOffset: Uint32Array.from(valueOffsets), fields };
}

const templates = new Map<number, WordTemplate>();
let scratch = new Uint32Array(0);

function templateFor(chunks: number): WordTemplate {
  let t = templates.get(chunks);
  if (t === undefined) {
    t = buildWordTemplate(chunks);
    templates.set(chunks, t);
  }
  return t;
}

/** Field-element count of the struct holding `bytes` (validates the length like structFieldElements). */
export function structLimbCount(bytes: Uint8Array): number {
  return templateFor(structChunkCount(bytes)).fields;
}

/**
 * The struct's bit string (template with the message's value bits OR-ed in) as little-endian
 * 32-bit words, and its field-element count: element k is bits [252k, 252k + 252). The words
 * are a shared scratch buffer, valid until the next call. Throws like structFieldElements.
 */
export function structBitWords(bytes: Uint8Array): { words: Uint32Array; fields: number } {
  const { words: template, valueOffset, fields } = templateFor(structChunkCount(bytes));
  if (scratch.length < template.length) scratch = new Uint32Array(template.length);
  const w = scratch.length === template.length ? scratch : scratch.subarray(0, template.length);
  w.set(template);
  const groups = valueOffset.length;
  for (let g = 0, b = 0; g < groups; g++, b += 16) {
    const o = valueOffset[g] as number;
    let wi = o >>> 5;
    const s = o & 31;
    for (let q = 0; q < 4; q++, wi++) {
      const i = b + 4 * q;
      const v = ((bytes[i] as number) | ((bytes[i + 1] as number) << 8) | ((bytes[i + 2] as number) << 16) | ((bytes[i + 3] as number) << 24)) >>> 0;
      if (v === 0) continue;
      w[wi] = ((w[wi] as number) | (v << s)) >>> 0;
      if (s !== 0) w[wi + 1] = ((w[wi + 1] as number) | (v >>> (32 - s))) >>> 0;
    }
  }
  return { words: w, fields };
}

/**
 * Writes the struct's field elements (canonical, < 2^252) as 9 limbs each into out[at …];
 * returns the element count. Throws like structFieldElements on a bad length.
 */
export function writeStructLimbs(bytes: Uint8Array, out: Uint32Array, at: number): number {
  const { words: w, fields } = structBitWords(bytes);
  const lastBits = FIELD_DATA_BITS - (LIMBS - 1) * LIMB_BITS; // 20
  const lastMask = (1 << lastBits) - 1;
  for (let k = 0, base = 0, o = at; k < fields; k++, base += FIELD_DATA_BITS) {
    for (let l = 0; l < LIMBS; l++, o++) {
      const pos = base + l * LIMB_BITS;
      const wi = pos >>> 5;
      const s = pos & 31;
      let v = (w[wi] as number) >>> s;
      if (s > 32 - LIMB_BITS) v |= (w[wi + 1] as number) << (32 - s);
      out[o] = v & (l === LIMBS - 1 ? lastMask : LIMB_MASK);
    }
  }
  return fields;
}
