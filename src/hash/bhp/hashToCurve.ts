/**
 * snarkVM `Blake2Xs::hash_to_curve` for the Edwards curve: for k = 0, 1, …, take the 32 bytes of
 * BLAKE2Xs("{input} in {k}", persona "AleoHtC0"), read them as a field element with the top bit as
 * the y-sign flag (`from_random_bytes_with_flags`, EdwardsFlags), lift x to a point, clear the
 * cofactor (×4), and keep the first that is not the identity.
 */
import { blake2xs } from './blake2xs.js';
import { double, fromXCoordinate, isIdentity, type Extended } from './curve.js';
import { P } from './field.js';

const PERSONA = new TextEncoder().encode('AleoHtC0');
/** The compressed size of an Edwards point: one 253-bit coordinate and a flag bit. */
const SERIALIZED_SIZE = 32;
/** Bits 253..255 of the last byte hold no data (REPR_SHAVE_BITS = 3). */
const LAST_BYTE_MASK = 0x1f;
const FLAG_BIT = 0x80;

function tryHashToCurve(message: string): Extended | null {
  const digest = blake2xs(new TextEncoder().encode(message), SERIALIZED_SIZE, PERSONA);
  const positive = ((digest[SERIALIZED_SIZE - 1] as number) & FLAG_BIT) !== 0;
  digest[SERIALIZED_SIZE - 1] = (digest[SERIALIZED_SIZE - 1] as number) & LAST_BYTE_MASK;
  let x = 0n;
  for (let i = SERIALIZED_SIZE - 1; i >= 0; i--) x = (x << 8n) | BigInt(digest[i] as number);
  if (x >= P) return null; // not a canonical field element: deserialisation fails
  if (x === 0n) return null; // parses as the identity, which is rejected
  const point = fromXCoordinate(x, positive);
  if (point === null) return null;
  const cleared = double(double(point));
  return isIdentity(cleared) ? null : cleared;
}

export function hashToCurve(input: string): Extended {
  for (let k = 0; k < 128; k++) {
    const point = tryHashToCurve(`${input} in ${k}`);
    if (point !== null) return point;
  }
  throw new Error(`unable to hash to curve on ${input}`);
}
