/**
 * Optimised Poseidon8 constants for the partial rounds, derived from ARK and MDS (not stored).
 *
 * Partial round i: x ← M · S0(x + c_i), S0 = S-box on element 0 only.
 * (1) Constants: c_i = c_i[0]·e0 + rest_i; rest_i commutes with S0, so M·rest_i is carried into
 *     the next round's constant. Partial rounds keep a scalar constant on element 0; the final carry
 *     lands in the first full round after them.
 * (2) Matrices: with M = [[m00, vᵀ], [w, M̂]], the product A_i = M·diag(1, Â_{i−1}) (Â_{−1} = I)
 *     factors as diag(1, Â_i) · [[m00, vᵀÂ_{i−1}], [Â_i⁻¹w, I]] with Â_i = M̂^{i+1}. diag(1, Â_i)
 *     commutes with S0 and with a scalar constant on element 0, so it is deferred to the next
 *     round; each partial round applies only the sparse factor (17 products instead of 81) and the
 *     last deferred diag(1, M̂^31) is applied once after the partial rounds.
 */
import { FIELD_MODULUS } from './field.js';
import { matInv, matPow, matVec, transpose, type Matrix } from './matrix.js';
import { POSEIDON8_ARK, POSEIDON8_FULL_ROUNDS, POSEIDON8_MDS, POSEIDON8_PARTIAL_ROUNDS } from '../generated/poseidonParams.js';

export interface SparseParams {
  /** Round constants of the full rounds (4 + 4 rows of 9); row 4 includes the carried constants. */
  readonly fullArk: readonly (readonly bigint[])[];
  /** Scalar constant on element 0 per partial round. */
  readonly partialConst: readonly bigint[];
  /** Per partial round: first row of the sparse factor (9 values). */
  readonly partialRow: readonly (readonly bigint[])[];
  /** Per partial round: first column, elements 1..8, of the sparse factor (8 values). */
  readonly partialCol: readonly (readonly bigint[])[];
  /** The deferred 8×8 block applied to elements 1..8 after the last partial round. */
  readonly finalBlock: readonly (readonly bigint[])[];
}

export function deriveSparseParams(): SparseParams {
  const P = FIELD_MODULUS;
  const half = POSEIDON8_FULL_ROUNDS / 2;
  const M: Matrix = POSEIDON8_MDS.map((r) => r.slice());
  const width = M.length;
  const m00 = (M[0] as bigint[])[0] as bigint;
  const v = (M[0] as bigint[]).slice(1);
  const w = M.slice(1).map((r) => r[0] as bigint);
  const Mhat: Matrix = M.slice(1).map((r) => r.slice(1));
  const MhatInv = matInv(Mhat);

  // (1) constants
  const partialConst: bigint[] = [];
  let carry: bigint[] = new Array<bigint>(width).fill(0n);
  for (let i = 0; i < POSEIDON8_PARTIAL_ROUNDS; i++) {
    const ark = POSEIDON8_ARK[half + i] as readonly bigint[];
    const t = ark.map((c, j) => (c + (carry[j] as bigint)) % P);
    partialConst.push(t[0] as bigint);
    carry = matVec(M, [0n, ...t.slice(1)]);
  }
  const fullArk = [
    ...POSEIDON8_ARK.slice(0, half).map((r) => r.slice()),
    ...POSEIDON8_ARK.slice(half + POSEIDON8_PARTIAL_ROUNDS).map((r) => r.slice()),
  ];
  fullArk[half] = (fullArk[half] as bigint[]).map((c, j) => (c + (carry[j] as bigint)) % P);

  // (2) matrices: row_i = vᵀ·M̂^i, col_i = M̂^−(i+1)·w, final block M̂^R_P.
  const partialRow: bigint[][] = [];
  const partialCol: bigint[][] = [];
  let row = v;
  let col = w;
  for (let i = 0; i < POSEIDON8_PARTIAL_ROUNDS; i++) {
    col = matVec(MhatInv, col);
    partialRow.push([m00, ...row]);
    partialCol.push(col);
    row = matVec(transpose(Mhat), row);
  }
  return { fullArk, partialConst, partialRow, partialCol, finalBlock: matPow(Mhat, POSEIDON8_PARTIAL_ROUNDS) };
}
