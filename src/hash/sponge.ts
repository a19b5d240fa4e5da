/**
 * The Poseidon8 duplex sponge as used by snarkVM's `hash` (one output element).
 * State = [capacity, rate_0 … rate_7]. The preimage [domain, len(input), 0 × 6] ++ input is added
 * into the rate part 8 elements at a time; the permutation runs only when a ninth element must be
 * absorbed (lazy), and once more to squeeze; the output is state element 1 (first rate element).
 */
import { POSEIDON8_CAPACITY, POSEIDON8_RATE } from '../generated/poseidonParams.js';
import { FIELD_MODULUS } from './field.js';

export const POSEIDON8_WIDTH = POSEIDON8_RATE + POSEIDON8_CAPACITY;

/** An in-place permutation of a 9-element state of canonical field elements. */
export type Permutation = (state: bigint[]) => void;

/** Inputs must be canonical field elements (checked by the callers that take untrusted input). */
export function spongeHash(domain: bigint, input: readonly bigint[], permute: Permutation): bigint {
  const p = FIELD_MODULUS;
  const state: bigint[] = new Array<bigint>(POSEIDON8_WIDTH).fill(0n);
  // Prefix block [domain, len, 0, 0, 0, 0, 0, 0] added to a zero state.
  state[POSEIDON8_CAPACITY] = domain;
  state[POSEIDON8_CAPACITY + 1] = BigInt(input.length) % p;
  let next = POSEIDON8_RATE; // rate slots already filled in the current block
  for (let i = 0; i < input.length; i++) {
    if (next === POSEIDON8_RATE) {
      permute(state);
      next = 0;
    }
    const k = POSEIDON8_CAPACITY + next;
    const s = (state[k] as bigint) + (input[i] as bigint);
    state[k] = s >= p ? s - p : s;
    next++;
  }
  permute(state);
  return state[POSEIDON8_CAPACITY] as bigint;
}
