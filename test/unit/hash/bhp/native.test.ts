/**
 * The native BHP (native/bhp.c through src/hash/bhp/native.ts) against the portable TypeScript
 * hasher (hasher.ts, merkle.ts) and snarkVM's own WASM build (@provablehq/wasm, a development
 * reference only): the four mainnet hashers on random bit strings of every regime (empty, short,
 * one round, the round boundaries, several rounds), single rounds, batches, Merkle roots, the
 * refused inputs, the run-time selection (VERIFIER_BHP_BACKEND) and the real mainnet block on
 * each backend in its own process.
 *
 * Like test/unit/hash/poseidon8-native.test.ts for Poseidon8, this file fails (it never skips) when the
 * addon was not built or has no BHP entry points: createBhpNative() below throws.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Worker } from 'node:worker_threads';
import { afterAll, describe, expect, it } from 'vitest';
import { checkBlock } from '../../../../src/aleo/block/check.js';
import { parseJsonLossless } from '../../../../src/aleo/block/losslessJson.js';
import { BHP_BACKEND_ENV, bhp1024, bhp512, bhpBackendName, bhpBackendReason, bhpMerkleRoot, BitString } from '../../../../src/hash/bhp/index.js';
import { selectBhpBackend } from '../../../../src/hash/bhp/backend.js';
import { BHP1024, BHP256, BHP512, BHP768, bhpHashBits, bhpRoundX, type BhpParameters } from '../../../../src/hash/bhp/hasher.js';
import { merkleRoot, type MerkleHashers } from '../../../../src/hash/bhp/merkle.js';
import { createBhpNative } from '../../../../src/hash/bhp/native.js';
import { tablesOf } from '../../../../src/hash/bhp/tables.js';
import { writeLimbs64 } from '../../../../src/hash/native-constants.js';
import { nativeAddonPath } from '../../../../src/hash/poseidon8-native.js';
import { childEnv, runMain } from '../../../support/process.js';
import { seededRandom } from '../../../support/random.js';

const W = createRequire(import.meta.url)('@provablehq/wasm/mainnet.js') as typeof import('@provablehq/wasm/mainnet.js');
const native = createBhpNative();

const HASHERS: { params: BhpParameters; theirs: { hash(bits: boolean[]): { toString(): string } } }[] = [
  { params: BHP256, theirs: new W.BHP256() },
  { params: BHP512, theirs: new W.BHP512() },
  { params: BHP768, theirs: new W.BHP768() },
  { params: BHP1024, theirs: new W.BHP1024() },
];

const portableHash = (p: BhpParameters, bits: Uint8Array): bigint => bhpHashBits(tablesOf(p), bits);
const PORTABLE_MERKLE: MerkleHashers = { leaf: (b) => portableHash(BHP1024, b), node: (b) => portableHash(BHP512, b) };

function randomBits(rnd: () => number, n: number, density = 0.5): Uint8Array {
  return Uint8Array.from({ length: n }, () => (rnd() < density ? 1 : 0));
}

/** Input bits per round: the hasher's bits less the 252 bits of the prefix or previous x. */
const roundOf = (p: BhpParameters): number => p.windows * p.windowSize * 3 - 252;

