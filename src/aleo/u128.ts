/**
 * Aleo `u128` ↔ 16 little-endian bytes, and the decimal text of a 16-byte LE group.
 */
import { VerifierError } from '../errors.js';
import type { LedgerCode } from './errors.js';

export const MAX_U128: bigint = (1n << 128n) - 1n;
const MASK64 = (1n << 64n) - 1n;

function view(bytes: Uint8Array, offset: number, what: string): DataView {
  if (!Number.isInteger(offset) || offset < 0 || offset + 16 > bytes.length) {
    throw new VerifierError<LedgerCode>(
      'U128_OUT_OF_BOUNDS',
      `${what}: 16 bytes at offset ${offset} do not fit in a buffer of ${bytes.length} bytes`,
    );
  }
  return new DataView(bytes.buffer, bytes.byteOffset + offset, 16);
}

/** Reads the 16 bytes at `offset` as a little-endian u128. */
export function u128FromLE(bytes: Uint8Array, offset = 0): bigint {
  const dv = view(bytes, offset, 'u128FromLE');
  return (dv.getBigUint64(8, true) << 64n) | dv.getBigUint64(0, true);
}

/** Writes `v` (0 ≤ v < 2^128) as 16 little-endian bytes into `out` at `offset` (new buffer if omitted). */
export function u128ToLE(v: bigint, out: Uint8Array = new Uint8Array(16), offset = 0): Uint8Array {
  if (typeof v !== 'bigint' || v < 0n || v > MAX_U128) {
    throw new VerifierError<LedgerCode>('U128_OUT_OF_RANGE', `u128ToLE: value ${String(v)} is outside 0 … 2^128-1`);
  }
  const dv = view(out, offset, 'u128ToLE');
  dv.setBigUint64(0, v & MASK64, true);
  dv.setBigUint64(8, v >> 64n, true);
  return out;
}

const TWO32 = 4294967296;
const TWO21 = 2097152;

/** Decimal text (no suffix, no leading zeros) of the little-endian u128 at `offset`. */
export function u128LEToDecimal(bytes: Uint8Array, offset = 0): string {
  return u128DecimalAt(view(bytes, offset, 'u128LEToDecimal'), 0);
}

/**
 * Decimal text of the little-endian u128 at `offset` of `dv` (the caller checks the bounds; lets a
 * formatter reuse one DataView). Values < 2^53 go through a double, larger ones through one BigInt
 * (measured faster than limb long-division in plain numbers: ~250 vs ~350 ns per 39-digit value).
 */
export function u128DecimalAt(dv: DataView, offset: number): string {
  const w1 = dv.getUint32(offset + 4, true);
  if (dv.getUint32(offset + 8, true) === 0 && dv.getUint32(offset + 12, true) === 0 && w1 < TWO21) {
    return String(w1 * TWO32 + dv.getUint32(offset, true));
  }
  return ((dv.getBigUint64(offset + 8, true) << 64n) | dv.getBigUint64(offset, true)).toString();
}
