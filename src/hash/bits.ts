/**
 * Building blocks of snarkVM's `Plaintext::to_bits_le` for structs of u128 literals, and the
 * packing of a bit string into field elements (`to_fields`).
 *
 *   struct  = variant bits (0,1) | member count (8 bits) | members…
 *   member  = name length in bits (8 bits) | name ASCII bytes | member bit length (16 bits) | member bits
 *   u128    = variant bits (0,0) | type id 13 (8 bits) | 128 (16 bits) | value (128 bits)
 *   fields  = bits ++ [1], cut into 252-bit little-endian pieces (the last one short)
 */

/** Data bits per field element in `to_fields` (BLS12-377 scalar field capacity). */
export const FIELD_DATA_BITS = 252;
export const U128_BITS = 128;
export const U128_LITERAL_BITS = 2 + 8 + 16 + U128_BITS; // 154
const U128_TYPE_ID = 13;

/** Little-endian bit accumulator (one number per bit; only used to build small/constant strings). */
export class BitWriter {
  readonly bits: number[] = [];

  get length(): number {
    return this.bits.length;
  }

  /** Appends the low `count` bits of `value` (count ≤ 32), LSB first. */
  push(value: number, count: number): void {
    for (let i = 0; i < count; i++) this.bits.push((value >>> i) & 1);
  }

  pushBigInt(value: bigint, count: number): void {
    for (let i = 0; i < count; i++) this.bits.push(Number((value >> BigInt(i)) & 1n));
  }

  append(other: BitWriter): void {
    for (const b of other.bits) this.bits.push(b);
  }

  structHeader(memberCount: number): void {
    this.push(0, 1);
    this.push(1, 1);
    this.push(memberCount, 8);
  }

  memberHeader(name: string, memberBits: number): void {
    this.push(name.length * 8, 8);
    for (let i = 0; i < name.length; i++) this.push(name.charCodeAt(i), 8);
    this.push(memberBits, 16);
  }

  /** Writes a u128 literal; returns the bit offset of its value bits. */
  u128Literal(value: bigint): number {
    this.push(0, 2);
    this.push(U128_TYPE_ID, 8);
    this.push(U128_BITS, 16);
    const offset = this.length;
    this.pushBigInt(value, U128_BITS);
    return offset;
  }
}

/** Appends the terminating 1 bit and packs into 252-bit little-endian field elements. */
export function packFields(w: BitWriter): bigint[] {
  const bits = [...w.bits, 1];
  const count = Math.ceil(bits.length / FIELD_DATA_BITS);
  const out: bigint[] = [];
  for (let k = 0; k < count; k++) {
    let x = 0n;
    const end = Math.min(bits.length, (k + 1) * FIELD_DATA_BITS);
    for (let i = end - 1; i >= k * FIELD_DATA_BITS; i--) x = (x << 1n) | BigInt(bits[i] as number);
    out.push(x);
  }
  return out;
}