describe('native BHP = portable = snarkVM (WASM)', () => {
  for (const { params, theirs } of HASHERS) {
    it(`${params.name}: 60 inputs from 0 bits to 4 rounds, the round boundaries, all zeros and all ones`, () => {
      const round = roundOf(params);
      const rnd = seededRandom(round * 7 + 1);
      const lengths = [0, 1, 2, 3, 4, 5, 6, 7, 253, 254, 507, round - 1, round, round + 1, 2 * round - 1, 2 * round, 2 * round + 1, 3 * round + 5];
      while (lengths.length < 60) lengths.push(Math.floor(rnd() * 4 * round));
      const inputs = lengths.map((n, i) => randomBits(rnd, n, i % 7 === 0 ? 0.05 : i % 7 === 1 ? 0.95 : 0.5));
      inputs.push(new Uint8Array(2 * round + 3), new Uint8Array(round + 9).fill(1));
      const batch = native.hashMany(params, inputs);
      inputs.forEach((bits, i) => {
        const want = theirs.hash(Array.from(bits, (b) => b === 1)).toString();
        const n = native.hash(params, bits);
        expect(`${n}field`, `${params.name} of ${bits.length} bits: native vs snarkVM`).toBe(want);
        expect(portableHash(params, bits), `${params.name} of ${bits.length} bits: portable`).toBe(n);
        expect(batch[i], `${params.name} of ${bits.length} bits: batch`).toBe(n);
      });
    });
  }

  it('inputs of 2^16 bits and more (their length fills more than 16 bits of the first round)', () => {
    const rnd = seededRandom(65536);
    for (const { params, theirs } of [HASHERS[1]!, HASHERS[3]!]) {
      for (const n of [65535, 65536, 70001]) {
        const bits = randomBits(rnd, n);
        const got = native.hash(params, bits);
        expect(`${got}field`, `${params.name} of ${n} bits: native vs snarkVM`).toBe(theirs.hash(Array.from(bits, (b) => b === 1)).toString());
        expect(portableHash(params, bits), `${params.name} of ${n} bits: portable`).toBe(got);
      }
    }
  });

  it('the exported bhp512 / bhp1024 (the selected backend) give the same hashes', () => {
    const rnd = seededRandom(99);
    for (const n of [0, 1, 507, 1044, 1045, 3000]) {
      const bits = randomBits(rnd, n);
      expect(bhp512(bits)).toBe(portableHash(BHP512, bits));
      expect(bhp1024(bits)).toBe(portableHash(BHP1024, bits));
    }
  });

  it('one round on its whole preimage: native = portable, with and without the domain prefix, up to the hasher bits', () => {
    const rnd = seededRandom(5);
    for (const { params } of HASHERS) {
      const t = tablesOf(params);
      const preimages: Uint8Array[] = [new Uint8Array(0), randomBits(rnd, 1), randomBits(rnd, 185), randomBits(rnd, t.hasherBits), new Uint8Array(t.hasherBits).fill(1)];
      for (let k = 0; k < 12; k++) {
        const bits = randomBits(rnd, 186 + Math.floor(rnd() * (t.hasherBits - 185)));
        if (k % 2 === 0) bits.set(t.domainBits.subarray(0, 186)); // starts with the domain: the precomputed prefix
        preimages.push(bits);
      }
      const exactDomain = new Uint8Array(186);
      exactDomain.set(t.domainBits.subarray(0, 186));
      preimages.push(exactDomain);
      for (const bits of preimages) expect(native.hashRound(params, bits), `${params.name} round of ${bits.length} bits`).toBe(bhpRoundX(t, bits));
      const tooLong = new Uint8Array(t.hasherBits + 1);
      expect(() => native.hashRound(params, tooLong)).toThrow(RangeError);
      expect(() => bhpRoundX(t, tooLong)).toThrow(RangeError);
    }
  });

  it('a batch: empty, one, and inputs of different round counts in one call', () => {
    const rnd = seededRandom(11);
    expect(native.hashMany(BHP512, [])).toEqual([]);
    const list = [0, 1044, 1045, 3000, 0, 254].map((n) => randomBits(rnd, n));
    expect(native.hashMany(BHP1024, list)).toEqual(list.map((b) => portableHash(BHP1024, b)));
    expect(native.hashMany(BHP1024, [list[3]!])).toEqual([portableHash(BHP1024, list[3]!)]);
  });
});

/** The tree written out with no shortcut: every pair hashed, padding included. */
function referenceRoot(depth: number, leaves: readonly Uint8Array[]): bigint {
  const node = (l: bigint, r: bigint) => portableHash(BHP512, new BitString().bool(true).field(l).field(r).toArray());
  const empty = node(0n, 0n);
  let level = leaves.map((leaf) => portableHash(BHP1024, new BitString().bool(false).bits(leaf).toArray()));
  const width = leaves.length <= 1 ? 1 : 2 ** Math.ceil(Math.log2(leaves.length));
  while (level.length < width) level.push(empty);
  while (level.length > 1) level = level.flatMap((l, i) => (i % 2 === 0 ? [node(l, level[i + 1]!)] : []));
  let root = level[0]!;
  for (let i = Math.log2(width); i < depth; i++) root = node(root, empty);
  return root;
}

