/**
 * Binding hash vs snarkVM's own WASM, side by side: `npx tsx bench/hash-peers.bench.ts`
 * (BENCH_TIME_MS, default 1500, sets the time per task).
 *
 * Inputs: the real 8-chunk userData of the README SGX example
 * (../shared/vectors/aleo/e2e/readme-decodeReport-examples.json, sgx.request.userData) and the
 * real 10-chunk multi-token userData (../shared/vectors/aleo/venture23/multi-token-2026-01-14.response.json).
 *  (a) @provablehq/wasm 0.11.10 (mainnet): Plaintext.fromString(text) → toFields() → Poseidon8.hash
 *  (b) @provablehq/wasm: Poseidon8.hash on prepared fields (it consumes its input, so each call
 *      hashes 205 fresh clone()s; (b') times the clones alone)
 *  (c) ours, BigInt reference (kernel.ts's last resort, without WebAssembly):
 *      poseidon8(domain, structFieldElements(bytes))
 *  (d) ours, hashReportData(bytes) (whatever kernel.ts selects)
 *  (e) ours, WASM kernel straight from bytes (bytes → limbs, no BigInt)
 *  (n) ours, native portable kernel straight from bytes (bytes → bit string → C; native/poseidon8.c)
 *  (x) ours, native ADX kernel straight from bytes (native/poseidon8-adx.c; when the CPU has BMI2/ADX)
 * All are first checked to agree on the hash.
 */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { Bench } from 'tinybench';
import { ALEO_POSEIDON8_DOMAIN } from '../src/hash/domain.js';
import { fieldToU128, u128ToLeBytes } from '../src/hash/field.js';
import { hashReportData } from '../src/hash/index.js';
import { poseidon8KernelName } from '../src/hash/kernel.js';
import { createPoseidon8Native, nativeKernels } from '../src/hash/poseidon8-native.js';
import { createPoseidon8Wasm } from '../src/hash/poseidon8-wasm.js';
import { poseidon8 } from '../src/hash/poseidon8-reference.js';
import { structFieldElements } from '../src/hash/structFields.js';
import { parseChunkedStruct } from '../src/aleo/struct.js';

// The package's ESM entry fetch()es its .wasm (fails on file: URLs in Node); the CJS build reads it.
const { Plaintext, Poseidon8 } = createRequire(import.meta.url)('@provablehq/wasm/mainnet.js') as typeof import('@provablehq/wasm/mainnet.js');

const vectors = path.resolve(process.cwd(), '../shared/vectors/aleo');
const readme = JSON.parse(readFileSync(path.join(vectors, 'e2e/readme-decodeReport-examples.json'), 'utf8')) as { sgx: { request: { userData: string } } };
const multi = JSON.parse(readFileSync(path.join(vectors, 'venture23/multi-token-2026-01-14.response.json'), 'utf8')) as { oracleData: { userData: string } };
const hasher = new Poseidon8();
const native = createPoseidon8Native(undefined, 'portable');
const adx = nativeKernels().includes('adx') ? createPoseidon8Native(undefined, 'adx') : undefined;
const wasm = createPoseidon8Wasm();
const time = Number(process.env.BENCH_TIME_MS ?? 1500);
let sink = 0;

