/**
 * The Poseidon8 implementation the service uses; every kernel must reproduce
 * poseidon8-reference.ts bit for bit (test/unit/hash-poseidon8.test.ts, hash-kernel.test.ts,
 * hash-native.test.ts).
 *
 * Selection, once per thread at import:
 *   1. the native kernel (poseidon8-native.ts) when its addon was built and loads, unless
 *      VERIFIER_HASH_BACKEND=wasm;
 *   2. else the WebAssembly kernel (poseidon8-wasm.ts);
 *   3. else, when the runtime has no WebAssembly (`node --jitless`, …), the BigInt reference
 *      (poseidon8-reference.ts; ≈ 8× slower than WASM, see BENCHMARKS.md), so that the service
 *      still starts and gives the same hashes. It adds no code: src/hash/index.ts exports the
 *      reference anyway.
 * `poseidon8KernelName` tells which one is active and `poseidon8KernelReason` why.
 */
import { ALEO_POSEIDON8_DOMAIN } from './domain.js';
import { createPoseidon8Native } from './poseidon8-native.js';
import { poseidon8 } from './poseidon8-reference.js';
import { createPoseidon8Wasm } from './poseidon8-wasm.js';
import { structFieldElements } from './structFields.js';

/** Poseidon8 over canonical field elements (callers guarantee 0 ≤ x < p). */
export type Poseidon8Kernel = (domain: bigint, input: readonly bigint[]) => bigint;

export type Poseidon8KernelName = 'native' | 'wasm' | 'bigint';

/** The environment variable that forces the WASM kernel (`wasm`); any other value or unset: auto. */
export const HASH_BACKEND_ENV = 'VERIFIER_HASH_BACKEND';

interface Loaded {
  readonly name: Poseidon8KernelName;
  readonly reason: string;
  readonly hash: Poseidon8Kernel;
  readonly hashStruct: (bytes: Uint8Array) => bigint;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/**
 * Picks the kernel for `backend` (the value of VERIFIER_HASH_BACKEND); `addonPath` (tests) points
 * at another addon file. Exported for tests.
 */
export function selectPoseidon8Kernel(backend: string | undefined, addonPath?: string): Loaded {
  let notNative: string;
  if (backend === 'wasm') {
    notNative = `${HASH_BACKEND_ENV}=wasm`;
  } else {
    try {
      const n = createPoseidon8Native(addonPath);
      return { name: 'native', reason: 'native addon loaded', hash: n.hash, hashStruct: n.hashStruct };
    } catch (e) {
      notNative = `native addon unavailable: ${message(e)}`;
    }
  }
  try {
    const w = createPoseidon8Wasm();
    return { name: 'wasm', reason: notNative, hash: (d, input) => w.hash(d, input), hashStruct: (bytes) => w.hashStruct(bytes) };
  } catch (e) {
    return {
      name: 'bigint',
      reason: `${notNative}; WebAssembly unavailable: ${message(e)}`,
      hash: poseidon8,
      hashStruct: (bytes) => poseidon8(ALEO_POSEIDON8_DOMAIN, structFieldElements(bytes)),
    };
  }
}

const loaded = selectPoseidon8Kernel(process.env[HASH_BACKEND_ENV]);

export const poseidon8KernelName: Poseidon8KernelName = loaded.name;

/** Why this kernel (e.g. "VERIFIER_HASH_BACKEND=wasm", "native addon unavailable: …"). */
export const poseidon8KernelReason: string = loaded.reason;

export const poseidon8Kernel: Poseidon8Kernel = loaded.hash;

/**
 * Field-element hash (AleoPoseidon8) of `to_fields` of the chunked u128 struct holding `bytes`;
 * equal to `poseidon8Kernel(ALEO_POSEIDON8_DOMAIN, structFieldElements(bytes))` but the native
 * and WASM kernels build their limbs straight from the bytes (no BigInt). Same length errors.
 */
export const hashStructBytesField: (bytes: Uint8Array) => bigint = loaded.hashStruct;
