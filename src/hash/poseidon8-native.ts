/**
 * Poseidon8 on the native addon (native/, an N-API addon built by node-gyp during `npm install`):
 * 4×64-bit Montgomery arithmetic with sparse partial rounds, with two permutation kernels chosen
 * at run time: `portable` (plain C, native/poseidon8.c) and `adx` (MULX/ADCX/ADOX,
 * native/poseidon8-adx.c; x86-64 CPUs with BMI2 and ADX). Bit-for-bit equal to
 * poseidon8-reference.ts (test/unit/hash/poseidon8-native.test.ts).
 *
 * `createPoseidon8Native()` throws if the addon was not built or does not load, or the CPU does
 * not run the asked kernel; kernel.ts then takes the next one.
 */
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ALEO_POSEIDON8_DOMAIN } from './domain.js';
import { structBitWords } from './limbs-struct.js';
import { fromLimbs64, nativeConstantWords, writeLimbs64 } from './native-constants.js';
import type { Poseidon8Wasm } from './poseidon8-wasm.js';

interface Addon {
  init(consts: BigUint64Array): void;
  hash(domain: BigUint64Array, input: BigUint64Array, out: BigUint64Array, kernel: number): void;
  hashBits(domain: BigUint64Array, words: Uint32Array, n: number, out: BigUint64Array, kernel: number): void;
  hashBitsMany(domain: BigUint64Array, words: Uint32Array, layout: Uint32Array, out: BigUint64Array, kernel: number): void;
  permute(state: BigUint64Array, kernel: number): void;
  kernels(): string[];
}

/** The addon's kernel numbers (native/addon.c, the optional last argument of each call). */
const KERNEL_NUMBER = { portable: 0, adx: 1 } as const;

/** The addon's permutation kernels (native/poseidon8.h). */
export type NativeKernel = 'portable' | 'adx';

/** Same operations as the WASM kernel except the Montgomery test hook, plus a batch and the kernel in use. */
export type Poseidon8Native = Omit<Poseidon8Wasm, 'montMul'> & {
  /** hashStruct of each struct, in one call into the addon. */
  hashStructMany(list: readonly Uint8Array[]): bigint[];
  readonly kernel: NativeKernel;
};

const ADDON_FILE = path.join('build', 'Release', 'poseidon8.node');

/** The built addon: the repository root is 2 levels above src/hash, 3 above dist/src/hash. */
export function nativeAddonPath(): string {
  const here = path.dirname(fileURLToPath(import.meta.url));
  for (const up of ['../..', '../../..']) {
    const candidate = path.resolve(here, up, ADDON_FILE);
    if (existsSync(candidate)) return candidate;
  }
  throw new Error(`native Poseidon8 addon not built (${ADDON_FILE} not found; run npm install with a C compiler)`);
}

function loadAddon(addonPath: string): Addon {
  return createRequire(import.meta.url)(addonPath) as Addon;
}

/** The kernels the addon at `addonPath` can run on this CPU, best first (throws if it does not load). */
export function nativeKernels(addonPath: string = nativeAddonPath()): NativeKernel[] {
  const have = loadAddon(addonPath).kernels();
  return (['adx', 'portable'] as const).filter((k) => have.includes(k));
}

export function createPoseidon8Native(addonPath: string = nativeAddonPath(), kernel: NativeKernel = 'portable'): Poseidon8Native {
  const addon = loadAddon(addonPath);
  if (!addon.kernels().includes(kernel)) throw new Error(`native Poseidon8 addon: this CPU does not run the ${kernel} kernel`);
  addon.init(nativeConstantWords());
  const kn = KERNEL_NUMBER[kernel];
  const out = new BigUint64Array(4);
  const domainLimbs = new BigUint64Array(4);
  const aleoDomain = new BigUint64Array(4);
  writeLimbs64(aleoDomain, 0, ALEO_POSEIDON8_DOMAIN);
  // Reused while the input length stays the same (no allocation per call in steady state).
  let limbs = new BigUint64Array(0);

  return {
    hash(domain, input) {
      writeLimbs64(domainLimbs, 0, domain);
      if (limbs.length !== 4 * input.length) limbs = new BigUint64Array(4 * input.length);
      input.forEach((x, i) => writeLimbs64(limbs, 4 * i, x));
      addon.hash(domainLimbs, limbs, out, kn);
      return fromLimbs64(out);
    },
    hashStruct(bytes) {
      const { words, fields } = structBitWords(bytes);
      addon.hashBits(aleoDomain, words, fields, out, kn);
      return fromLimbs64(out);
    },
    hashStructMany(list) {
      const layout = new Uint32Array(3 * list.length);
      const parts: Uint32Array[] = [];
      let total = 0;
      list.forEach((bytes, i) => {
        const { words, fields } = structBitWords(bytes);
        parts.push(words.slice()); // structBitWords reuses its buffer
        layout.set([total, words.length, fields], 3 * i);
        total += words.length;
      });
      const all = new Uint32Array(total);
      parts.forEach((p, i) => all.set(p, layout[3 * i] as number));
      const outs = new BigUint64Array(4 * list.length);
      addon.hashBitsMany(aleoDomain, all, layout, outs, kn);
      return list.map((_, i) => fromLimbs64(outs, 4 * i));
    },
    kernel,
    permute(state) {
      const s = new BigUint64Array(36);
      state.forEach((x, i) => writeLimbs64(s, 4 * i, x));
      addon.permute(s, kn);
      for (let i = 0; i < 9; i++) state[i] = fromLimbs64(s, 4 * i);
    },
  };
}
