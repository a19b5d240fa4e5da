/**
 * Aleo's twisted Edwards curve over the BLS12-377 scalar field ("EdwardsBLS12" in snarkVM
 * `curves/src/edwards_bls12`): a·x² + y² = 1 + d·x²·y² with a = −1, d = 3021, cofactor 4.
 * Points in extended coordinates (X : Y : Z : T), x = X/Z, y = Y/Z, x·y = T/Z.
 */
import { invert, invertAll, mod, P, sqrt } from './field.js';

export const EDWARDS_D = 3021n;
const D2 = (2n * EDWARDS_D) % P;

export interface Extended {
  x: bigint;
  y: bigint;
  z: bigint;
  t: bigint;
}

/** An affine point kept with 2·d·x·y, the form a mixed addition wants. */
export interface Affine {
  readonly x: bigint;
  readonly y: bigint;
  readonly t2d: bigint;
}

export const IDENTITY: Readonly<Extended> = Object.freeze({ x: 0n, y: 1n, z: 1n, t: 0n });

export function identity(): Extended {
  return { x: 0n, y: 1n, z: 1n, t: 0n };
}

export function fromAffineXY(x: bigint, y: bigint): Extended {
  return { x, y, z: 1n, t: (x * y) % P };
}

/** Unified addition (add-2008-hwcd-3 for a = −1); handles doubling and the identity. */
export function add(p: Extended, q: Extended): Extended {
  const a = ((p.y - p.x) * (q.y - q.x)) % P;
  const b = ((p.y + p.x) * (q.y + q.x)) % P;
  const c = (((p.t * D2) % P) * q.t) % P;
  const d = (2n * p.z * q.z) % P;
  const e = b - a;
  const f = d - c;
  const g = d + c;
  const h = b + a;
  return { x: mod(e * f), y: mod(g * h), z: mod(f * g), t: mod(e * h) };
}

/** p += q for an affine q, in place (7 multiplications). */
export function addAffineInPlace(p: Extended, q: Affine): void {
  const a = ((p.y - p.x) * (q.y - q.x)) % P;
  const b = ((p.y + p.x) * (q.y + q.x)) % P;
  const c = (p.t * q.t2d) % P;
  const d = (2n * p.z) % P;
  const e = b - a;
  const f = d - c;
  const g = d + c;
  const h = b + a;
  p.x = (e * f) % P;
  p.y = (g * h) % P;
  p.z = (f * g) % P;
  p.t = (e * h) % P;
}

export function double(p: Extended): Extended {
  return add(p, p);
}

export function negate(p: Extended): Extended {
  return { x: mod(-p.x), y: p.y, z: p.z, t: mod(-p.t) };
}

export function isIdentity(p: Extended): boolean {
  return mod(p.x) === 0n && mod(p.y - p.z) === 0n;
}

/** Affine x-coordinate (the BHP output). */
export function xCoordinate(p: Extended): bigint {
  return mod(mod(p.x) * invert(mod(p.z)));
}

/** Affine forms of many points with one inversion. */
export function toAffineAll(points: readonly Extended[]): Affine[] {
  const inv = invertAll(points.map((p) => mod(p.z)));
  return points.map((p, i) => {
    const zi = inv[i] as bigint;
    const x = mod(p.x * zi);
    const y = mod(p.y * zi);
    return { x, y, t2d: (((x * y) % P) * D2) % P };
  });
}

export function isOnCurve(x: bigint, y: bigint): boolean {
  const x2 = (x * x) % P;
  const y2 = (y * y) % P;
  return mod(-x2 + y2 - 1n - ((EDWARDS_D * x2) % P) * y2) === 0n;
}

/**
 * snarkVM `AffineCurve::from_x_coordinate`: y = ±sqrt((a·x² − 1) / (d·x² − 1)), the larger of the
 * two (as integers) when `greatest`, else the smaller. null when x is on no point.
 */
export function fromXCoordinate(x: bigint, greatest: boolean): Extended | null {
  const x2 = (x * x) % P;
  const num = mod(-x2 - 1n);
  const den = mod(EDWARDS_D * x2 - 1n);
  if (den === 0n) return null;
  const root = sqrt((num * invert(den)) % P);
  if (root === null) return null;
  const neg = mod(-root);
  const y = (root < neg) !== greatest ? root : neg;
  return fromAffineXY(x, y);
}