describe('native BHP Merkle root = portable = the tree written out', () => {
  it('padding at several levels (0, 1, 3, 5, 9, 17 leaves): both backends equal every pair hashed', () => {
    const rnd = seededRandom(4);
    for (const count of [0, 1, 3, 5, 9, 17]) {
      const leaves = Array.from({ length: count }, () => randomBits(rnd, 253));
      const depth = (count <= 1 ? 0 : Math.ceil(Math.log2(count))) + 2;
      const want = referenceRoot(depth, leaves);
      expect(native.merkleRoot(depth, leaves), `native, ${count} leaves`).toBe(want);
      expect(merkleRoot(PORTABLE_MERKLE, depth, leaves), `portable, ${count} leaves`).toBe(want);
    }
  });

  it('0 … 33 leaves at their own depth, a few above it and at depth 20 (the transactions root)', () => {
    const rnd = seededRandom(3);
    for (const count of [0, 1, 2, 3, 4, 5, 7, 8, 9, 16, 17, 33]) {
      const leaves = Array.from({ length: count }, (_, i) => randomBits(rnd, i % 5 === 4 ? Math.floor(rnd() * 700) : 253));
      const levels = count <= 1 ? 0 : Math.ceil(Math.log2(count));
      for (const depth of [levels, levels + 1, levels + 3, 20]) {
        expect(native.merkleRoot(depth, leaves), `${count} leaves at depth ${depth}`).toBe(merkleRoot(PORTABLE_MERKLE, depth, leaves));
      }
    }
  });

  it('identical leaves (equal children at every level)', () => {
    const leaf = new BitString().field(7n).toArray();
    const leaves = [leaf, leaf, leaf, leaf, leaf];
    expect(native.merkleRoot(4, leaves)).toBe(merkleRoot(PORTABLE_MERKLE, 4, leaves));
  });

  it('the same errors: too many leaves for the depth, a depth that is not an integer from 0 to 64', () => {
    const leaves = [1n, 2n, 3n].map((x) => new BitString().field(x).toArray());
    for (const f of [(d: number) => native.merkleRoot(d, leaves), (d: number) => merkleRoot(PORTABLE_MERKLE, d, leaves)]) {
      expect(() => f(1)).toThrow(/a Merkle tree of depth 1 holds at most 2 leaves, got 3/);
      for (const d of [-1, 1.5, 65, Number.NaN]) expect(() => f(d), `depth ${d}`).toThrow(/depth is an integer from 0 to 64/);
    }
    expect(bhpMerkleRoot(64, leaves)).toBe(merkleRoot(PORTABLE_MERKLE, 64, leaves));
  });
});

describe('BitString', () => {
  /** The bit loop BitString.int replaced (one BigInt shift a bit). */
  const loopBits = (value: bigint, count: number): number[] => {
    let v = value < 0n ? value + (1n << BigInt(count)) : value;
    const out: number[] = [];
    for (let i = 0; i < count; i++, v >>= 1n) out.push(Number(v & 1n));
    return out;
  };

  it('int() gives the low bits of a value, also past its digits, truncated to the count, and negatives in two\'s complement', () => {
    const rnd = seededRandom(21);
    const values: [bigint | number, number][] = [[0, 8], [1, 1], [255, 8], [256, 8], [2 ** 31 - 1, 40], [2 ** 31, 40], [3, 1], [7, 64], [-1, 8], [-128, 8], [-(2 ** 40), 64], [2 ** 53 - 1, 64], [0n, 253], [(1n << 253n) - 1n, 253], [1n << 252n, 253], [-(1n << 127n), 128], [-(1n << 200n), 128], [0xabcn, 3], [0xabcn, 10], [5n, 0]];
    for (let k = 0; k < 200; k++) {
      const count = 1 + Math.floor(rnd() * 260);
      let v = 0n;
      for (let i = 0; i < 9; i++) v = (v << 32n) | BigInt(Math.floor(rnd() * 2 ** 32));
      values.push([k % 5 === 0 ? -v : v >> BigInt(Math.floor(rnd() * 280)), count]);
    }
    for (const [v, count] of values) {
      expect(Array.from(new BitString().bool(true).int(v, count).toArray()), `${v} in ${count} bits`).toEqual([1, ...loopBits(BigInt(v), count)]);
    }
  });
});

