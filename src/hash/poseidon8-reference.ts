/**
 * Reference Poseidon8 (plain BigInt, textbook round structure). Clear rather than fast; the
 * production kernels (native, WASM) are checked against it, and kernel.ts falls back to it when
 * neither can run.
 *
 * Round r (0 ≤ r < 39): add ARK[r]; S-box x^17 on all 9 elements in the 4 first and 4 last
 * (full) rounds, on element 0 only in the 31 middle (partial) rounds; multiply by the MDS.
 */
import { assertFieldElement, FIELD_MODULUS, powMod } from './field.js';
import {
  POSEIDON8_ALPHA,
  POSEIDON8_ARK,
  POSEIDON8_FULL_ROUNDS,
  POSEIDON8_MDS,
  POSEIDON8_PARTIAL_ROUNDS,
} from '../generated/poseidonParams.js';
import { POSEIDON8_WIDTH, spongeHash } from './sponge.js';

const P = FIELD_MODULUS;
const ALPHA = BigInt(POSEIDON8_ALPHA);
const HALF_FULL = POSEIDON8_FULL_ROUNDS / 2;
const ROUNDS = POSEIDON8_FULL_ROUNDS + POSEIDON8_PARTIAL_ROUNDS;

/** In-place Poseidon8 permutation of a 9-element state. */
export function permuteReference(state: bigint[]): void {
  for (let r = 0; r < ROUNDS; r++) {
    const ark = POSEIDON8_ARK[r] as readonly bigint[];
    const full = r < HALF_FULL || r >= ROUNDS - HALF_FULL;
    for (let i = 0; i < POSEIDON8_WIDTH; i++) {
      const x = ((state[i] as bigint) + (ark[i] as bigint)) % P;
      state[i] = full || i === 0 ? powMod(x, ALPHA) : x;
    }
    const old = state.slice();
    for (let i = 0; i < POSEIDON8_WIDTH; i++) {
      const row = POSEIDON8_MDS[i] as readonly bigint[];
      let acc = 0n;
      for (let j = 0; j < POSEIDON8_WIDTH; j++) acc += (row[j] as bigint) * (old[j] as bigint);
      state[i] = acc % P;
    }
  }
}

/** Poseidon8 hash (one field element) of `input` under `domain`; every value must be in [0, p). */
export function poseidon8(domain: bigint, input: readonly bigint[]): bigint {
  assertFieldElement(domain, 'Poseidon8 domain');
  input.forEach((x, i) => assertFieldElement(x, `Poseidon8 input[${i}]`));
  return spongeHash(domain, input, permuteReference);
}
