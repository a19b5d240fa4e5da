/**
 * BHP: native vs portable vs snarkVM's own WASM, side by side: `npx tsx bench/bhp.bench.ts`
 * (BENCH_TIME_MS, default 1500, sets the time per task).
 *
 * Per hash (random field elements, fixed seed):
 *   BHP512 of 507 bits   a Merkle node [1 ‖ left ‖ right]
 *   BHP1024 of 254 bits  a Merkle leaf [0 ‖ transaction id]
 *   BHP1024 of 506 bits  the block hash input [previous hash ‖ header root]
 * each (n) native (native/bhp.c, one call a hash), (p) portable (hasher.ts, BigInt) and
 * (w) @provablehq/wasm 0.11.10 (mainnet) BHP512 / BHP1024 .hash on a prepared boolean array.
 *
 * The block hash of the real block ../shared/vectors/aleo/mainnet/block-1203288.json (its
 * transactions root, header root and block hash; the JSON parsed once beforehand):
 *   (c) checkBlock (src/aleo/block/check.ts) on this process's backend (VERIFIER_BHP_BACKEND);
 *   (c') the same in a child process on the other backend (printed after the table);
 *   (bn) (bp) (bw) the same three commitments composed from the native, portable and WASM hashes
 *       (transactions root and header root with merkle.ts's tree on WASM's BHP1024 / BHP512;
 *       the native backend does each tree in one call).
 * All are first checked to agree (the block's with its stated hash).
 */
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Bench } from 'tinybench';
import { bech32Id, readHeader, readTransactionIds } from '../src/aleo/block/blockJson.js';
import { checkBlock } from '../src/aleo/block/check.js';
import { metadataBits } from '../src/aleo/block/header.js';
import { parseJsonLossless } from '../src/aleo/block/losslessJson.js';
import { BHP_BACKEND_ENV, bhpBackendName, BitString } from '../src/hash/bhp/index.js';
import { selectBhpBackend, type BhpBackend } from '../src/hash/bhp/backend.js';
import { BHP1024, BHP512 } from '../src/hash/bhp/hasher.js';
import { merkleRoot } from '../src/hash/bhp/merkle.js';
import { FIELD_MODULUS } from '../src/hash/field.js';
import { seededRandom } from '../test/support/random.js';

// The package's ESM entry fetch()es its .wasm (fails on file: URLs in Node); the CJS build reads it.
const W = createRequire(import.meta.url)('@provablehq/wasm/mainnet.js') as typeof import('@provablehq/wasm/mainnet.js');

const time = Number(process.env.BENCH_TIME_MS ?? 1500);
const blockFile = path.resolve(process.cwd(), '../shared/vectors/aleo/mainnet/block-1203288.json');
const blockJson = parseJsonLossless(readFileSync(blockFile, 'utf8')) as Record<string, unknown>;
let sink = 0;

const row = (name: string, mean: number, p50: number, p99: number, samples: number): string =>
  name.padEnd(58) + mean.toFixed(4).padStart(10) + p50.toFixed(4).padStart(10) + p99.toFixed(4).padStart(10) + String(samples).padStart(9);

/** The child: checkBlock alone on the backend of its environment, one JSON line. */
if (process.env.BHP_BENCH_CHILD === '1') {
  const bench = new Bench({ time, warmupTime: 300 });
  bench.add('checkBlock', () => {
    sink ^= Number(checkBlock(blockJson).computedHash & 1n);
  });
  await bench.run();
  const r = bench.tasks[0]!.result;
  if (r.state !== 'completed') throw new Error(`checkBlock: ${r.state}`);
  console.log(JSON.stringify({ backend: bhpBackendName, mean: r.latency.mean, p50: r.latency.p50, p99: r.latency.p99, samples: r.latency.samplesCount }));
  process.exit(sink === 0.5 ? 1 : 0);
}

const native = selectBhpBackend('native');
if (native.name !== 'native') throw new Error(`the native BHP backend does not load: ${native.reason}`);
const portable = selectBhpBackend('portable');
const w512 = new W.BHP512();
const w1024 = new W.BHP1024();

const rnd = seededRandom(2026);
const randomField = (): bigint => {
  let x = 0n;
  for (let i = 0; i < 8; i++) x = (x << 32n) | BigInt(Math.floor(rnd() * 2 ** 32));
  return x % FIELD_MODULUS;
};
const node507 = new BitString().bool(true).field(randomField()).field(randomField()).toArray();
const leaf254 = new BitString().bool(false).field(randomField()).toArray();
const block506 = new BitString().field(randomField()).field(randomField()).toArray();

type WasmHasher = { hash(bits: boolean[]): { toString(): string; free(): void } };
const bools = (bits: Uint8Array): boolean[] => Array.from(bits, (b) => b === 1);
const wasmHash = (h: WasmHasher, bits: Uint8Array): bigint => {
  const f = h.hash(bools(bits));
  const x = BigInt(f.toString().replace(/field$/, ''));
  f.free();
  return x;
};

