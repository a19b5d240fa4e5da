/** 16-byte block helpers of the proof-data layout (ledger-encoding.md §2). */
import { VerifierError } from '../errors.js';
import type { ProofDataCode } from './errors.js';

export const BLOCK = 16;
export const META_HEADER_BYTES = 32;
export const U64_MAX = (1n << 64n) - 1n;

/** Bytes occupied by an item of `len` bytes: rounded up to whole blocks. */
export function paddedLength(len: number): number {
  return Math.ceil(len / BLOCK) * BLOCK;
}

export function readU16LE(b: Uint8Array, off: number): number {
  return (b[off] ?? 0) | ((b[off + 1] ?? 0) << 8);
}

export function readU64LE(b: Uint8Array, off: number): bigint {
  let v = 0n;
  for (let i = 7; i >= 0; i--) v = (v << 8n) | BigInt(b[off + i] ?? 0);
  return v;
}

export function writeU16LE(b: Uint8Array, off: number, v: number): void {
  b[off] = v & 0xff;
  b[off + 1] = (v >>> 8) & 0xff;
}

export function writeU64LE(b: Uint8Array, off: number, v: bigint): void {
  let x = BigInt.asUintN(64, v);
  for (let i = 0; i < 8; i++) {
    b[off + i] = Number(x & 0xffn);
    x >>= 8n;
  }
}

/** Throws when any byte of b[from, to) is non-zero. */
export function expectZero(b: Uint8Array, from: number, to: number, section: string): void {
  for (let i = from; i < to; i++) {
    if (b[i] !== 0) {
      throw new VerifierError<ProofDataCode>(
        'PROOF_DATA_NONZERO_PADDING',
        `proof data ${section}: padding byte at offset ${i} is 0x${(b[i] ?? 0).toString(16).padStart(2, '0')}, expected 0x00`,
      );
    }
  }
}

/** A u64 that must fit a JS safe integer (counts, lengths, status codes). */
export function u64ToSafeNumber(v: bigint, what: string): number {
  if (v > BigInt(Number.MAX_SAFE_INTEGER)) {
    throw new VerifierError<ProofDataCode>('PROOF_DATA_VALUE_OUT_OF_RANGE', `proof data ${what}: value ${v} exceeds 2^53-1`);
  }
  return Number(v);
}

const utf8 = new TextDecoder('utf-8');
const utf8Encoder = new TextEncoder();

export function decodeUtf8(b: Uint8Array): string {
  return utf8.decode(b);
}

export function encodeUtf8(s: string): Uint8Array {
  return utf8Encoder.encode(s);
}

/** Sequential writer of zero-padded blocks. */
export class BlockWriter {
  private chunks: Uint8Array[] = [];
  private total = 0;

  /** Appends `bytes` padded with zeros to a whole number of blocks; returns the padded size. */
  push(bytes: Uint8Array): number {
    const size = paddedLength(bytes.length);
    const out = new Uint8Array(size);
    out.set(bytes);
    this.chunks.push(out);
    this.total += size;
    return size;
  }

  get length(): number {
    return this.total;
  }

  concat(): Uint8Array {
    const out = new Uint8Array(this.total);
    let off = 0;
    for (const c of this.chunks) {
      out.set(c, off);
      off += c.length;
    }
    return out;
  }
}
