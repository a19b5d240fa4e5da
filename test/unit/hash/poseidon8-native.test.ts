import { createRequire } from 'node:module';
import { Worker } from 'node:worker_threads';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ALEO_POSEIDON8_DOMAIN } from '../../../src/hash/domain.js';
import { FIELD_MODULUS } from '../../../src/hash/field.js';
import { HASH_BACKEND_ENV, HASH_CPU_FEATURES_ENV, poseidon8KernelName, poseidon8KernelReason, selectPoseidon8Kernel } from '../../../src/hash/kernel.js';
import { fromLimbs64, nativeConstantWords, writeLimbs64 } from '../../../src/hash/native-constants.js';
import { createPoseidon8Native, nativeAddonPath, nativeKernels } from '../../../src/hash/poseidon8-native.js';
import { permuteReference, poseidon8 } from '../../../src/hash/poseidon8-reference.js';
import { createPoseidon8Wasm } from '../../../src/hash/poseidon8-wasm.js';
import { structFieldElements } from '../../../src/hash/structFields.js';
import { expectedKernelName } from '../../support/expectedKernel.js';
import { randomStruct } from '../../support/randomStructs.js';

const P = FIELD_MODULUS;
const native = createPoseidon8Native();
const KERNELS_UNDER_TEST = [['portable', native] as const, ...(nativeKernels().includes('adx') ? [['adx', createPoseidon8Native(undefined, 'adx')] as const] : [])];
const wasm = createPoseidon8Wasm();
const nearP = fc.bigInt({ min: P - 1000n, max: P - 1n });
const elemArb = fc.oneof(
  { arbitrary: fc.bigInt({ min: 0n, max: P - 1n }), weight: 3 },
  { arbitrary: nearP, weight: 2 },
  { arbitrary: fc.constantFrom(0n, 1n, P - 1n, (1n << 252n) - 1n, (1n << 192n) - 1n, 1n << 64n), weight: 1 },
);

