/**
 * The Poseidon8 implementation the service uses. Swap the import here to change kernels; every
 * kernel must reproduce poseidon8-reference.ts bit for bit (test/unit/hash-poseidon8.test.ts).
 */
import { poseidon8Fast } from './poseidon8-fast.js';

/** Poseidon8 over canonical field elements (callers guarantee 0 ≤ x < p). */
export type Poseidon8Kernel = (domain: bigint, input: readonly bigint[]) => bigint;

export const poseidon8Kernel: Poseidon8Kernel = poseidon8Fast;
