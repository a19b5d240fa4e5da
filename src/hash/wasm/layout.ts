/**
 * Memory layout shared by the WASM module generator (scripts/poseidon8-wasm/poseidon8-module.ts,
 * build time) and its JS driver (src/hash/poseidon8-wasm.ts). Units: field elements of ELEM_BYTES
 * (9 u32 limbs); `byteOf` converts.
 */
import { ELEM_BYTES } from '../limbs.js';
import { POSEIDON8_FULL_ROUNDS, POSEIDON8_PARTIAL_ROUNDS } from '../../generated/poseidonParams.js';

export const WIDTH = 9;
export const HALF_FULL = POSEIDON8_FULL_ROUNDS / 2;
export const PARTIAL = POSEIDON8_PARTIAL_ROUNDS;

export const E_STATE = 0; // 9: the permutation state (Montgomery form)
export const E_TMP = 9; // 9
export const E_SCR = 18; // 6 scratch elements
export const E_OUT = 24; // squeeze output (canonical or p)
export const E_R2 = 25; // R² mod p (plain) — multiplying by it enters Montgomery form
export const E_ONE = 26; // the integer 1 — multiplying by it leaves Montgomery form
export const E_FULL_ARK = 32; // 8 × 9
export const E_MDS = E_FULL_ARK + POSEIDON8_FULL_ROUNDS * WIDTH; // 9 × 9, row-major
export const E_PCONST = E_MDS + WIDTH * WIDTH; // 31
export const E_PROW = E_PCONST + PARTIAL; // 31 × 9
export const E_PCOL = E_PROW + PARTIAL * WIDTH; // 31 × 8
export const E_FINAL = E_PCOL + PARTIAL * (WIDTH - 1); // 8 × 8, row-major
export const E_MDS_W = E_FINAL + (WIDTH - 1) * (WIDTH - 1); // 9 × 2: Q − C_i as 18 limbs per row
export const E_SUMS = E_MDS_W + 2 * WIDTH; // 8 scratch elements (pairwise sums)
export const E_YW = E_SUMS + 8; // 2 elements: Q − Y as 18 limbs
export const E_INPUT = E_YW + 2; // input elements (canonical limbs)

export const byteOf = (e: number): number => e * ELEM_BYTES;

export const INITIAL_PAGES = 2;
