/**
 * HTTP load run of POST /decodeReport with a realistic typeA/typeB mix minted by the test PKIs:
 * the built service (dist/src/main.js) runs as its own process with 1 and then 2 verification
 * workers, a PCCS-compatible server serves the minted typeA collateral, and autocannon drives
 * the load from this process. Prints sustained throughput and p50/p99 latency, then latency at
 * 80% of the measured maximum rate, with the server's own latency histograms for that run. Each
 * service is first loaded for LOAD_WARM_SECONDS (default 10) so that its JIT reaches steady state.
 * After each service run the same load goes to the floor peer (bench/floorServer.ts: node:http and
 * raw worker_threads running the same core path) unless LOAD_FLOOR=0.
 * Usage: npm run build && npx tsx bench/http-load.ts
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import { serialize } from 'node:v8';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { defaultPcrs } from '../test/support/typeb-pki.js';
import { bundleFromCollateral, startPccsServer } from '../test/support/pccs-server.js';
import { reportText } from '../test/support/ledger-reports.js';
import { coreInputOf, createCorePath } from './corePath.js';
import { mintMix } from './mix.js';

const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');
const DURATION = Number(process.env.LOAD_SECONDS ?? 10);
/** Load before the measured runs, for the JIT to reach steady state. */
const WARM_SECONDS = Number(process.env.LOAD_WARM_SECONDS ?? 10);
/** Worker counts to run (LOAD_WORKERS=2 for one of them) and extra node flags for the service (e.g. --cpu-prof). */
const WORKER_COUNTS = (process.env.LOAD_WORKERS ?? '1,2').split(',').map(Number);
const NODE_ARGS = (process.env.LOAD_NODE_ARGS ?? '').split(' ').filter(Boolean);
/** Repetitions of each worker count (the machine's speed drifts; every repetition is printed). */
const REPEAT = Number(process.env.LOAD_REPEAT ?? 1);
/** LOAD_FLOOR=0 skips the floor peer (bench/floorServer.ts) after each service run. */
const FLOOR = process.env.LOAD_FLOOR !== '0';
const dir = mkdtempSync(join(tmpdir(), 'http-load-'));

// Test PKIs and the request mix: 64 distinct updates, half typeA, half typeB.
const mix = mintMix(64);
const { a, b, mrEnclave: MRENCLAVE } = mix;
const bodies = mix.updates.map((u, i) => JSON.stringify({ userData: u.userData.text, report: reportText(i % 2 === 0 ? u.typeA : u.typeB) }));
const coreInput = coreInputOf(mix);
const corePath = await createCorePath(coreInput);
const pccs = await startPccsServer(bundleFromCollateral(a.collateral));
writeFileSync(join(dir, 'a.pem'), a.root.pem);
writeFileSync(join(dir, 'b.pem'), b.rootPem);
writeFileSync(join(dir, 'core-input.v8'), serialize(coreInput));

function freePort(): Promise<number> {
  return new Promise((res) => {
    const s = createServer();
    s.listen(0, '127.0.0.1', () => {
      const p = (s.address() as { port: number }).port;
      s.close(() => res(p));
    });
  });
}

