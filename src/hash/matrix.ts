/** Small dense matrix helpers over the scalar field (used once, to derive optimised constants). */
import { FIELD_MODULUS } from './field.js';

export type Matrix = bigint[][];

const P = FIELD_MODULUS;

export function modP(x: bigint): bigint {
  const r = x % P;
  return r < 0n ? r + P : r;
}

export function invMod(x: bigint): bigint {
  // Extended Euclid; x must be non-zero mod p.
  let a = modP(x);
  if (a === 0n) throw new RangeError('inverse of zero');
  let b = P;
  let u = 1n;
  let v = 0n;
  while (a !== 1n) {
    const q = b / a;
    [a, b] = [b - q * a, a];
    [u, v] = [v - q * u, u];
  }
  return modP(u);
}

export function identity(n: number): Matrix {
  return Array.from({ length: n }, (_, i) => Array.from({ length: n }, (_, j) => (i === j ? 1n : 0n)));
}

export function transpose(a: Matrix): Matrix {
  return (a[0] ?? []).map((_, j) => a.map((row) => row[j] as bigint));
}

export function matMul(a: Matrix, b: Matrix): Matrix {
  const n = a.length;
  const m = (b[0] as bigint[]).length;
  const k = b.length;
  return Array.from({ length: n }, (_, i) =>
    Array.from({ length: m }, (_, j) => {
      let acc = 0n;
      for (let t = 0; t < k; t++) acc += (a[i] as bigint[])[t]! * (b[t] as bigint[])[j]!;
      return acc % P;
    }),
  );
}

export function matVec(a: Matrix, x: readonly bigint[]): bigint[] {
  return a.map((row) => {
    let acc = 0n;
    for (let j = 0; j < row.length; j++) acc += (row[j] as bigint) * (x[j] as bigint);
    return acc % P;
  });
}

/** a^e for e ≥ 0 by square-and-multiply. */
export function matPow(a: Matrix, e: number): Matrix {
  let result = identity(a.length);
  let base = a;
  for (let k = e; k > 0; k >>= 1) {
    if (k & 1) result = matMul(result, base);
    if (k > 1) base = matMul(base, base);
  }
  return result;
}

/** Gauss–Jordan inverse mod p; throws if singular. */
export function matInv(a: Matrix): Matrix {
  const n = a.length;
  const m = a.map((row, i) => [...row.map(modP), ...(identity(n)[i] as bigint[])]);
  for (let col = 0; col < n; col++) {
    const pivot = m.findIndex((row, r) => r >= col && (row[col] as bigint) !== 0n);
    if (pivot < 0) throw new RangeError('singular matrix');
    [m[col], m[pivot]] = [m[pivot] as bigint[], m[col] as bigint[]];
    const pr = m[col] as bigint[];
    const inv = invMod(pr[col] as bigint);
    for (let j = 0; j < 2 * n; j++) pr[j] = ((pr[j] as bigint) * inv) % P;
    for (let r = 0; r < n; r++) {
      if (r === col) continue;
      const row = m[r] as bigint[];
      const f = row[col] as bigint;
      if (f === 0n) continue;
      for (let j = 0; j < 2 * n; j++) row[j] = modP((row[j] as bigint) - f * (pr[j] as bigint));
    }
  }
  return m.map((row) => row.slice(n));
}
