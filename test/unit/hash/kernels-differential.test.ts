/**
 * Every Poseidon8 kernel gives the same struct hashes: 10,000 random 8- and 10-chunk structs
 * (dense, sparse, all-ones, near-max; test/support/randomStructs.ts) on the native ADX kernel
 * (when this CPU runs it) and the native portable kernel, each batch in one hashStructMany call;
 * every 10th of them (1,000) also on the WASM kernel; every 50th (200) also in snarkVM's own
 * WASM (@provablehq/wasm: Plaintext.fromString → toFields → Poseidon8.hash, ≈ 10 ms each), every
 * 200th (50) in the BigInt reference. The full 10,000 against the BigInt reference: scripts/diff-native.ts.
 */
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { formatChunkedStruct } from '../../../src/aleo/struct.js';
import { ALEO_POSEIDON8_DOMAIN } from '../../../src/hash/domain.js';
import { hashReportData, hashReportDataMany } from '../../../src/hash/index.js';
import { nativeConstantWords } from '../../../src/hash/native-constants.js';
import { createPoseidon8Native, nativeAddonPath, nativeKernels } from '../../../src/hash/poseidon8-native.js';
import { poseidon8 } from '../../../src/hash/poseidon8-reference.js';
import { createPoseidon8Wasm } from '../../../src/hash/poseidon8-wasm.js';
import { structFieldElements } from '../../../src/hash/structFields.js';
import { randomStruct } from '../../support/randomStructs.js';

const { Plaintext, Poseidon8 } = createRequire(import.meta.url)('@provablehq/wasm/mainnet.js') as typeof import('@provablehq/wasm/mainnet.js');

const N = 10_000;
const BATCH = 500;
const portable = createPoseidon8Native(undefined, 'portable');
const adx = nativeKernels().includes('adx') ? createPoseidon8Native(undefined, 'adx') : undefined;
const wasm = createPoseidon8Wasm();

describe('kernels agree', () => {
  it(`${N} random structs: native ADX = native portable (batches of ${BATCH}); every 10th = WASM`, { timeout: 300_000 }, async () => {
    let compared = 0;
    for (let start = 0; start < N; start += BATCH) {
      const structs = Array.from({ length: BATCH }, (_, i) => randomStruct(start + i));
      const p = portable.hashStructMany(structs);
      if (adx) expect(adx.hashStructMany(structs)).toEqual(p);
      structs.forEach((bytes, i) => {
        if ((start + i) % 10 === 0) expect(wasm.hashStruct(bytes)).toBe(p[i]);
      });
      compared += structs.length;
      await new Promise((resolve) => setImmediate(resolve)); // let the test runner's messages through
    }
    expect(compared).toBe(N);
  });

  it('every 50th of them (200) equals snarkVM (@provablehq/wasm); every 200th (50) the BigInt reference', { timeout: 300_000 }, async () => {
    const hasher = new Poseidon8();
    for (let seed = 0; seed < N; seed += 50) {
      const bytes = randomStruct(seed);
      const chunks = bytes.length / 512;
      const fields = Plaintext.fromString(formatChunkedStruct(bytes, chunks)).toFields();
      const h = hasher.hash(fields);
      const peer = BigInt(h.toString().replace(/field$/, ''));
      h.free();
      expect(portable.hashStruct(bytes)).toBe(peer);
      if (adx) expect(adx.hashStruct(bytes)).toBe(peer);
      if (seed % 200 === 0) {
        expect(poseidon8(ALEO_POSEIDON8_DOMAIN, structFieldElements(bytes))).toBe(peer);
        await new Promise((resolve) => setImmediate(resolve));
      }
    }
  });

  it('hashReportDataMany equals hashReportData one by one, and an empty list hashes nothing', () => {
    const structs = Array.from({ length: 12 }, (_, i) => randomStruct(20_000 + i));
    expect(hashReportDataMany(structs)).toEqual(structs.map((s) => hashReportData(s)));
    expect(hashReportDataMany([])).toEqual([]);
    expect(() => hashReportDataMany([structs[0]!, new Uint8Array(100)])).toThrow(/multiple of 512/);
  });

  it("the addon's batch call refuses a layout outside its words", () => {
    type Addon = { init(c: BigUint64Array): void; hashBitsMany(d: BigUint64Array, w: Uint32Array, l: Uint32Array, o: BigUint64Array): void };
    const addon = createRequire(import.meta.url)(nativeAddonPath()) as Addon;
    addon.init(nativeConstantWords());
    const d = new BigUint64Array(4);
    const words = new Uint32Array(64);
    expect(() => addon.hashBitsMany(d, words, Uint32Array.of(0, 65, 1), new BigUint64Array(4))).toThrow(/outside the words/);
    expect(() => addon.hashBitsMany(d, words, Uint32Array.of(60, 8, 1), new BigUint64Array(4))).toThrow(/outside the words/);
    expect(() => addon.hashBitsMany(d, words, Uint32Array.of(0, 64, 10), new BigUint64Array(4))).toThrow(/outside the words/);
    expect(() => addon.hashBitsMany(d, words, Uint32Array.of(0, 64), new BigUint64Array(4))).toThrow(/3 numbers per struct/);
    const out = new BigUint64Array(8);
    addon.hashBitsMany(d, words, Uint32Array.of(0, 32, 4, 32, 32, 4), out);
    expect(out[0]).toBe(out[4]); // two all-zero structs of the same size
  });
});