async function startService(workers: number): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const port = await freePort();
  const cfg = join(dir, `config-${workers}.json`);
  writeFileSync(
    cfg,
    JSON.stringify({
      port,
      host: '127.0.0.1',
      liveCheck: { skip: true },
      uniqueIdTarget: hex(MRENCLAVE),
      pcrValuesTarget: defaultPcrs().slice(0, 3).map(hex),
      acceptedTcbStatuses: ['UpToDate'],
      trustedRoots: { typeA: join(dir, 'a.pem'), typeB: join(dir, 'b.pem') },
      verificationTime: new Date(a.time).toISOString(),
      pccsUrl: pccs.url,
      workers,
      maxQueue: 4096,
      logLevel: 'warn',
    }),
  );
  const child = spawn(process.execPath, [...NODE_ARGS, resolve('dist/src/main.js'), '--config', cfg], { stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if ((await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200) break;
    if (i > 200) throw new Error('service did not become ready');
    await new Promise((r) => setTimeout(r, 100));
  }
  return {
    url,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((r) => {
        child.once('exit', () => r());
        child.kill('SIGTERM');
      }),
  };
}

/** The floor peer: node:http + raw worker_threads running the same core path (bench/floorServer.ts). */
async function startFloor(workers: number): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const port = await freePort();
  const tsx = pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href;
  const child = spawn(process.execPath, ['--import', tsx, resolve('bench/floorServer.ts'), String(port), String(workers), join(dir, 'core-input.v8')], {
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  await new Promise<void>((ok, fail) => {
    child.once('message', () => ok());
    child.once('exit', (code) => fail(new Error(`floor server exited with ${code}`)));
  });
  child.removeAllListeners('exit');
  return {
    url: `http://127.0.0.1:${port}`,
    pid: child.pid!,
    stop: () =>
      new Promise<void>((r) => {
        child.once('exit', () => r());
        child.kill('SIGTERM');
      }),
  };
}

interface Run {
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  invalid: number;
}

async function load(url: string, opts: { connections: number; overallRate?: number; seconds: number }): Promise<Run> {
  let invalid = 0;
  const onResponse = (status: number, body: string) => {
    if (status === 200 && !body.includes('"reportValid":true')) invalid++;
  };
  // One static request per body: autocannon builds each request buffer once and cycles through
  // them (a setupRequest function would rebuild a 25 KB buffer per request on the shared cores).
  const r = await autocannon({
    url: `${url}/decodeReport`,
    connections: opts.connections,
    duration: opts.seconds,
    ...(opts.overallRate ? { overallRate: opts.overallRate } : {}),
    requests: bodies.map((body) => ({ method: 'POST', headers: { 'content-type': 'application/json' }, body, onResponse })),
  } as unknown as autocannon.Options);
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors, invalid };
}

/**
 * Open-loop run at a fixed rate: one request every 1/rate s on a keep-alive agent, whatever the
 * answers (autocannon's overallRate refills once a second and sends bursts, which inflates p99).
 */
async function paced(url: string, rate: number, seconds: number): Promise<Run> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const target = new URL(`${url}/decodeReport`);
  const lat: number[] = [];
  let non2xx = 0;
  let errors = 0;
  let invalid = 0;
  let i = 0;
  const total = Math.round(rate * seconds);
  const t0 = performance.now();
  const pending: Promise<void>[] = [];
  for (let n = 0; n < total; n++) {
    const due = t0 + (n * 1000) / rate;
    const wait = due - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const body = bodies[i++ % bodies.length]!;
    const start = performance.now();
    pending.push(
      new Promise<void>((res) => {
        const req = http.request(target, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (r) => {
          let text = '';
          r.setEncoding('utf8');
          r.on('data', (d: string) => (text += d));
          r.on('end', () => {
            lat.push(performance.now() - start);
            if (r.statusCode !== 200) non2xx++;
            else if (!text.includes('"reportValid":true')) invalid++;
            res();
          });
        });
        req.on('error', () => {
          errors++;
          res();
        });
        req.end(body);
      }),
    );
  }
  await Promise.all(pending);
  const elapsed = (performance.now() - t0) / 1000;
  agent.destroy();
  lat.sort((x, y) => x - y);
  const pct = (q: number) => lat[Math.min(lat.length - 1, Math.floor(q * lat.length))] ?? NaN;
  return { rps: lat.length / elapsed, p50: Math.round(pct(0.5) * 10) / 10, p99: Math.round(pct(0.99) * 10) / 10, non2xx, errors, invalid };
}