const medianOf = (xs: number[]): number => {
  const s = [...xs].sort((p, q) => p - q);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/**
 * (a) and (d) alternated call by call (ROUNDS rounds: one (a), then (d) for about as long), so that
 * the host's speed, which drifts by tens of percent between tinybench's task blocks on a shared VM,
 * is the same for both: the medians' ratio of this part is the least noisy figure of the run.
 */
function interleaved(text: string, bytes: Uint8Array): string {
  const rounds = Number(process.env.BENCH_INTERLEAVED_ROUNDS ?? 60);
  const a: number[] = [];
  const d: number[] = [];
  for (let r = 0; r < rounds + 5; r++) {
    let t = performance.now();
    const pt = Plaintext.fromString(text);
    const h = hasher.hash(pt.toFields());
    sink ^= h.toString().length;
    h.free();
    pt.free();
    const ta = performance.now() - t;
    const reps = Math.max(1, Math.round(ta / Math.max(0.05, d.length ? medianOf(d) : ta / 20)));
    const ds: number[] = [];
    for (let i = 0; i < reps; i++) {
      t = performance.now();
      sink ^= hashReportData(bytes)[0] as number;
      ds.push(performance.now() - t);
    }
    if (r < 5) continue; // warm-up rounds
    a.push(ta);
    d.push(...ds);
  }
  return `interleaved, ${rounds} rounds: (a) median ${medianOf(a).toFixed(3)} ms (${a.length} calls), (d) median ${medianOf(d).toFixed(3)} ms (${d.length} calls): a/d ${(medianOf(a) / medianOf(d)).toFixed(2)}×`;
}

async function runCase(label: string, text: string, chunks: number): Promise<void> {
  const bytes = parseChunkedStruct(text, chunks);
  // Agreement check before timing.
  // Poseidon8.hash takes ownership of the Field objects it is given, so (b) hashes fresh clone()s.
  type PeerField = { clone(): PeerField; free(): void };
  const peerFields = Plaintext.fromString(text).toFields() as PeerField[];
  const cloneFields = (): PeerField[] => peerFields.map((f) => f.clone());
  const peerHash = BigInt(hasher.hash(cloneFields()).toString().replace(/field$/, ''));
  const ours = [poseidon8(ALEO_POSEIDON8_DOMAIN, structFieldElements(bytes)), wasm.hashStruct(bytes), native.hashStruct(bytes), ...(adx ? [adx.hashStruct(bytes)] : [])];
  const d = hashReportData(bytes);
  if (ours.some((h) => h !== peerHash) || Buffer.compare(Buffer.from(d), Buffer.from(u128ToLeBytes(fieldToU128(peerHash)))) !== 0) {
    throw new Error(`hash mismatch: peer ${peerHash}, ours ${ours.join(' / ')} / ${Buffer.from(d).toString('hex')}`);
  }

  const bench = new Bench({ time, warmupTime: 300 });
  bench
    .add('(a) snarkVM wasm: fromString → toFields → hash', () => {
      const pt = Plaintext.fromString(text);
      const f = pt.toFields();
      const h = hasher.hash(f); // consumes f
      sink ^= h.toString().length;
      h.free();
      pt.free();
    })
    .add('(b) snarkVM wasm: hash(prepared fields)†', () => {
      const h = hasher.hash(cloneFields());
      sink ^= h.toString().length;
      h.free();
    })
    .add(`(b') snarkVM wasm: the ${peerFields.length} clone()s alone`, () => {
      for (const f of cloneFields()) f.free();
    })
    .add('(c) ours: BigInt reference from bytes', () => {
      sink ^= Number(poseidon8(ALEO_POSEIDON8_DOMAIN, structFieldElements(bytes)) & 1n);
    })
    .add(`(d) ours: hashReportData (kernel: ${poseidon8KernelName})`, () => {
      sink ^= hashReportData(bytes)[0] as number;
    })
    .add('(e) ours: WASM kernel bytes → limbs → hash', () => {
      sink ^= Number(wasm.hashStruct(bytes) & 1n);
    })
    .add('(n) ours: native portable kernel bytes → bits → hash', () => {
      sink ^= Number(native.hashStruct(bytes) & 1n);
    });
  if (adx) {
    bench.add('(x) ours: native ADX kernel bytes → bits → hash', () => {
      sink ^= Number(adx.hashStruct(bytes) & 1n);
    });
  }

  await bench.run();

  const mean: Record<string, number> = {};
  const median: Record<string, number> = {};
  console.log(`\n${label} (${bytes.length} B, ${peerFields.length} fields); node ${process.version}`);
  console.log('task'.padEnd(52) + 'mean ms'.padStart(10) + 'p50 ms'.padStart(10) + 'p99 ms'.padStart(10) + 'samples'.padStart(9));
  for (const t of bench.tasks) {
    const r = t.result;
    if (r.state !== 'completed') {
      console.log(`${t.name.padEnd(52)} ${r.state}`, r.state === 'errored' ? r.error : '');
      continue;
    }
    const key = /^\(([a-z]'?)\)/.exec(t.name)?.[1] ?? t.name;
    mean[key] = r.latency.mean;
    median[key] = r.latency.p50;
    console.log(t.name.padEnd(52) + r.latency.mean.toFixed(3).padStart(10) + r.latency.p50.toFixed(3).padStart(10) + r.latency.p99.toFixed(3).padStart(10) + String(r.latency.samplesCount).padStart(9));
  }
  const ratio = (x: string, y: string, of: Record<string, number> = mean): string => {
    const a = of[x];
    const b = of[y];
    return a === undefined || b === undefined ? 'n/a' : `${(a / b).toFixed(2)}×`;
  };
  console.log(`† includes the ${peerFields.length} clone()s; b−b' is the hash alone`);
  console.log(interleaved(text, bytes));
  for (const [name, of] of [['means', mean], ['medians', median]] as const) {
    console.log(`${name}: a/d ${ratio('a', 'd', of)}   a/x ${ratio('a', 'x', of)}   a/n ${ratio('a', 'n', of)}   a/e ${ratio('a', 'e', of)}   n/x ${ratio('n', 'x', of)}   b/n ${ratio('b', 'n', of)}   e/n ${ratio('e', 'n', of)}   c/n ${ratio('c', 'n', of)}`);
  }
}

await runCase('8-chunk README userData', readme.sgx.request.userData, 8);
await runCase('10-chunk multi-token userData', multi.oracleData.userData, 10);
if (sink === 0.5) console.log(sink);
