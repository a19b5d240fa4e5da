/**
 * Poseidon8 on the native kernel (native/poseidon8.c, an N-API addon built by node-gyp during
 * `npm install`): 4×64-bit Montgomery arithmetic with sparse partial rounds. Bit-for-bit equal
 * to poseidon8-reference.ts (test/unit/hash-native.test.ts).
 *
 * `createPoseidon8Native()` throws if the addon was not built or does not load; kernel.ts then
 * uses the WASM kernel.
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
  hash(domain: BigUint64Array, input: BigUint64Array, out: BigUint64Array): void;
  hashBits(domain: BigUint64Array, words: Uint32Array, n: number, out: BigUint64Array): void;
  permute(state: BigUint64Array): void;
}

/** Same operations as the WASM kernel except the Montgomery test hook. */
export type Poseidon8Native = Omit<Poseidon8Wasm, 'montMul'>;

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

export function createPoseidon8Native(addonPath: string = nativeAddonPath()): Poseidon8Native {
  const addon = createRequire(import.meta.url)(addonPath) as Addon;
  addon.init(nativeConstantWords());
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
      addon.hash(domainLimbs, limbs, out);
      return fromLimbs64(out);
    },
    hashStruct(bytes) {
      const { words, fields } = structBitWords(bytes);
      addon.hashBits(aleoDomain, words, fields, out);
      return fromLimbs64(out);
    },
    permute(state) {
      const s = new BigUint64Array(36);
      state.forEach((x, i) => writeLimbs64(s, 4 * i, x));
      addon.permute(s);
      for (let i = 0; i < 9; i++) state[i] = fromLimbs64(s, 4 * i);
    },
  };
}