describe('backend selection', () => {
  const adxHere = nativeKernels().includes('adx');

  it('auto: the ADX kernel where the CPU has BMI2/ADX, else the portable one; the active kernel matches the environment', () => {
    const auto = selectPoseidon8Kernel(undefined);
    expect(auto.name).toBe(adxHere ? 'native-adx' : 'native');
    expect(auto.reason).toBe(adxHere ? 'native addon loaded; the CPU has BMI2 and ADX' : 'native ADX kernel: this CPU lacks BMI2/ADX (or the addon was built without it)');
    expect(poseidon8KernelName).toBe(expectedKernelName());
    expect(poseidon8KernelReason.length).toBeGreaterThan(0);
  });

  it(`${HASH_BACKEND_ENV} forces each kernel: native-adx, native (portable), wasm, bigint`, () => {
    const bytes = randomStruct(5);
    const want = native.hashStruct(bytes);
    for (const name of ['native-adx', 'native', 'wasm', 'bigint'] as const) {
      const k = selectPoseidon8Kernel(name);
      const forced = name === 'native-adx' && !adxHere ? 'native' : name;
      expect(k.name).toBe(forced);
      if (forced === name) expect(k.reason).toBe(`${HASH_BACKEND_ENV}=${name}`);
      expect(k.hashStruct(bytes)).toBe(want);
      expect(k.hashStructMany([bytes, randomStruct(6)])).toEqual([want, native.hashStruct(randomStruct(6))]);
    }
  });

  it('a CPU without the features (VERIFIER_HASH_CPU_FEATURES=none) gets the portable kernel, also when native-adx is asked', () => {
    for (const backend of [undefined, 'native-adx']) {
      const k = selectPoseidon8Kernel(backend, { cpuFeatures: 'none' });
      expect(k.name).toBe('native');
      expect(k.reason).toContain(`native ADX kernel: CPU features masked (${HASH_CPU_FEATURES_ENV}=none)`);
      expect(k.hashStruct(randomStruct(8))).toBe(native.hashStruct(randomStruct(8)));
    }
  });

  it('a missing addon gives a clear error and the selection falls back to WASM', () => {
    expect(() => createPoseidon8Native('/nonexistent/poseidon8.node')).toThrow(/Cannot find module/);
    const fallback = selectPoseidon8Kernel(undefined, { addonPath: '/nonexistent/poseidon8.node' });
    expect(fallback.name).toBe('wasm');
    expect(fallback.reason).toMatch(/^native addon unavailable: Cannot find module [^;]*$/s);
    const bytes = randomStruct(3);
    expect(fallback.hashStruct(bytes)).toBe(native.hashStruct(bytes));
  });

  it('without WebAssembly either (node --jitless), the BigInt reference', () => {
    const webAssembly = Object.getOwnPropertyDescriptor(globalThis, 'WebAssembly')!;
    Reflect.deleteProperty(globalThis, 'WebAssembly');
    let last: ReturnType<typeof selectPoseidon8Kernel>;
    try {
      last = selectPoseidon8Kernel(undefined, { addonPath: '/nonexistent/poseidon8.node' });
    } finally {
      Object.defineProperty(globalThis, 'WebAssembly', webAssembly);
    }
    expect(last.name).toBe('bigint');
    expect(last.reason).toMatch(/^native addon unavailable: Cannot find module .*; WebAssembly unavailable: WebAssembly is not available$/s);
    const bytes = randomStruct(4);
    expect(last.hashStruct(bytes)).toBe(native.hashStruct(bytes));
    expect(last.hash(ALEO_POSEIDON8_DOMAIN, [1n, P - 1n])).toBe(native.hash(ALEO_POSEIDON8_DOMAIN, [1n, P - 1n]));
  });

  it('the addon names the kernels this CPU runs and refuses a call on another kernel', () => {
    const addon = createRequire(import.meta.url)(nativeAddonPath()) as {
      init(c: BigUint64Array): void;
      kernels(): string[];
      permute(s: BigUint64Array, kernel?: number): void;
    };
    addon.init(nativeConstantWords());
    expect(addon.kernels()).toEqual(adxHere ? ['portable', 'adx'] : ['portable']);
    const state = new BigUint64Array(36);
    expect(() => addon.permute(state, 7)).toThrow(/does not support that kernel/);
    expect(() => addon.permute(state, -1)).toThrow(/does not support that kernel/);
    if (!adxHere) expect(() => addon.permute(state, 1)).toThrow(/does not support that kernel/);
    if (!adxHere) expect(() => createPoseidon8Native(undefined, 'adx')).toThrow(/does not run the adx kernel/);
  });

});