/** What checkBlock computes, from a backend's hashes (or WASM's through merkle.ts). */
interface Hashes {
  hash1024(bits: Uint8Array): bigint;
  merkle(depth: number, leaves: readonly Uint8Array[]): bigint;
}
const header = readHeader(blockJson.header, 'block.header');
const txLeaves = readTransactionIds(blockJson.transactions, 'block.transactions').map((id) => new BitString().field(id).toArray());
const previous = bech32Id(blockJson.previous_hash, 'ab', 'block.previous_hash');
const stated = bech32Id(blockJson.block_hash, 'ab', 'block.block_hash');
const metadata = metadataBits(header.metadata);
function blockCommitments(h: Hashes): bigint {
  const txRoot = h.merkle(20, txLeaves);
  if (txRoot !== header.transactionsRoot) throw new Error('transactions root mismatch');
  const ids = [header.previousStateRoot, txRoot, header.finalizeRoot, header.ratificationsRoot, header.solutionsRoot, header.subdagRoot, 0n, h.hash1024(metadata)];
  const root = h.merkle(3, ids.map((id, index) => new BitString().int(index, 8).field(id).toArray()));
  return h.hash1024(new BitString().field(previous).field(root).toArray());
}
const backendHashes = (b: BhpBackend): Hashes => ({ hash1024: (bits) => b.hash(BHP1024, bits), merkle: (d, leaves) => b.merkleRoot(d, leaves) });
const wasmHashes: Hashes = {
  hash1024: (bits) => wasmHash(w1024, bits),
  merkle: (d, leaves) => merkleRoot({ leaf: (bits) => wasmHash(w1024, bits), node: (bits) => wasmHash(w512, bits) }, d, leaves),
};

// Agreement before timing.
for (const [name, p, wh, bits] of [
  ['BHP512 507', BHP512, w512, node507],
  ['BHP1024 254', BHP1024, w1024, leaf254],
  ['BHP1024 506', BHP1024, w1024, block506],
] as const) {
  const n = native.hash(p, bits);
  if (portable.hash(p, bits) !== n || wasmHash(wh, bits) !== n) throw new Error(`${name}: the hashes differ`);
}
const c = checkBlock(blockJson);
for (const [name, h] of [['native', backendHashes(native)], ['portable', backendHashes(portable)], ['wasm', wasmHashes]] as const) {
  if (blockCommitments(h) !== stated) throw new Error(`block hash on ${name} differs from the stated one`);
}
if (!c.allMatch || c.computedHash !== stated) throw new Error('checkBlock does not match the block');

const bench = new Bench({ time, warmupTime: 300 });
const perHash: string[] = [];
for (const [label, p, wh, bits] of [
  ['BHP512 507 bits', BHP512, w512, node507],
  ['BHP1024 254 bits', BHP1024, w1024, leaf254],
  ['BHP1024 506 bits', BHP1024, w1024, block506],
] as const) {
  const prepared = bools(bits);
  bench
    .add(`(n) native   ${label}`, () => {
      sink ^= Number(native.hash(p, bits) & 1n);
    })
    .add(`(p) portable ${label}`, () => {
      sink ^= Number(portable.hash(p, bits) & 1n);
    })
    .add(`(w) wasm     ${label}`, () => {
      const f = wh.hash(prepared);
      sink ^= f.toString().length;
      f.free();
    });
  perHash.push(label);
}
bench
  .add(`(c) checkBlock, ${bhpBackendName} backend`, () => {
    sink ^= Number(checkBlock(blockJson).computedHash & 1n);
  })
  .add('(bn) block commitments from native hashes', () => {
    sink ^= Number(blockCommitments(backendHashes(native)) & 1n);
  })
  .add('(bp) block commitments from portable hashes', () => {
    sink ^= Number(blockCommitments(backendHashes(portable)) & 1n);
  })
  .add('(bw) block commitments from WASM hashes', () => {
    sink ^= Number(blockCommitments(wasmHashes) & 1n);
  });

await bench.run();

console.log(`BHP per hash and block 1,203,288's hash; node ${process.version}; this process's backend: ${bhpBackendName} (${BHP_BACKEND_ENV}=${process.env[BHP_BACKEND_ENV] ?? ''})`);
console.log('task'.padEnd(58) + 'mean ms'.padStart(10) + 'p50 ms'.padStart(10) + 'p99 ms'.padStart(10) + 'samples'.padStart(9));
const mean: Record<string, number> = {};
for (const t of bench.tasks) {
  const r = t.result;
  if (r.state !== 'completed') {
    console.log(`${t.name.padEnd(58)} ${r.state}`, r.state === 'errored' ? r.error : '');
    continue;
  }
  mean[t.name] = r.latency.mean;
  console.log(row(t.name, r.latency.mean, r.latency.p50, r.latency.p99, r.latency.samplesCount));
}

// checkBlock on the other backend, in its own process (the backend is chosen at import).
const other = bhpBackendName === 'native' ? 'portable' : 'native';
const self = fileURLToPath(import.meta.url);
const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
const child = spawnSync(process.execPath, ['--import', tsx, self], { env: { ...process.env, BHP_BENCH_CHILD: '1', [BHP_BACKEND_ENV]: other }, encoding: 'utf8' });
if (child.status !== 0) throw new Error(`child on ${other}: ${child.stderr}`);
const o = JSON.parse(child.stdout.trim().split('\n').at(-1)!) as { backend: string; mean: number; p50: number; p99: number; samples: number };
const otherName = `(c') checkBlock, ${o.backend} backend (child process)`;
mean[otherName] = o.mean;
console.log(row(otherName, o.mean, o.p50, o.p99, o.samples));

const ratio = (a: string, b: string): string => (mean[a] !== undefined && mean[b] !== undefined ? `${(mean[a] / mean[b]).toFixed(1)}×` : 'n/a');
for (const label of perHash) {
  console.log(`${label}: wasm/native ${ratio(`(w) wasm     ${label}`, `(n) native   ${label}`)}, portable/native ${ratio(`(p) portable ${label}`, `(n) native   ${label}`)}, wasm/portable ${ratio(`(w) wasm     ${label}`, `(p) portable ${label}`)}`);
}
console.log(`block: wasm/native ${ratio('(bw) block commitments from WASM hashes', '(bn) block commitments from native hashes')}, portable/native ${ratio('(bp) block commitments from portable hashes', '(bn) block commitments from native hashes')}`);
if (sink === 0.5) console.log(sink);