describe('refused inputs', () => {
  const addon = createRequire(import.meta.url)(nativeAddonPath()) as Record<string, (...args: unknown[]) => unknown>;
  const words = (p: BhpParameters): BigUint64Array => {
    const t = tablesOf(p);
    const w = new BigUint64Array(12 * t.lookup.length);
    t.lookup.forEach((pt, i) => {
      writeLimbs64(w, 12 * i, pt.x);
      writeLimbs64(w, 12 * i + 4, pt.y);
      writeLimbs64(w, 12 * i + 8, pt.t2d);
    });
    return w;
  };

  it('a byte other than 0 or 1 is refused by both backends (hash, batch, Merkle leaf)', () => {
    const bits = new Uint8Array(300);
    bits[299] = 2;
    for (const f of [
      () => native.hash(BHP512, bits),
      () => portableHash(BHP512, bits),
      () => native.hashMany(BHP512, [new Uint8Array(3), bits]),
      () => native.merkleRoot(2, [bits]),
      () => merkleRoot(PORTABLE_MERKLE, 2, [bits]),
      () => native.hashRound(BHP512, bits),
      () => bhpRoundX(tablesOf(BHP512), bits),
    ]) {
      expect(f).toThrow(/a bit is neither 0 nor 1/);
    }
  });

  it('the addon refuses a table off the curve, non-canonical, of a wrong shape, and a value that is no table', () => {
    const good = words(BHP256);
    const domain = tablesOf(BHP256).domainBits;
    expect(addon.bhpBits!(addon.bhpLoad!(good, domain))).toBe(tablesOf(BHP256).hasherBits);
    const offCurve = good.slice();
    offCurve[12 * 17 + 4] = offCurve[12 * 17 + 4]! ^ 1n; // y of point 17
    expect(() => addon.bhpLoad!(offCurve, domain)).toThrow(/not a valid BHP table/);
    const wrongT = good.slice();
    wrongT[12 * 3 + 8] = wrongT[12 * 3 + 8]! ^ 1n; // 2dxy of point 3
    expect(() => addon.bhpLoad!(wrongT, domain)).toThrow(/not a valid BHP table/);
    const nonCanonical = good.slice();
    nonCanonical[3] = 0xffffffffffffffffn; // x of point 0 ≥ p
    expect(() => addon.bhpLoad!(nonCanonical, domain)).toThrow(/not a valid BHP table/);
    expect(() => addon.bhpLoad!(good.subarray(0, 12 * 7), domain)).toThrow(/not a valid BHP table/);
    expect(() => addon.bhpLoad!(good.subarray(0, 12 * 8 * 84), domain)).toThrow(/not a valid BHP table/); // 252 bits: no room for input
    expect(() => addon.bhpLoad!(good, domain.subarray(0, 187))).toThrow(/188 domain bits/);
    expect(() => addon.bhpHash!({}, new Uint8Array(1), new Uint8Array(32))).toThrow(TypeError);
    expect(() => addon.bhpHash!(addon.bhpLoad!(good, domain), new Uint8Array(1), new Uint8Array(31))).toThrow(/32 bytes/);
    expect(() => addon.bhpHashMany!(addon.bhpLoad!(good, domain), new Uint8Array(4), new Uint32Array([2, 3]), new Uint8Array(32))).toThrow(/outside the bits/);
  });
});