describe.each(KERNELS_UNDER_TEST)('native %s kernel equals the BigInt reference', (_name, native) => {
  it('permutation on random states with values near p', () => {
    fc.assert(
      fc.property(fc.array(elemArb, { minLength: 9, maxLength: 9 }), (state) => {
        const a = state.slice();
        const b = state.slice();
        native.permute(a);
        permuteReference(b);
        expect(a).toEqual(b);
      }),
      { numRuns: 150 },
    );
  });

  it('sponge on random inputs of length 0..40 (block boundaries, values near p)', () => {
    fc.assert(
      fc.property(fc.array(elemArb, { maxLength: 40 }), (input) => {
        expect(native.hash(ALEO_POSEIDON8_DOMAIN, input)).toBe(poseidon8(ALEO_POSEIDON8_DOMAIN, input));
      }),
      { numRuns: 80 },
    );
  });

  // The full 10,000-struct run is scripts/diff-native.ts (minutes of BigInt work); here a sample.
  it('random 8- and 10-chunk structs (dense, sparse, all-ones) against reference and WASM', () => {
    for (let i = 0; i < 60; i++) {
      const bytes = randomStruct(i);
      const h = native.hashStruct(bytes);
      expect(h).toBe(wasm.hashStruct(bytes));
      if (i % 3 === 0) expect(h).toBe(poseidon8(ALEO_POSEIDON8_DOMAIN, structFieldElements(bytes)));
    }
  });

  it('the first-permutation memo is keyed by domain and length (alternating domains and lengths)', () => {
    const domains = [ALEO_POSEIDON8_DOMAIN, 12345n, P - 1n];
    for (let i = 0; i < 12; i++) {
      const domain = domains[i % 3] as bigint;
      const input = Array.from({ length: i % 2 === 0 ? 3 : 9 }, (_, j) => BigInt(j + 1));
      expect(native.hash(domain, input)).toBe(poseidon8(domain, input));
    }
    expect(native.hash(12345n, [])).toBe(poseidon8(12345n, []));
    expect(native.hash(ALEO_POSEIDON8_DOMAIN, [])).toBe(poseidon8(ALEO_POSEIDON8_DOMAIN, []));
  });

  it('rejects non-canonical values with a RangeError instead of hashing them', () => {
    expect(() => native.hash(ALEO_POSEIDON8_DOMAIN, [P])).toThrow(RangeError);
    expect(() => native.hash(P, [])).toThrow(RangeError);
    expect(() => native.hash(ALEO_POSEIDON8_DOMAIN, [1n << 256n])).toThrow(RangeError);
    expect(() => native.permute([P, 0n, 0n, 0n, 0n, 0n, 0n, 0n, 0n])).toThrow(RangeError);
    expect(() => native.hashStruct(new Uint8Array(100))).toThrow(/multiple of 512/);
  });

  it('limb helpers round-trip and refuse values ≥ 2^256', () => {
    const a = new BigUint64Array(4);
    for (const x of [0n, 1n, P - 1n, (1n << 256n) - 1n]) {
      writeLimbs64(a, 0, x);
      expect(fromLimbs64(a)).toBe(x);
    }
    expect(() => writeLimbs64(a, 0, -1n)).toThrow(RangeError);
  });
});

describe('native addon', () => {
  it('refuses inconsistent constants and calls before init', () => {
    const addon = createRequire(import.meta.url)(nativeAddonPath()) as { init(c: BigUint64Array): void };
    const words = nativeConstantWords();
    expect(() => addon.init(words.subarray(1))).toThrow(/inconsistent constants/);
    const bad = words.slice();
    bad[8] = 1n; // n0
    expect(() => addon.init(bad)).toThrow(/inconsistent constants/);
    expect(() => addon.init(new Uint32Array(4) as unknown as BigUint64Array)).toThrow(TypeError);
  });

  it('loads and hashes in worker threads (context-aware addon, one constant set per thread)', async () => {
    const bytes = randomStruct(7);
    const expected = native.hashStruct(bytes);
    const src = `
      const { parentPort, workerData } = require('node:worker_threads');
      const addon = require(workerData.path);
      const call = () => { const out = new BigUint64Array(4); addon.hashBits(workerData.domain, workerData.words, workerData.fields, out); return out; };
      let threw = false;
      try { call(); } catch (e) { threw = /init\\(\\) was not called/.test(e.message); }
      addon.init(workerData.consts);
      parentPort.postMessage({ threw, out: call() });`;
    const { structBitWords } = await import('../../../src/hash/limbs-struct.js');
    const { words, fields } = structBitWords(bytes);
    const domain = new BigUint64Array(4);
    writeLimbs64(domain, 0, ALEO_POSEIDON8_DOMAIN);
    const run = () =>
      new Promise<{ threw: boolean; out: BigUint64Array }>((resolve, reject) => {
        const w = new Worker(src, { eval: true, workerData: { path: nativeAddonPath(), consts: nativeConstantWords(), words: words.slice(), fields, domain } });
        w.once('message', (m) => {
          resolve(m as { threw: boolean; out: BigUint64Array });
          void w.terminate();
        });
        w.once('error', reject);
      });
    const results = await Promise.all([run(), run()]);
    for (const r of results) {
      expect(r.threw).toBe(true);
      expect(fromLimbs64(r.out)).toBe(expected);
    }
    expect(native.hashStruct(bytes)).toBe(expected);
  });
});
