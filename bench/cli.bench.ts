/**
 * Offline JSONL throughput of `oracle-verifier reverify` (2 workers, offline collateral directory)
 * against the raw capacity of the same VerifierPool fed directly with parsed bytes, and A/B of the
 * CLI's two ways to hand updates to the pool, interleaved (A, B, A, B) on the same pool:
 *   A: one pool task per update (updateBatch 1, before batches);
 *   B: runs of UPDATE_BATCH updates per pool task, userData hashed in one call (the default).
 * Run: node --import tsx bench/cli.bench.ts [N]   (N updates per kind, default 300)
 * Inputs: the real ledger sgx and nitro updates (readme examples), repeated; typeA verified at
 * 2026-09-23 with the recorded 2026 Intel collateral written by `collateral fetch`.
 */
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { parseChunkedStruct, REPORT_CHUNKS, USER_DATA_CHUNKS } from '../src/aleo/struct.js';
import { createCliVerifier } from '../src/cli/context.js';
import { runReverify } from '../src/cli/reverify.js';
import { jsonlSource } from '../src/cli/sources.js';
import { UPDATE_BATCH } from '../src/ledger/watch/verifyUpdates.js';
import { Semaphore } from '../src/rateLimit.js';
import { poseidon8KernelName } from '../src/hash/kernel.js';
import { AT, offlineUpdates } from './offlineUpdates.js';

const N = Number(process.argv[2] ?? 300);
const WORKERS = 2;
const { dir, config, collateralDir, pairs, jsonl } = await offlineUpdates(N, 'cli-bench-');

const verifier = createCliVerifier({ configPath: config, at: AT, workers: WORKERS, collateralDir });
const pool = verifier.pool!;
const inFlight = WORKERS * 4;

// Warm-up: worker start, collateral verification, caches.
await Promise.all(pairs.slice(0, 8).map((p) => verifier.verify(p.userData, p.report)));

// 1. Raw pool capacity: parsed bytes straight into verifyBytes, `inFlight` at a time.
const tasks = pairs.map((p) => ({ userData: parseChunkedStruct(p.userData, USER_DATA_CHUNKS), report: parseChunkedStruct(p.report, REPORT_CHUNKS) }));
const sem = new Semaphore(inFlight);
let t0 = performance.now();
const outs = await Promise.all(tasks.map((t) => sem.run(() => pool.verifyBytes(t))));
const rawSecs = (performance.now() - t0) / 1000;
if (!outs.every((o) => o.reportValid)) throw new Error('raw pool: some verification failed');

/** CPU seconds of this process's main thread (Linux: /proc/self/task/<pid>/stat; else undefined). */
function mainThreadCpu(): number | undefined {
  try {
    const st = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
    const f = st.slice(st.lastIndexOf(')') + 2).split(' ');
    return (Number(f[11]) + Number(f[12])) / 100; // utime + stime, in clock ticks of 1/100 s
  } catch {
    return undefined;
  }
}

// 2. The CLI path: JSONL read, struct parse on the main thread, pool, records, output file, checkpoint.
// Each run also says how busy the CPU was: process CPU time ÷ wall time (2 = both cores busy),
// and the main thread's share (the rest: the workers, V8's GC helpers, libuv).
let runs = 0;
const cpuLines: string[] = [];
const runCli = async (updateBatch: number): Promise<number> => {
  let stderr = '';
  const n = runs++;
  const t = performance.now();
  const cpu0 = process.cpuUsage();
  const main0 = mainThreadCpu();
  const code = await runReverify({
    source: jsonlSource(jsonl),
    verifier,
    maxInFlight: inFlight,
    updateBatch,
    annotateInForce: true,
    outFile: join(dir, `out-${n}.jsonl`),
    checkpointFile: join(dir, `out-${n}.ckpt`),
    resume: false,
    progressIntervalMs: 0,
    io: { stderr: (s) => void (stderr += s), tty: false },
  });
  if (code !== 0) throw new Error(`reverify exit ${code}\n${stderr}`);
  const wall = (performance.now() - t) / 1000;
  const c = process.cpuUsage(cpu0);
  const cpu = (c.user + c.system) / 1e6;
  const main1 = mainThreadCpu();
  const main = main0 !== undefined && main1 !== undefined ? `, main thread ${(main1 - main0).toFixed(2)} s` : '';
  cpuLines.push(`run ${n + 1} (${updateBatch} per task): CPU ${cpu.toFixed(2)} s in ${wall.toFixed(2)} s = ${(cpu / wall).toFixed(2)} cores busy${main}`);
  return wall;
};
const secs: Record<'A' | 'B', number[]> = { A: [], B: [] };
for (let round = 0; round < 2; round++) {
  secs.A.push(await runCli(1));
  secs.B.push(await runCli(UPDATE_BATCH));
}
const cliSecs = Math.min(...secs.B);
await verifier.close();
rmSync(dir, { recursive: true, force: true });

const total = pairs.length;
const row = (name: string, secs: number) => `${name.padEnd(44)} ${(total / secs).toFixed(0).padStart(6)} updates/s  (${total} in ${secs.toFixed(2)} s)`;
console.log(`updates: ${total} (${N} sgx + ${N} nitro), workers ${WORKERS}, in flight ${inFlight}; hash kernel ${poseidon8KernelName}`);
console.log(row('raw pool capacity (verifyBytes, parsed bytes)', rawSecs));
for (const [i, a] of secs.A.entries()) {
  console.log(row(`A reverify --jsonl, 1 update per task (run ${i + 1})`, a));
  console.log(row(`B reverify --jsonl, ${UPDATE_BATCH} per task (run ${i + 1})`, secs.B[i]!));
}
console.log(`B / A (best of each): ${(Math.min(...secs.A) / cliSecs).toFixed(2)}×`);
for (const l of cpuLines) console.log(l);
console.log(`CLI (B, best) / raw: ${((100 * rawSecs) / cliSecs).toFixed(0)} %`);
