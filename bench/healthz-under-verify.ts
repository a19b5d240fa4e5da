/**
 * GET /healthz latency while the HTTP thread's neighbours are busy: the built service
 * (dist/src/main.js) as its own process, first idle, then under HZ_CONNECTIONS (50) concurrent
 * POST /verify requests of HZ_ENTRIES (16) notarizer responses each (typeA and typeB alternating,
 * without oracleData: every era's candidate is re-encoded and hashed, the most hashing an entry
 * can cost). A sampler on its own thread (and connection) sends one /healthz every HZ_GAP_MS (20)
 * and records each latency; the same sampler runs idle first, in the same run. Prints the /healthz
 * percentiles idle and under load, what the /verify load got (answers by status, reports/s) and
 * the service's HTTP thread's CPU meanwhile (from /proc/<pid>/task/<pid>/stat). The service runs
 * with the image's node flags (NODE_OPTIONS in the Dockerfile) and the default config.
 * Usage: npm run build && npx tsx bench/healthz-under-verify.ts
 * Env: HZ_CONNECTIONS=50 HZ_ENTRIES=16 HZ_SECONDS=20 HZ_IDLE_SECONDS=5 HZ_WORKERS=2 HZ_GAP_MS=20 HZ_REPEAT=1
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import autocannon from 'autocannon';
import { bundleFromCollateral, startPccsServer } from '../test/support/pccs-server.js';
import { mintMix, mixConfig } from './mix.js';
import { imageNodeArgs, startServiceProcess } from './serviceProcess.js';
import { mintAttestationResponses } from './verifyEntries.js';

const CONNECTIONS = Number(process.env.HZ_CONNECTIONS ?? 50);
const ENTRIES = Number(process.env.HZ_ENTRIES ?? 16);
const SECONDS = Number(process.env.HZ_SECONDS ?? 20);
const IDLE_SECONDS = Number(process.env.HZ_IDLE_SECONDS ?? 5);
const WORKERS = Number(process.env.HZ_WORKERS ?? 2);
const GAP_MS = Number(process.env.HZ_GAP_MS ?? 20);
const REPEAT = Number(process.env.HZ_REPEAT ?? 1);

const dir = mkdtempSync(join(tmpdir(), 'healthz-bench-'));
const mix = mintMix(1);
const pccs = await startPccsServer(bundleFromCollateral(mix.a.collateral));
const entries = await mintAttestationResponses({ typeA: mix.a, typeB: mix.b, mrEnclave: mix.mrEnclave, count: ENTRIES });
const body = JSON.stringify({ reports: entries });

/** Sends GET /healthz one after the other (HZ_GAP_MS apart) on one keep-alive connection until told to stop; answers the latencies (ms). */
const SAMPLER = `
const { parentPort, workerData } = require('node:worker_threads');
const http = require('node:http');
const agent = new http.Agent({ keepAlive: true, maxSockets: 1 });
let stop = false;
parentPort.on('message', () => { stop = true; });
const one = () => new Promise((res) => {
  const t0 = performance.now();
  http.get(workerData.url + '/healthz', { agent }, (r) => { r.resume(); r.on('end', () => res(r.statusCode === 200 ? performance.now() - t0 : NaN)); }).on('error', () => res(NaN));
});
(async () => {
  const lat = [];
  while (!stop) {
    lat.push(await one());
    await new Promise((r) => setTimeout(r, workerData.gapMs));
  }
  agent.destroy();
  parentPort.postMessage(lat);
})();
`;

function sampler(url: string): { stop(): Promise<number[]> } {
  const w = new Worker(SAMPLER, { eval: true, workerData: { url, gapMs: GAP_MS } });
  const done = new Promise<number[]>((res) => w.once('message', res));
  return {
    async stop() {
      w.postMessage('stop');
      const lat = await done;
      await w.terminate();
      return lat;
    },
  };
}

interface Summary {
  n: number;
  failed: number;
  p50: number;
  p90: number;
  p99: number;
  max: number;
  over100: number;
}

