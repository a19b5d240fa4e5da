/**
 * snarkVM's BHP hash (`console/algorithms/src/bhp`), the hash of Aleo's Merkle trees and block
 * hashes. Its bases: window i's base is hash-to-curve of "Aleo.BHP.{windows}.{size}.{domain}.{i}",
 * followed by its 16th, 256th, … multiples. Each 3-bit chunk c of the preimage selects
 * ±(1 + c0 + 2·c1)·base (minus when c2); the hash is the sum's x-coordinate.
 *
 * A preimage is [0…0 ‖ domain (188 bits, reversed) ‖ input length (u64) ‖ input…]; inputs longer
 * than one round continue with [previous x (252 bits) ‖ next input bits].
 */
import { addAffineInPlace, double, identity, negate, add, toAffineAll, xCoordinate, type Affine, type Extended } from './curve.js';
import { hashToCurve } from './hashToCurve.js';

const CHUNK = 3;
/** Field::size_in_data_bits for the BLS12-377 scalar field. */
const DATA_BITS = 252;
const DOMAIN_BITS = DATA_BITS - 64;

export interface BhpParameters {
  readonly name: string;
  readonly windows: number;
  readonly windowSize: number;
}

/** Mainnet's four hashers (snarkVM `console/network/src/mainnet_v0.rs`). */
export const BHP256: BhpParameters = { name: 'AleoBHP256', windows: 3, windowSize: 57 };
export const BHP512: BhpParameters = { name: 'AleoBHP512', windows: 6, windowSize: 43 };
export const BHP768: BhpParameters = { name: 'AleoBHP768', windows: 15, windowSize: 23 };
export const BHP1024: BhpParameters = { name: 'AleoBHP1024', windows: 8, windowSize: 54 };

export interface BhpTables {
  readonly params: BhpParameters;
  /** 8 affine points per chunk position, chunk-major: lookup[8·j + c]. */
  readonly lookup: readonly Affine[];
  /** The domain prefix: 188 bits, reversed as snarkVM stores it. */
  readonly domainBits: Uint8Array;
  readonly hasherBits: number;
}

function domainBits(domain: string): Uint8Array {
  const bytes = new TextEncoder().encode(domain);
  if (bytes.length * 8 > DOMAIN_BITS) throw new RangeError(`BHP domain "${domain}" exceeds ${DOMAIN_BITS} bits`);
  const bits = new Uint8Array(DOMAIN_BITS);
  for (let i = 0; i < bytes.length * 8; i++) bits[i] = ((bytes[i >> 3] as number) >> (i & 7)) & 1;
  return bits.reverse();
}

/** The lookup tables of one hasher (computed once: ≈ 3 500 points for BHP1024). */
export function buildTables(params: BhpParameters): BhpTables {
  const { windows, windowSize, name } = params;
  const points: Extended[] = [];
  for (let w = 0; w < windows; w++) {
    let base = hashToCurve(`Aleo.BHP.${windows}.${windowSize}.${name}.${w}`);
    for (let j = 0; j < windowSize; j++) {
      const twice = double(base);
      for (let c = 0; c < 8; c++) {
        let e = base;
        if (c & 1) e = add(e, base);
        if (c & 2) e = add(e, twice);
        if (c & 4) e = negate(e);
        points.push(e);
      }
      for (let k = 0; k < 4; k++) base = double(base);
    }
  }
  return { params, lookup: toAffineAll(points), domainBits: domainBits(name), hasherBits: windows * windowSize * CHUNK };
}

/** One round of the inner hasher: the group sum selected by `bits` (length in (size·3, max]). */
function hashRound(t: BhpTables, bits: Uint8Array, length: number): Extended {
  const acc = identity();
  const { lookup } = t;
  for (let j = 0, i = 0; i < length; j++, i += CHUNK) {
    const c = (bits[i] as number) | ((bits[i + 1] ?? 0) << 1) | ((bits[i + 2] ?? 0) << 2);
    addAffineInPlace(acc, lookup[8 * j + c] as Affine);
  }
  return acc;
}

/** Throws unless every byte of `bits` is 0 or 1 (the native kernel refuses the same inputs). */
export function checkBits(bits: Uint8Array): void {
  let any = 0;
  for (let i = 0; i < bits.length; i++) any |= bits[i] as number;
  if ((any & 0xfe) !== 0) throw new RangeError('BHP: a bit is neither 0 nor 1');
}

/**
 * One round on its whole preimage (the domain and length, or the previous x, already in it; at
 * most hasherBits bits) → the x-coordinate of the sum. What native/bhp.c's bhp_hash_round does.
 */
export function bhpRoundX(t: BhpTables, preimage: Uint8Array): bigint {
  if (preimage.length > t.hasherBits) throw new RangeError(`BHP: a round of ${t.params.name} takes at most ${t.hasherBits} bits, got ${preimage.length}`);
  checkBits(preimage);
  return xCoordinate(hashRound(t, preimage, preimage.length));
}

/** BHP hash of a bit string (one byte per bit, 0 or 1) → the field element (x-coordinate). */
export function bhpHashBits(t: BhpTables, input: Uint8Array): bigint {
  checkBits(input);
  if (input.length === 0) return 0n; // snarkVM runs no round: the identity, whose x is 0
  const perRound = t.hasherBits - DATA_BITS;
  const preimage = new Uint8Array(t.hasherBits + CHUNK);
  let digest: Extended | null = null;
  let x = 0n;
  const rounds = Math.max(1, Math.ceil(input.length / perRound));
  for (let r = 0; r < rounds; r++) {
    const chunk = input.subarray(r * perRound, (r + 1) * perRound);
    let n = 0;
    if (r === 0) {
      preimage.set(t.domainBits, 0);
      n = DOMAIN_BITS;
      let len = BigInt(input.length);
      for (let i = 0; i < 64; i++, len >>= 1n) preimage[n++] = Number(len & 1n);
    } else {
      let v = x;
      for (let i = 0; i < DATA_BITS; i++, v >>= 1n) preimage[n++] = Number(v & 1n);
    }
    preimage.set(chunk, n);
    n += chunk.length;
    preimage.fill(0, n);
    digest = hashRound(t, preimage, n);
    x = xCoordinate(digest);
  }
  return x;
}
