/**
 * The Poseidon8 kernel kernel.ts must have selected in this process, from the environment the
 * tests run under (VERIFIER_HASH_BACKEND, VERIFIER_HASH_CPU_FEATURES) and what the native addon
 * reports this CPU runs.
 */
import type { Poseidon8KernelName } from '../../src/hash/kernel.js';
import { nativeKernels } from '../../src/hash/poseidon8-native.js';

export function expectedKernelName(env: NodeJS.ProcessEnv = process.env): Poseidon8KernelName {
  const backend = env.VERIFIER_HASH_BACKEND;
  if (backend === 'wasm' || backend === 'bigint') return backend;
  if (backend === 'native' || env.VERIFIER_HASH_CPU_FEATURES === 'none') return 'native';
  return nativeKernels().includes('adx') ? 'native-adx' : 'native';
}