function summarise(lat: number[]): Summary {
  const ok = lat.filter((x) => Number.isFinite(x)).sort((a, b) => a - b);
  const pct = (q: number) => ok[Math.min(ok.length - 1, Math.floor(q * ok.length))] ?? NaN;
  const r = (x: number) => Math.round(x * 10) / 10;
  return { n: ok.length, failed: lat.length - ok.length, p50: r(pct(0.5)), p90: r(pct(0.9)), p99: r(pct(0.99)), max: r(ok.at(-1) ?? NaN), over100: ok.filter((x) => x > 100).length };
}

/** CPU seconds (user + system) of the service's main thread (the HTTP thread) so far. */
function mainThreadSeconds(pid: number): number {
  const f = readFileSync(`/proc/${pid}/task/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
}

const rows: { run: string; idle: Summary; load: Summary; verify: string; httpThread: number }[] = [];
for (let rep = 1; rep <= REPEAT; rep++) {
  const svc = await startServiceProcess({ ...mixConfig(mix, dir, pccs.url), workers: WORKERS, logLevel: 'warn' }, dir, `healthz-${rep}`, imageNodeArgs());
  try {
    // The batch is valid as a whole (the check the load counts on), and the caches are warm.
    const first = await fetch(`${svc.url}/verify`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
    const answer = (await first.json()) as { success?: boolean; errorMessage?: string };
    if (first.status !== 200 || answer.success !== true) throw new Error(`the ${ENTRIES}-entry batch is not valid: ${first.status} ${JSON.stringify(answer).slice(0, 300)}`);
    await autocannon({ url: `${svc.url}/verify`, connections: 4, duration: 3, method: 'POST', headers: { 'content-type': 'application/json' }, body } as autocannon.Options);

    const idleSampler = sampler(svc.url);
    await new Promise((r) => setTimeout(r, IDLE_SECONDS * 1000));
    const idle = summarise(await idleSampler.stop());

    const loadSampler = sampler(svc.url);
    const cpu0 = mainThreadSeconds(svc.pid);
    let valid = 0;
    const r = await autocannon({
      url: `${svc.url}/verify`,
      connections: CONNECTIONS,
      duration: SECONDS,
      requests: [{ method: 'POST', headers: { 'content-type': 'application/json' }, body, onResponse: (status: number, b: string) => void (status === 200 && b.startsWith('{"success":true') && valid++) }],
    } as unknown as autocannon.Options);
    const httpThread = (mainThreadSeconds(svc.pid) - cpu0) / SECONDS;
    const load = summarise(await loadSampler.stop());
    const by = Object.entries(r.statusCodeStats ?? {}).map(([s, v]) => `${s}: ${(v as { count: number }).count}`).join(', ');
    rows.push({ run: `#${rep}`, idle, load, verify: `${r.requests.total} answers (${by}; ${valid} all valid), ${((valid * ENTRIES) / SECONDS).toFixed(0)} valid reports/s, p50 ${r.latency.p50} ms, errors ${r.errors}`, httpThread });
  } finally {
    await svc.stop();
  }
}
await pccs.close();
rmSync(dir, { recursive: true, force: true });

console.log(`GET /healthz every ${GAP_MS} ms, idle (${IDLE_SECONDS} s) and under ${CONNECTIONS} concurrent POST /verify of ${ENTRIES} entries (${SECONDS} s), ${WORKERS} worker(s); ms`);
console.log('run  phase  samples  p50     p90     p99     max     >100ms  failed');
for (const x of rows) {
  for (const [phase, s] of [['idle', x.idle], ['load', x.load]] as const) {
    console.log(`${x.run.padEnd(5)}${phase.padEnd(7)}${String(s.n).padEnd(9)}${String(s.p50).padEnd(8)}${String(s.p90).padEnd(8)}${String(s.p99).padEnd(8)}${String(s.max).padEnd(8)}${String(s.over100).padEnd(8)}${s.failed}`);
  }
  console.log(`     /verify: ${x.verify}; HTTP thread busy ${(100 * x.httpThread).toFixed(0)} % of the load's time`);
}
