/**
 * Arithmetic in the base field of Aleo's twisted Edwards curve: the BLS12-377 scalar field
 * (the Aleo `field` type), on canonical BigInts in [0, p).
 */
import { FIELD_MODULUS, powMod } from '../field.js';

export { powMod };

export const P = FIELD_MODULUS;

export function mod(a: bigint): bigint {
  const r = a % P;
  return r < 0n ? r + P : r;
}


/** a^-1 mod p (Fermat); 0 has none. */
export function invert(a: bigint): bigint {
  if (a === 0n) throw new RangeError('0 has no inverse');
  return powMod(a, P - 2n);
}

/** Inverses of every element of `xs` (none zero) with one exponentiation (Montgomery's trick). */
export function invertAll(xs: readonly bigint[]): bigint[] {
  const prefix: bigint[] = new Array<bigint>(xs.length);
  let acc = 1n;
  for (let i = 0; i < xs.length; i++) {
    prefix[i] = acc;
    acc = (acc * (xs[i] as bigint)) % P;
  }
  let inv = invert(acc);
  const out: bigint[] = new Array<bigint>(xs.length);
  for (let i = xs.length - 1; i >= 0; i--) {
    out[i] = (inv * (prefix[i] as bigint)) % P;
    inv = (inv * (xs[i] as bigint)) % P;
  }
  return out;
}

// p − 1 = 2^S · Q with Q odd (S = 47 for this field).
const { S, Q } = (() => {
  let q = P - 1n;
  let s = 0n;
  while ((q & 1n) === 0n) {
    q >>= 1n;
    s += 1n;
  }
  return { S: s, Q: q };
})();

function findNonResidue(): bigint {
  for (let z = 2n; ; z++) if (powMod(z, (P - 1n) / 2n) === P - 1n) return z;
}
const Z = findNonResidue();

/** A square root of a (Tonelli–Shanks), or null when a is not a square. Which root is unspecified. */
export function sqrt(a: bigint): bigint | null {
  const n = mod(a);
  if (n === 0n) return 0n;
  if (powMod(n, (P - 1n) / 2n) !== 1n) return null;
  let m = S;
  let c = powMod(Z, Q);
  let t = powMod(n, Q);
  let r = powMod(n, (Q + 1n) / 2n);
  while (t !== 1n) {
    let i = 0n;
    let t2 = t;
    while (t2 !== 1n) {
      t2 = (t2 * t2) % P;
      i++;
    }
    const b = powMod(c, 1n << (m - i - 1n));
    m = i;
    c = (b * b) % P;
    t = (t * c) % P;
    r = (r * b) % P;
  }
  return r;
}