describe('backend selection', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'bhp-addon-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it(`the active backend follows ${BHP_BACKEND_ENV} (native unless portable is asked)`, () => {
    expect(bhpBackendName).toBe(process.env[BHP_BACKEND_ENV] === 'portable' ? 'portable' : 'native');
    expect(bhpBackendReason.length).toBeGreaterThan(0);
  });

  it('auto and native: the native addon; portable when asked; both give the same hashes', () => {
    const bits = randomBits(seededRandom(1), 800);
    const leaves = [bits.subarray(0, 253), bits.subarray(253, 506), bits.subarray(506)];
    const auto = selectBhpBackend(undefined);
    expect([auto.name, auto.reason]).toEqual(['native', 'native addon loaded']);
    expect(selectBhpBackend('anything else').name).toBe('native');
    const forced = selectBhpBackend('native');
    expect([forced.name, forced.reason]).toEqual(['native', `${BHP_BACKEND_ENV}=native`]);
    const portable = selectBhpBackend('portable');
    expect([portable.name, portable.reason]).toEqual(['portable', `${BHP_BACKEND_ENV}=portable`]);
    for (const p of [BHP256, BHP512, BHP768, BHP1024]) expect(portable.hash(p, bits)).toBe(auto.hash(p, bits));
    expect(portable.hashMany(BHP512, leaves)).toEqual(auto.hashMany(BHP512, leaves));
    expect(portable.merkleRoot(5, leaves)).toBe(auto.merkleRoot(5, leaves));
  });

  it('a missing addon, or one without the BHP entry points, falls back to portable and says why', () => {
    const missing = selectBhpBackend(undefined, { addonPath: '/nonexistent/poseidon8.node' });
    expect(missing.name).toBe('portable');
    expect(missing.reason).toMatch(/^native addon unavailable: Cannot find module/);
    const forced = selectBhpBackend('native', { addonPath: '/nonexistent/poseidon8.node' });
    expect(forced.reason).toMatch(new RegExp(`^${BHP_BACKEND_ENV}=native; native addon unavailable: Cannot find module`));
    // An addon built before native/bhp.c: the Poseidon8 entry points only.
    const old = path.join(dir, 'old-addon.cjs');
    writeFileSync(old, 'for (const k of ["init", "hash", "hashBits", "hashBitsMany", "permute", "kernels"]) exports[k] = () => {};\n');
    const stale = selectBhpBackend(undefined, { addonPath: old });
    expect(stale.name).toBe('portable');
    expect(stale.reason).toMatch(/no BHP entry points \(bhpLoad, bhpBits, bhpHashRound, bhpHash, bhpHashMany, bhpMerkleRoot;/);
    expect(stale.hash(BHP512, new Uint8Array(9).fill(1))).toBe(native.hash(BHP512, new Uint8Array(9).fill(1)));
  });

  it('each worker thread loads its own tables into the addon and gets the same hash', async () => {
    const t = tablesOf(BHP512);
    const w = new BigUint64Array(12 * t.lookup.length);
    t.lookup.forEach((pt, i) => {
      writeLimbs64(w, 12 * i, pt.x);
      writeLimbs64(w, 12 * i + 4, pt.y);
      writeLimbs64(w, 12 * i + 8, pt.t2d);
    });
    const bits = randomBits(seededRandom(8), 1500);
    const src = `
      const { parentPort, workerData: d } = require('node:worker_threads');
      const addon = require(d.path);
      const table = addon.bhpLoad(d.words, d.domain);
      const out = new Uint8Array(32);
      addon.bhpHash(table, d.bits, out);
      parentPort.postMessage(out);`;
    const run = (): Promise<Uint8Array> =>
      new Promise((resolve, reject) => {
        const worker = new Worker(src, { eval: true, workerData: { path: nativeAddonPath(), words: w, domain: t.domainBits, bits } });
        worker.once('message', (m) => {
          resolve(m as Uint8Array);
          void worker.terminate();
        });
        worker.once('error', reject);
      });
    const want = native.hash(BHP512, bits);
    for (const out of await Promise.all([run(), run()])) expect(BigInt(`0x${Buffer.from(out).reverse().toString('hex')}`)).toBe(want);
  });
});

describe('the real mainnet block 1,203,288 on each backend (one process each)', () => {
  const here = checkBlock(parseJsonLossless(readFileSync(path.resolve(process.cwd(), '../shared/vectors/aleo/mainnet/block-1203288.json'), 'utf8')));
  for (const backend of ['native', 'portable'] as const) {
    it(`${BHP_BACKEND_ENV}=${backend}: transactions root, header root and block hash recompute`, async () => {
      const r = await runMain([], { entry: path.resolve(process.cwd(), 'test/support/bhp-block-main.ts'), env: { ...childEnv(), [BHP_BACKEND_ENV]: backend } });
      expect(r.code, r.stderr).toBe(0);
      const out = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { backend: string; reason: string; lines: [string, boolean][]; allMatch: boolean; hash: string };
      expect(out.backend).toBe(backend);
      expect(out.reason).toBe(`${BHP_BACKEND_ENV}=${backend}`);
      expect(out.lines).toEqual([['transactions root', true], ['header root', true], ['block hash', true]]);
      expect(out.allMatch).toBe(true);
      expect(out.hash).toBe(here.computedHash.toString());
    });
  }
});
