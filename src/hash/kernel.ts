/**
 * The Poseidon8 implementation the service uses; every kernel must reproduce
 * poseidon8-reference.ts bit for bit (test/unit/hash/poseidon8.test.ts, hash-kernel.test.ts,
 * hash-native.test.ts, hash-kernels-differential.test.ts).
 *
 * Selection, once per thread at import, the first that loads and runs on this CPU:
 *   1. `native-adx`: the native addon's ADX kernel (MULX/ADCX/ADOX; x86-64 with BMI2 and ADX,
 *      detected by the addon with CPUID at run time);
 *   2. `native`: the addon's portable C kernel;
 *   3. `wasm`: the WebAssembly kernel (poseidon8-wasm.ts);
 *   4. `bigint`: when the runtime has no WebAssembly (`node --jitless`, …), the BigInt reference
 *      (poseidon8-reference.ts; ≈ 8× slower than WASM, see BENCHMARKS.md), so that the service
 *      still starts and gives the same hashes. It adds no code: src/hash/index.ts exports the
 *      reference anyway.
 * VERIFIER_HASH_BACKEND=native-adx | native | wasm | bigint starts the list at that kernel (a
 * kernel that cannot run falls through to the next, the reason says why); unset or any other
 * value: the whole list. VERIFIER_HASH_CPU_FEATURES=none makes the CPU count as having none of the
 * features of a CPU-specific kernel (what a CPU without them selects; tests).
 * `poseidon8KernelName` tells which one is active and `poseidon8KernelReason` why.
 */
import { ALEO_POSEIDON8_DOMAIN } from './domain.js';
import { createPoseidon8Native, nativeAddonPath, nativeKernels } from './poseidon8-native.js';
import { poseidon8 } from './poseidon8-reference.js';
import { createPoseidon8Wasm } from './poseidon8-wasm.js';
import { structFieldElements } from './structFields.js';

/** Poseidon8 over canonical field elements (callers guarantee 0 ≤ x < p). */
export type Poseidon8Kernel = (domain: bigint, input: readonly bigint[]) => bigint;

export const POSEIDON8_KERNEL_NAMES = ['native-adx', 'native', 'wasm', 'bigint'] as const;
export type Poseidon8KernelName = (typeof POSEIDON8_KERNEL_NAMES)[number];

/** The environment variable that starts the selection at a kernel (see above); unset: auto. */
export const HASH_BACKEND_ENV = 'VERIFIER_HASH_BACKEND';
/** `none`: the CPU counts as having no feature of a CPU-specific kernel. */
export const HASH_CPU_FEATURES_ENV = 'VERIFIER_HASH_CPU_FEATURES';

interface Loaded {
  readonly name: Poseidon8KernelName;
  readonly reason: string;
  readonly hash: Poseidon8Kernel;
  readonly hashStruct: (bytes: Uint8Array) => bigint;
  readonly hashStructMany: (list: readonly Uint8Array[]) => bigint[];
}

export interface SelectOptions {
  /** Another addon file (tests). */
  addonPath?: string;
  /** `none`: as VERIFIER_HASH_CPU_FEATURES=none. */
  cpuFeatures?: string;
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}

/** Tries one kernel: its Loaded, or why it cannot run. */
function tryKernel(name: Poseidon8KernelName, o: SelectOptions): Omit<Loaded, 'reason'> | string {
  try {
    if (name === 'native-adx' || name === 'native') {
      const path = o.addonPath ?? nativeAddonPath();
      const want = name === 'native-adx' ? 'adx' : 'portable';
      if (want === 'adx') {
        if (o.cpuFeatures === 'none') return `native ADX kernel: CPU features masked (${HASH_CPU_FEATURES_ENV}=none)`;
        if (!nativeKernels(path).includes('adx')) return 'native ADX kernel: this CPU lacks BMI2/ADX (or the addon was built without it)';
      }
      const n = createPoseidon8Native(path, want);
      return { name, hash: n.hash, hashStruct: n.hashStruct, hashStructMany: n.hashStructMany };
    }
    if (name === 'wasm') {
      const w = createPoseidon8Wasm();
      return { name, hash: (d, input) => w.hash(d, input), hashStruct: (bytes) => w.hashStruct(bytes), hashStructMany: (list) => list.map((b) => w.hashStruct(b)) };
    }
  } catch (e) {
    return `${name === 'wasm' ? 'WebAssembly' : 'native addon'} unavailable: ${message(e)}`;
  }
  const hashStruct = (bytes: Uint8Array): bigint => poseidon8(ALEO_POSEIDON8_DOMAIN, structFieldElements(bytes));
  return { name: 'bigint', hash: poseidon8, hashStruct, hashStructMany: (list) => list.map(hashStruct) };
}

/**
 * Picks the kernel for `backend` (the value of VERIFIER_HASH_BACKEND): the first of the list from
 * that kernel on (the whole list if it names none) that runs. Exported for tests.
 */
export function selectPoseidon8Kernel(backend: string | undefined, o: SelectOptions = {}): Loaded {
  const at = POSEIDON8_KERNEL_NAMES.indexOf(backend as Poseidon8KernelName);
  const skipped: string[] = at > 0 ? [`${HASH_BACKEND_ENV}=${backend}`] : [];
  for (const name of POSEIDON8_KERNEL_NAMES.slice(Math.max(at, 0))) {
    const k = tryKernel(name, o);
    if (typeof k !== 'string') {
      const loadedWhy = name === 'native-adx' ? 'native addon loaded; the CPU has BMI2 and ADX' : name === 'native' ? 'native addon loaded' : `${name} kernel`;
      const reason = skipped.length > 0 ? skipped.join('; ') : at === 0 ? `${HASH_BACKEND_ENV}=${backend}` : loadedWhy;
      return { ...k, reason };
    }
    if (!skipped.includes(k)) skipped.push(k);
  }
  throw new Error(`no Poseidon8 kernel: ${skipped.join('; ')}`); // unreachable: bigint always loads
}

const cpuFeatures = process.env[HASH_CPU_FEATURES_ENV];
const loaded = selectPoseidon8Kernel(process.env[HASH_BACKEND_ENV], cpuFeatures === undefined ? {} : { cpuFeatures });

export const poseidon8KernelName: Poseidon8KernelName = loaded.name;

/** Why this kernel (e.g. "VERIFIER_HASH_BACKEND=wasm", "native addon unavailable: …; …"). */
export const poseidon8KernelReason: string = loaded.reason;

export const poseidon8Kernel: Poseidon8Kernel = loaded.hash;

/**
 * Field-element hash (AleoPoseidon8) of `to_fields` of the chunked u128 struct holding `bytes`;
 * equal to `poseidon8Kernel(ALEO_POSEIDON8_DOMAIN, structFieldElements(bytes))` but the native
 * and WASM kernels build their limbs straight from the bytes (no BigInt). Same length errors.
 */
export const hashStructBytesField: (bytes: Uint8Array) => bigint = loaded.hashStruct;

/** hashStructBytesField of each struct; one call into the native addon for all of them. */
export const hashStructBytesFieldMany: (list: readonly Uint8Array[]) => bigint[] = loaded.hashStructMany;