/** CPU seconds (user + system) used so far by a process (or, with tid, one of its threads), from /proc. */
function cpuSeconds(pid: number, tid?: number): number {
  const path = tid === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${tid}/stat`;
  const f = readFileSync(path, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100; // utime, stime in clock ticks (USER_HZ = 100)
}

/** CPU seconds of every thread of a process, by thread id. */
function threadSeconds(pid: number): Map<number, number> {
  const out = new Map<number, number>();
  for (const tid of readdirSync(`/proc/${pid}/task`)) {
    try {
      out.set(Number(tid), cpuSeconds(pid, Number(tid)));
    } catch {
      /* thread ended */
    }
  }
  return out;
}

/** Splits a process's CPU over an interval: the main thread, the `workers` busiest other threads, the rest. */
function splitThreads(pid: number, before: Map<number, number>, after: Map<number, number>, workers: number) {
  const used = [...after].map(([tid, s]) => ({ tid, s: s - (before.get(tid) ?? 0) }));
  const main = used.find((t) => t.tid === pid)?.s ?? 0;
  const others = used.filter((t) => t.tid !== pid).sort((x, y) => y.s - x.s);
  const busiest = others.slice(0, workers).reduce((a, t) => a + t.s, 0);
  const rest = others.slice(workers).reduce((a, t) => a + t.s, 0);
  // Node names every thread "node": tell them apart by thread id offset (V8's platform threads
  // are created right after the main thread, libuv's pool on first use).
  const restByThread: Record<string, number> = {};
  for (const t of others.slice(workers)) if (t.s > 0) restByThread[`+${t.tid - pid}`] = t.s;
  return { main, workers: busiest, rest, restByThread };
}

/** The service's Prometheus text. */
const scrape = (url: string) => fetch(`${url}/metrics`).then((r) => r.text());

/** The server's own view of a run: cumulative bucket counts of a histogram, as differences of two scrapes. */
const SERVER_HISTOGRAMS: Record<string, [name: string, label: string]> = {
  'HTTP request (receipt → response)': ['verifier_http_request_duration_seconds_bucket{', 'route="/decodeReport"'],
  'pool task (submission → result)': ['verifier_pool_task_duration_seconds_bucket{', ''],
};
function serverHistograms(before: string, after: string): Record<string, string> {
  const buckets = (text: string, [name, label]: [string, string]) => {
    const m = new Map<string, number>();
    for (const line of text.split('\n')) {
      if (!line.startsWith(name) || !line.includes(label)) continue;
      const le = /le="([^"]+)"/.exec(line)?.[1];
      if (le) m.set(le, (m.get(le) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
    }
    return m;
  };
  const out: Record<string, string> = {};
  for (const [label, which] of Object.entries(SERVER_HISTOGRAMS)) {
    const b0 = buckets(before, which);
    const counts = [...buckets(after, which)].map(([le, n]) => [le, n - (b0.get(le) ?? 0)] as const);
    const total = counts.find(([le]) => le === '+Inf')?.[1] ?? 0;
    out[label] = counts
      .filter(([le]) => ['0.005', '0.01', '0.025', '0.05'].includes(le))
      .map(([le, n]) => `≤ ${Number(le) * 1000} ms ${total ? ((100 * n) / total).toFixed(1) : '–'} %`)
      .join(', ');
  }
  return out;
}

const results: Record<string, Run> = {};
const cpu: Record<string, { server: number; main: number; workers: number; rest: number; restByThread: Record<string, number>; client: number; requests: number }> = {};
const serverSide: Record<string, Record<string, string>> = {};
const capacity: Record<string, { coreMs: number; workers: number; rps: number; ratio: number; paced: number }> = {};
for (const workers of WORKER_COUNTS) {
  for (let rep = 1; rep <= REPEAT; rep++) {
    const tag = `${workers} worker(s)${REPEAT > 1 ? ` #${rep}` : ''}`;
    for (const kind of FLOOR ? (['service', 'floor'] as const) : (['service'] as const)) {
      const name = kind === 'service' ? tag : `${tag} floor`;
      const svc = kind === 'service' ? await startService(workers) : await startFloor(workers);
      // Warm caches and JIT until steady state: three isolates tier up their code, and V8's
      // background compiler still costs ~0.3 ms of CPU per request after 2 s of load.
      await load(svc.url, { connections: 8 * workers, seconds: WARM_SECONDS });
      // the per-report core cost, measured now (server idle) so that both figures share the machine's state
      const core = await corePath.measure({ timeMs: 2000, warmupMs: 300 });
      const s0 = cpuSeconds(svc.pid);
      const t0 = threadSeconds(svc.pid);
      const c0 = process.cpuUsage();
      const max = await load(svc.url, { connections: 8 * workers, seconds: DURATION });
      const c1 = process.cpuUsage(c0);
      const split = splitThreads(svc.pid, t0, threadSeconds(svc.pid), workers);
      cpu[`${name}, max`] = { server: cpuSeconds(svc.pid) - s0, ...split, client: (c1.user + c1.system) / 1e6, requests: max.rps * DURATION };
      results[`${name}, max`] = max;
      const m0 = kind === 'service' ? await scrape(svc.url) : '';
      const ps0 = cpuSeconds(svc.pid);
      const pc0 = process.cpuUsage();
      const at80 = await paced(svc.url, Math.max(1, Math.floor(max.rps * 0.8)), DURATION);
      const pc1 = process.cpuUsage(pc0);
      serverSide[name] = {
        ...(kind === 'service' ? serverHistograms(m0, await scrape(svc.url)) : {}),
        'CPU (2 cores = 2 CPU-s per s)': `server ${((cpuSeconds(svc.pid) - ps0) / DURATION).toFixed(2)} CPU-s/s, load generator ${((pc1.user + pc1.system) / 1e6 / DURATION).toFixed(2)} CPU-s/s`,
      };
      results[`${name}, 80% of max (paced)`] = at80;
      capacity[name] = { coreMs: core.mixMs, workers, rps: max.rps, ratio: (max.rps * core.mixMs) / (1000 * workers), paced: at80.p99 / Math.max(1e-9, at80.p50) };
      await svc.stop();
    }
  }
}
await pccs.close();

console.log('\nPOST /decodeReport, 50% typeA / 50% typeB, 64 distinct minted updates');
console.log('("floor": node:http + raw worker_threads running the same core path, bench/floorServer.ts)');
console.log('run'.padEnd(28), 'req/s'.padStart(8), 'p50 ms'.padStart(8), 'p99 ms'.padStart(8), 'p99/p50'.padStart(8), 'non-2xx'.padStart(8), 'invalid'.padStart(8));
for (const [k, v] of Object.entries(results)) {
  console.log(k.padEnd(28), v.rps.toFixed(1).padStart(8), String(v.p50).padStart(8), String(v.p99).padStart(8), (v.p99 / Math.max(1, v.p50)).toFixed(2).padStart(8), String(v.non2xx).padStart(8), String(v.invalid).padStart(8));
}
console.log('\nCPU during the max runs (2 cores = 2 CPU-s per s):');
for (const [k, v] of Object.entries(cpu)) {
  const perReq = (x: number) => ((1000 * x) / v.requests).toFixed(2);
  console.log(
    `${k.padEnd(28)} server ${(v.server / DURATION).toFixed(2)} CPU-s/s = ${perReq(v.server)} ms CPU per request: HTTP thread ${perReq(v.main)}, ` +
      `worker threads ${perReq(v.workers)} (busy ${((100 * v.workers) / (DURATION * Number(k[0]))).toFixed(0)} %), other threads ${perReq(v.rest)}; ` +
      `load generator ${(v.client / DURATION).toFixed(2)} CPU-s/s = ${perReq(v.client)} ms per request`,
  );
  const named = Object.entries(v.restByThread).filter(([, s]) => s > 0).sort((x, y) => y[1] - x[1]);
  console.log(`${''.padEnd(28)} other threads (V8 platform, libuv) by thread id offset: ${named.map(([n, s]) => `${n} ${perReq(s)}`).join(', ')}`);
}
console.log('\nThe server\'s own latency histograms during the paced runs (share of requests within each bound):');
for (const [k, v] of Object.entries(serverSide)) for (const [what, line] of Object.entries(v)) console.log(`${k.padEnd(20)} ${what.padEnd(40)} ${line}`);
console.log('\nThroughput against the core path measured just before each run (target ≥ 0.85) and p99/p50 at 80 % (target ≤ 3):');
for (const [k, v] of Object.entries(capacity)) {
  console.log(
    `${k.padEnd(20)} core ${v.coreMs.toFixed(3)} ms/report → ${v.workers} ÷ core = ${((1000 * v.workers) / v.coreMs).toFixed(0)} req/s; ` +
      `measured ${v.rps.toFixed(1)} = ${(100 * v.ratio).toFixed(1)} %; paced p99/p50 ${v.paced.toFixed(2)}`,
  );
}
console.log(JSON.stringify({ results, cpu, capacity, serverSide }));
