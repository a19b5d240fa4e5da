/**
 * The BLS12-377 scalar field (the Aleo "field" type) as canonical BigInts in [0, p).
 */
import { VerifierError } from '../errors.js';
import type { HashCode } from './errors.js';
import { POSEIDON8_MODULUS } from '../generated/poseidonParams.js';

export const FIELD_MODULUS: bigint = POSEIDON8_MODULUS;

const U128_MASK = (1n << 128n) - 1n;

/** Throws HASH_FIELD_OUT_OF_RANGE unless 0 ≤ x < p. `what` names the value in the message. */
export function assertFieldElement(x: bigint, what: string): void {
  if (typeof x !== 'bigint' || x < 0n || x >= FIELD_MODULUS) {
    throw new VerifierError<HashCode>(
      'HASH_FIELD_OUT_OF_RANGE',
      `${what} is not a canonical field element (0 ≤ x < p): ${String(x)}`,
    );
  }
}

/** base^exp mod p, by square-and-multiply (base any integer, exp ≥ 0). */
export function powMod(base: bigint, exp: bigint): bigint {
  let result = 1n;
  let b = ((base % FIELD_MODULUS) + FIELD_MODULUS) % FIELD_MODULUS;
  let e = exp;
  while (e > 0n) {
    if (e & 1n) result = (result * b) % FIELD_MODULUS;
    b = (b * b) % FIELD_MODULUS;
    e >>= 1n;
  }
  return result;
}

/** The lossy cast `field as u128`: the lowest 128 bits of the canonical representative. */
export function fieldToU128(x: bigint): bigint {
  return x & U128_MASK;
}

/** 16-byte little-endian encoding of a u128 (0 ≤ v < 2^128). */
export function u128ToLeBytes(v: bigint): Uint8Array {
  if (v < 0n || v > U128_MASK) throw new RangeError(`u128 out of range: ${v}`);
  const out = new Uint8Array(16);
  const dv = new DataView(out.buffer);
  dv.setBigUint64(0, v & 0xffff_ffff_ffff_ffffn, true);
  dv.setBigUint64(8, v >> 64n, true);
  return out;
}

/** The integer whose little-endian bytes are the ASCII/UTF-8 bytes of `text` (a Poseidon domain). */
export function domainFromText(text: string): bigint {
  const bytes = new TextEncoder().encode(text);
  let x = 0n;
  for (let i = bytes.length - 1; i >= 0; i--) x = (x << 8n) | BigInt(bytes[i] as number);
  if (x >= FIELD_MODULUS) throw new RangeError(`domain "${text}" does not fit in a field element`);
  return x;
}
