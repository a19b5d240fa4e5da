/**
 * The Poseidon8 implementation the service uses. Swap the import here to change kernels; every
 * kernel must reproduce poseidon8-reference.ts bit for bit (test/unit/hash-poseidon8.test.ts,
 * test/unit/hash-kernel.test.ts).
 *
 * Default: the WebAssembly kernel (poseidon8-wasm.ts). If WebAssembly cannot be instantiated
 * (no WebAssembly in the runtime, a policy forbidding it, …), the BigInt kernel is used instead;
 * `poseidon8KernelName` tells which one is active.
 */
import { ALEO_POSEIDON8_DOMAIN } from './domain.js';
import { poseidon8Fast } from './poseidon8-fast.js';
import { createPoseidon8Wasm, type Poseidon8Wasm } from './poseidon8-wasm.js';
import { structFieldElements } from './structFields.js';

/** Poseidon8 over canonical field elements (callers guarantee 0 ≤ x < p). */
export type Poseidon8Kernel = (domain: bigint, input: readonly bigint[]) => bigint;

function loadWasm(): Poseidon8Wasm | null {
  try {
    return createPoseidon8Wasm();
  } catch {
    return null;
  }
}

const wasm = loadWasm();

export const poseidon8KernelName: 'wasm' | 'bigint' = wasm === null ? 'bigint' : 'wasm';

export const poseidon8Kernel: Poseidon8Kernel = wasm === null ? poseidon8Fast : (d, input) => wasm.hash(d, input);

/**
 * Field-element hash (AleoPoseidon8) of `to_fields` of the chunked u128 struct holding `bytes`;
 * equal to `poseidon8Kernel(ALEO_POSEIDON8_DOMAIN, structFieldElements(bytes))` but on the WASM
 * kernel it builds the limbs straight from the bytes (no BigInt). Same length errors.
 */
export const hashStructBytesField: (bytes: Uint8Array) => bigint =
  wasm === null ? (bytes) => poseidon8Fast(ALEO_POSEIDON8_DOMAIN, structFieldElements(bytes)) : (bytes) => wasm.hashStruct(bytes);
