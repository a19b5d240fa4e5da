/**
 * HTTP load run of POST /decodeReport with a realistic typeA/typeB mix minted by the test PKIs:
 * the built service (dist/src/main.js) runs as its own process with 1 and then 2 verification
 * workers, a PCCS-compatible server serves the minted typeA collateral, and autocannon drives
 * the load from this process. Each peer (PEERS below: the service, the service without Fastify,
 * the node:http floor with Piscina, with the parse, and bare) is warmed for LOAD_WARM_SECONDS
 * (default 10), then loaded at its maximum rate and after that paced at one rate,
 * LOAD_PACED_SHARE (0.6) of the service's maximum; both phases run the peers in turns of
 * LOAD_SLICE_SECONDS (each round starting with the next peer, in whole cycles of the peers) until
 * each has had at least LOAD_SECONDS, so that the host's drift falls on all alike (a maximum's p50
 * and p99 are the medians of its turns'). Prints throughput, p50/p99 latency, the server's own
 * latency histograms (and the floors' own HTTP latency, bench/peerLatency.ts), and the HTTP
 * thread's CPU per request of each peer read from /proc: the differences between rungs price the
 * layers. LOAD_FLOOR=0 runs the service alone.
 * Usage: npm run build && npx tsx bench/http-load.ts
 */
import { spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { serialize } from 'node:v8';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import autocannon from 'autocannon';
import { bundleFromCollateral, startPccsServer } from '../test/support/pccs-server.js';
import { reportText } from '../test/support/ledger-reports.js';
import { coreInputOf, createCorePath } from './corePath.js';
import { mintMix, mixConfig } from './mix.js';
import { startBenchPeer, stopOf, type PeerProcess } from './peerProcess.js';
import { pacedPosts, turnRounds, turns, type PacedRaw } from './pacedLoad.js';
import { byLe } from './peerLatency.js';
import { addDeltas, measuredTurn, splitThreads } from './procStat.js';

const DURATION = Number(process.env.LOAD_SECONDS ?? 10);
/** Load before the measured runs, for the JIT to reach steady state. */
const WARM_SECONDS = Number(process.env.LOAD_WARM_SECONDS ?? 10);
/** Worker counts to run (LOAD_WORKERS=2 for one of them) and extra node flags for the service (e.g. --cpu-prof). */
const WORKER_COUNTS = (process.env.LOAD_WORKERS ?? '1,2').split(',').map(Number);
const NODE_ARGS = (process.env.LOAD_NODE_ARGS ?? '').split(' ').filter(Boolean);
/** Extra node flags for the other peers (e.g. --cpu-prof --cpu-prof-dir=DIR). */
const PEER_NODE_ARGS = (process.env.LOAD_PEER_NODE_ARGS ?? '').split(' ').filter(Boolean);
/** Repetitions of each worker count (the machine's speed drifts; every repetition is printed). */
const REPEAT = Number(process.env.LOAD_REPEAT ?? 1);
/** LOAD_FLOOR=0 runs the service alone; LOAD_PEERS=service,floor (say) chooses the peers (see PEERS). */
const FLOOR = process.env.LOAD_FLOOR !== '0';
const dir = mkdtempSync(join(tmpdir(), 'http-load-'));

// Test PKIs and the request mix: 64 distinct updates, half typeA, half typeB.
const mix = mintMix(64);
const bodies = mix.updates.map((u, i) => JSON.stringify({ userData: u.userData.text, report: reportText(i % 2 === 0 ? u.typeA : u.typeB) }));
const coreInput = coreInputOf(mix);
const corePath = await createCorePath(coreInput);
const pccs = await startPccsServer(bundleFromCollateral(mix.a.collateral));
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

/** The service's config for a worker count (the frameworkless peer reads the same file). */
function writeConfig(workers: number, port: number): string {
  const cfg = join(dir, `config-${workers}.json`);
  writeFileSync(cfg, JSON.stringify({ port, host: '127.0.0.1', ...mixConfig(mix, dir, pccs.url), workers, maxQueue: 4096, logLevel: 'warn' }));
  return cfg;
}

/**
 * LOAD_BASE_MAIN=<another build's dist/src/main.js> adds the peer `base`: that build of the service
 * on the same config (with LOAD_PEER_NODE_ARGS), paced beside this one, for an A/B of a change.
 */
const BASE_MAIN = process.env.LOAD_BASE_MAIN;

async function startService(workers: number, main = resolve('dist/src/main.js'), nodeArgs = NODE_ARGS): Promise<PeerProcess> {
  const port = await freePort();
  const cfg = writeConfig(workers, port);
  const child = spawn(process.execPath, [...nodeArgs, main, '--config', cfg], { stdio: ['ignore', 'ignore', 'inherit'] });
  const url = `http://127.0.0.1:${port}`;
  for (let i = 0; ; i++) {
    if ((await fetch(`${url}/readyz`).catch(() => undefined))?.status === 200) break;
    if (i > 200) throw new Error('service did not become ready');
    await new Promise((r) => setTimeout(r, 100));
  }
  return { url, pid: child.pid!, stop: stopOf(child) };
}

/**
 * The peers, from the service down to the floor; each rung drops one layer of the service, so
 * the differences between rungs price the layers (same load, same run):
 * - service: the built service (Fastify: routing, schema, hooks, logger, metrics, serialiser);
 * - base: another build of the service (LOAD_BASE_MAIN), for an A/B of a change;
 * - frameworkless: the same composed verifier (struct parse, collateral prefetch, Piscina pool,
 *   verification metrics) behind bare node:http with JSON.parse/JSON.stringify;
 * - floor+piscina: node:http + JSON.parse + the service's struct parse, bytes to a Piscina pool
 *   set up as the service's (one abort signal per task) running the core path;
 * - floor+parse: the same with raw worker_threads instead of Piscina;
 * - floor: node:http, the body's bytes to raw workers (bench/floorServer.ts).
 */
const PEERS = {
  service: (workers: number) => startService(workers),
  base: (workers: number) => {
    if (!BASE_MAIN) throw new Error('LOAD_PEERS: the peer base needs LOAD_BASE_MAIN (another build\'s dist/src/main.js)');
    return startService(workers, resolve(BASE_MAIN), PEER_NODE_ARGS);
  },
  frameworkless: (workers: number) => startBenchPeer('frameworklessServer.ts', [writeConfig(workers, 0)], { nodeArgs: PEER_NODE_ARGS }),
  'floor+piscina': (workers: number) => startBenchPeer('floorServer.ts', [String(workers), join(dir, 'core-input.v8'), 'piscina'], { nodeArgs: PEER_NODE_ARGS }),
  'floor+parse': (workers: number) => startBenchPeer('floorServer.ts', [String(workers), join(dir, 'core-input.v8'), 'parse'], { nodeArgs: PEER_NODE_ARGS }),
  floor: (workers: number) => startBenchPeer('floorServer.ts', [String(workers), join(dir, 'core-input.v8')], { nodeArgs: PEER_NODE_ARGS }),
} as const;
type PeerName = keyof typeof PEERS;
const PEER_NAMES = (process.env.LOAD_PEERS ?? (FLOOR ? Object.keys(PEERS).filter((p) => p !== 'base' || BASE_MAIN).join(',') : 'service')).split(',') as PeerName[];
for (const p of PEER_NAMES) if (!(p in PEERS)) throw new Error(`LOAD_PEERS: unknown peer ${p} (known: ${Object.keys(PEERS).join(', ')})`);
if (PEER_NAMES[0] !== 'service') throw new Error('LOAD_PEERS: the service comes first (the others are paced at its rate)');

interface Run {
  /** Answers a second (maximum runs: answered over their turns' seconds). */
  rps: number;
  p50: number;
  p99: number;
  non2xx: number;
  errors: number;
  invalid: number;
  /** Responses counted and the seconds they came in (for the sum over turns). */
  answered: number;
  seconds: number;
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
  return { rps: r.requests.average, p50: r.latency.p50, p99: r.latency.p99, non2xx: r.non2xx, errors: r.errors, invalid, answered: r.requests.total, seconds: r.duration };
}

/** Latency percentiles and rate of one or more paced slices taken together. */
function summarise(slices: PacedRaw[]): Run {
  const lat = slices.flatMap((x) => x.lat).sort((x, y) => x - y);
  const elapsed = slices.reduce((a, x) => a + x.elapsed, 0);
  const sum = (k: 'non2xx' | 'errors' | 'invalid') => slices.reduce((a, x) => a + x[k], 0);
  const pct = (q: number) => lat[Math.min(lat.length - 1, Math.floor(q * lat.length))] ?? NaN;
  return { rps: lat.length / elapsed, p50: Math.round(pct(0.5) * 10) / 10, p99: Math.round(pct(0.99) * 10) / 10, non2xx: sum('non2xx'), errors: sum('errors'), invalid: sum('invalid'), answered: lat.length, seconds: elapsed };
}

/** One paced slice of the mix's bodies (bench/pacedLoad.ts). */
const paced = (url: string, rate: number, seconds: number): Promise<PacedRaw> => pacedPosts(url, bodies, rate, seconds);

/** The service's Prometheus text. */
const scrape = (url: string) => fetch(`${url}/metrics`).then((r) => r.text());

/** The line of the requests' own latency: the service's HTTP histogram, and a floor's counts of the same (bench/peerLatency.ts). */
const HTTP_LATENCY = 'HTTP request (receipt → response)';
/** The server's own view of a run: cumulative bucket counts of a histogram, as differences of two scrapes. */
const SERVER_HISTOGRAMS: Record<string, [name: string, label: string]> = {
  [HTTP_LATENCY]: ['verifier_http_request_duration_seconds_bucket{', 'route="/decodeReport"'],
  'pool task (submission → result)': ['verifier_pool_task_duration_seconds_bucket{', ''],
  'pool queue wait (submission → worker)': ['verifier_pool_queue_wait_seconds_bucket{', ''],
  'worker run (incl. collateral wait)': ['verifier_pool_run_seconds_bucket{', ''],
  'collateral wait (worker asks → gets)': ['verifier_collateral_wait_seconds_bucket{', ''],
  'worker GC pauses': ['verifier_worker_gc_pause_seconds_bucket{', ''],
  // The HTTP thread's own GC pauses (prom-client's default GC histogram; buckets 1, 10, 100 ms).
  'HTTP-thread GC: scavenges': ['verifier_nodejs_gc_duration_seconds_bucket{', 'kind="minor"'],
  'HTTP-thread GC: mark-compact pauses': ['verifier_nodejs_gc_duration_seconds_bucket{', 'kind="major"'],
  'HTTP-thread GC: incremental marking': ['verifier_nodejs_gc_duration_seconds_bucket{', 'kind="incremental"'],
};
/** Cumulative bucket counts by `le` of one histogram in a Prometheus text (summed over its other labels). */
function bucketsIn(text: string, [name, label]: [string, string]): Map<string, number> {
  const m = new Map<string, number>();
  for (const line of text.split('\n')) {
    if (!line.startsWith(name) || !line.includes(label)) continue;
    const le = /le="([^"]+)"/.exec(line)?.[1];
    if (le) m.set(le, (m.get(le) ?? 0) + Number(line.slice(line.lastIndexOf(' ') + 1)));
  }
  return m;
}
/** A histogram's share within each bound between two readings of its cumulative counts, and the count over 100 ms. */
function histogramLine(before: Map<string, number>, after: Map<string, number>): string {
  const counts = [...after].map(([le, n]) => [le, n - (before.get(le) ?? 0)] as const);
  const total = counts.find(([le]) => le === '+Inf')?.[1] ?? 0;
  return (
    `n ${total}: ` +
    counts
      .filter(([le]) => ['0.001', '0.005', '0.01', '0.025', '0.05', '0.1'].includes(le))
      .map(([le, n]) => `≤ ${Number(le) * 1000} ms ${total ? ((100 * n) / total).toFixed(1) : '–'} %`)
      .join(', ') +
    `, > 100 ms ${total - (counts.find(([le]) => le === '0.1')?.[1] ?? 0)}`
  );
}
function serverHistograms(before: string, after: string): Record<string, string> {
  return Object.fromEntries(Object.entries(SERVER_HISTOGRAMS).map(([label, which]) => [label, histogramLine(bucketsIn(before, which), bucketsIn(after, which))]));
}

const results: Record<string, Run> = {};
const cpu: Record<
  string,
  { server: number; main: number; workers: number; rest: number; restByThread: Record<string, number>; sleeps: { main: number; workers: number }; client: number; requests: number; seconds: number }
> = {};
const serverSide: Record<string, Record<string, string>> = {};
const capacity: Record<string, { coreMs: number; workers: number; rps: number; ratio: number; paced: number }> = {};
/** HTTP-thread CPU per answered request (ms) of each peer, at its maximum and at the common paced rate. */
const ladder: Record<string, { rate: number; peers: Partial<Record<PeerName, { max: number; paced: number }>> }> = {};
/** LOAD_NO_SCRAPE=1: the paced turns without any GET /metrics around them (no server histograms). */
const NO_SCRAPE = process.env.LOAD_NO_SCRAPE === '1';
/** Both phases run the peers in turns of SLICE_SECONDS (ROUNDS rounds below). */
const SLICE_SECONDS = Number(process.env.LOAD_SLICE_SECONDS ?? 2);
/**
 * The paced rate as a share of the service's maximum. 0.6 by default: at 0.8 the service's own
 * maximum, measured seconds earlier on this shared host, is often no longer there and the paced
 * run turns into an overload (queues, then batching that lowers the CPU per request).
 */
const PACED_SHARE = Number(process.env.LOAD_PACED_SHARE ?? 0.6);
/** Rounds of turns in each phase: whole cycles of the peers, each peer LOAD_SECONDS or a little more (pacedLoad.ts turnRounds). */
const ROUNDS = turnRounds(DURATION, SLICE_SECONDS, PEER_NAMES.length);
for (const workers of WORKER_COUNTS) {
  for (let rep = 1; rep <= REPEAT; rep++) {
    const tag = `${workers} worker(s)${REPEAT > 1 ? ` #${rep}` : ''}`;
    const nameOf = (peer: PeerName) => (peer === 'service' ? tag : `${tag} ${peer}`);
    ladder[tag] = { rate: 0, peers: {} };
    const running = new Map<PeerName, PeerProcess>();
    for (const peer of PEER_NAMES) {
      const svc = await PEERS[peer](workers);
      running.set(peer, svc);
      // Warm caches and JIT until steady state: three isolates tier up their code, and V8's
      // background compiler still costs ~0.3 ms of CPU per request after 2 s of load.
      await load(svc.url, { connections: 8 * workers, seconds: WARM_SECONDS });
    }
    // the per-report core cost, measured now (servers idle), right before the maximum runs
    const core = await corePath.measure({ timeMs: 2000, warmupMs: 300 });
    // Maximum rate: each peer alone at full load, in turns of SLICE_SECONDS, each round starting
    // with the next peer, ROUNDS rounds (as the paced phase below). Run one after the other, the
    // maxima met the host in different states: the core path timed before each varied 1.55–2.15 ms
    // in one night (BENCHMARKS.md, issue 35), and the paced rate followed.
    const maxAcc = new Map(PEER_NAMES.map((p) => [p, { turns: [] as Run[], answered: 0, seconds: 0, server: 0, client: 0, threads: new Map<number, number>(), sleeps: new Map<number, number>() }]));
    for (const peer of turns(PEER_NAMES, ROUNDS)) {
      const svc = running.get(peer)!;
      const a = maxAcc.get(peer)!;
      const t = await measuredTurn(svc.pid, () => load(svc.url, { connections: 8 * workers, seconds: SLICE_SECONDS }));
      addDeltas(a.threads, ...t.threads);
      addDeltas(a.sleeps, ...t.sleeps);
      a.server += t.server;
      a.client += t.client;
      a.turns.push(t.result);
      a.answered += t.result.answered;
      a.seconds += t.result.seconds;
    }
    for (const peer of PEER_NAMES) {
      const name = nameOf(peer);
      const a = maxAcc.get(peer)!;
      const { workerTids, ...split } = splitThreads(running.get(peer)!.pid, new Map(), a.threads, workers);
      const requests = a.answered;
      const slept = (tid: number) => a.sleeps.get(tid) ?? 0;
      const sleeps = { main: slept(running.get(peer)!.pid) / requests, workers: workerTids.reduce((t, tid) => t + slept(tid), 0) / requests };
      cpu[`${name}, max`] = { server: a.server, ...split, sleeps, client: a.client, requests, seconds: a.seconds };
      const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[xs.length >> 1]!;
      const sum = (k: 'non2xx' | 'errors' | 'invalid') => a.turns.reduce((t, x) => t + x[k], 0);
      const max: Run = { rps: requests / a.seconds, p50: median(a.turns.map((t) => t.p50)), p99: median(a.turns.map((t) => t.p99)), non2xx: sum('non2xx'), errors: sum('errors'), invalid: sum('invalid'), answered: requests, seconds: a.seconds };
      results[`${name}, max`] = max;
      ladder[tag].peers[peer] = { max: (1000 * split.main) / requests, paced: NaN };
      capacity[name] = { coreMs: core.mixMs, workers, rps: max.rps, ratio: (max.rps * core.mixMs) / (1000 * workers), paced: NaN };
    }
    // Same load: every peer paced at PACED_SHARE of the service's maximum, in turns of
    // SLICE_SECONDS, so that the host's drift over the run falls on all of them alike.
    const rate = (ladder[tag].rate = Math.max(1, Math.floor(results[`${tag}, max`]!.rps * PACED_SHARE)));
    const acc = new Map(PEER_NAMES.map((p) => [p, { slices: [] as PacedRaw[], main: 0, server: 0, client: 0, steal: 0, worstSteal: 0 }]));
    // One unmeasured round of the same turns first: the first peer otherwise meets the paced load
    // after ≈ 35 s idle (the other peers' maximum runs) and the others after less. An A/A run (the
    // service's own build as `base`) gave the first peer a p99 1.3–2.2 × its twin's
    // (BENCHMARKS.md, issue 35): a place in the run, not the build.
    for (const peer of PEER_NAMES) await paced(running.get(peer)!.url, rate, SLICE_SECONDS);
    // The service's metrics before and after the paced turns (its own histograms of them). A
    // GET /metrics also changes what comes after it: in A/A runs the scraped slot's HTTP thread
    // then took 45–110 µs more a request than its unscraped twin (6 of 6 repetitions; without any
    // scrape +15 and −20 µs; after a GET /healthz instead +16; BENCHMARKS.md, issue 35): the
    // first request of another kind deoptimises the functions it shares with the POSTs, which
    // then see objects of more than one hidden class (src/server/socketShape.ts mends the
    // sockets' part). So the other builds of the service (`base`) are scraped at the same points;
    // the floors have no /metrics. LOAD_NO_SCRAPE=1: no scrape (and no server histograms).
    const scraped = NO_SCRAPE ? [] : PEER_NAMES.filter((p) => p === 'service' || p === 'base').map((p) => running.get(p)!.url);
    const scrapeAll = async () => (await Promise.all(scraped.map(scrape)))[0] ?? '';
    // The floors' own latency counts, asked over IPC (not HTTP: bench/peerLatency.ts).
    const counting = PEER_NAMES.filter((p) => running.get(p)!.latency);
    const countsAll = () => Promise.all(counting.map(async (p) => [p, byLe(await running.get(p)!.latency!())] as const)).then((xs) => new Map(xs));
    const l0 = await countsAll();
    const m0 = await scrapeAll();
    // Each round starts with the next peer, so that no peer always takes the same place in the
    // turns: the A/A run above also gave the first peer the worse p99 after the warm round.
    for (const peer of turns(PEER_NAMES, ROUNDS)) {
      const svc = running.get(peer)!;
      const a = acc.get(peer)!;
      const t = await measuredTurn(svc.pid, () => paced(svc.url, rate, SLICE_SECONDS));
      a.slices.push(t.result);
      a.steal += t.steal;
      a.worstSteal = Math.max(a.worstSteal, t.steal);
      a.main += splitThreads(svc.pid, ...t.threads, workers).main;
      a.server += t.server;
      a.client += t.client;
    }
    const m1 = await scrapeAll();
    const l1 = await countsAll();
    for (const peer of PEER_NAMES) {
      const name = nameOf(peer);
      const a = acc.get(peer)!;
      const run = summarise(a.slices);
      const seconds = a.slices.reduce((t, x) => t + x.elapsed, 0);
      results[`${name}, paced at ${rate}/s`] = run;
      serverSide[name] = {
        ...(peer === 'service' && !NO_SCRAPE ? serverHistograms(m0, m1) : {}),
        ...(l1.has(peer) ? { [HTTP_LATENCY]: histogramLine(l0.get(peer)!, l1.get(peer)!) } : {}),
        'CPU (2 cores = 2 CPU-s per s)': `server ${(a.server / seconds).toFixed(2)} CPU-s/s, load generator ${(a.client / seconds).toFixed(2)} CPU-s/s`,
        'host steal (CPU the hypervisor took)': `${((1000 * a.steal) / seconds).toFixed(0)} ms/s over its slices, worst ${SLICE_SECONDS} s slice ${(1000 * a.worstSteal).toFixed(0)} ms`,
      };
      ladder[tag].peers[peer]!.paced = (1000 * a.main) / a.slices.reduce((n, x) => n + x.lat.length, 0);
      capacity[name]!.paced = run.p99 / Math.max(1e-9, run.p50);
    }
    for (const svc of running.values()) await svc.stop();
  }
}
await pccs.close();

console.log('\nPOST /decodeReport, 50% typeA / 50% typeB, 64 distinct minted updates');
console.log('(peers: "frameworkless" = the composed verifier behind bare node:http, bench/frameworklessServer.ts; "floor+parse" and "floor" = node:http + raw worker_threads running the same core path, with and without the JSON and struct parse, bench/floorServer.ts)');
console.log('run'.padEnd(28), 'req/s'.padStart(8), 'p50 ms'.padStart(8), 'p99 ms'.padStart(8), 'p99/p50'.padStart(8), 'non-2xx'.padStart(8), 'invalid'.padStart(8));
for (const [k, v] of Object.entries(results)) {
  console.log(k.padEnd(28), v.rps.toFixed(1).padStart(8), String(v.p50).padStart(8), String(v.p99).padStart(8), (v.p99 / Math.max(1, v.p50)).toFixed(2).padStart(8), String(v.non2xx).padStart(8), String(v.invalid).padStart(8));
}
console.log('\nCPU during the max runs (2 cores = 2 CPU-s per s):');
for (const [k, v] of Object.entries(cpu)) {
  const perReq = (x: number) => ((1000 * x) / v.requests).toFixed(2);
  console.log(
    `${k.padEnd(28)} server ${(v.server / v.seconds).toFixed(2)} CPU-s/s = ${perReq(v.server)} ms CPU per request: HTTP thread ${perReq(v.main)}, ` +
      `worker threads ${perReq(v.workers)} (busy ${((100 * v.workers) / (v.seconds * Number(k[0]))).toFixed(0)} %), other threads ${perReq(v.rest)}; ` +
      `load generator ${(v.client / v.seconds).toFixed(2)} CPU-s/s = ${perReq(v.client)} ms per request`,
  );
  const named = Object.entries(v.restByThread).filter(([, s]) => s > 0).sort((x, y) => y[1] - x[1]);
  console.log(`${''.padEnd(28)} other threads (V8 platform, libuv) by thread id offset: ${named.map(([n, s]) => `${n} ${perReq(s)}`).join(', ')}`);
  console.log(`${''.padEnd(28)} sleeps (voluntary context switches) per request: HTTP thread ${v.sleeps.main.toFixed(2)}, worker threads together ${v.sleeps.workers.toFixed(2)}`);
}
console.log('\nThe server\'s own latency histograms during the paced runs (share of requests within each bound):');
for (const [k, v] of Object.entries(serverSide)) for (const [what, line] of Object.entries(v)) console.log(`${k.padEnd(20)} ${what.padEnd(40)} ${line}`);
console.log(`\nThroughput against the core path measured just before each run (target ≥ 0.85) and p99/p50 paced at ${100 * PACED_SHARE} % of the service's maximum (target ≤ 3 at 80 %):`);
for (const [k, v] of Object.entries(capacity)) {
  console.log(
    `${k.padEnd(20)} core ${v.coreMs.toFixed(3)} ms/report → ${v.workers} ÷ core = ${((1000 * v.workers) / v.coreMs).toFixed(0)} req/s; ` +
      `measured ${v.rps.toFixed(1)} = ${(100 * v.ratio).toFixed(1)} %; paced p99/p50 ${v.paced.toFixed(2)}`,
  );
}
console.log('\nHTTP-thread CPU per request, ms (issue 13 item 11: service ÷ floor ≤ 1.3; each step is what one layer adds):');
for (const [tag, { rate, peers }] of Object.entries(ladder)) {
  for (const when of ['paced', 'max'] as const) {
    const v = (p: PeerName) => peers[p]?.[when];
    const line = PEER_NAMES.map((p) => `${p} ${v(p)?.toFixed(3)}`).join(', ');
    const ratio = v('floor') ? ` → service ÷ floor ${(v('service')! / v('floor')!).toFixed(2)}` : '';
    const steps: string[] = [];
    for (let i = 0; i + 1 < PEER_NAMES.length; i++) {
      const upper = v(PEER_NAMES[i]!);
      const lower = v(PEER_NAMES[i + 1]!);
      if (upper !== undefined && lower !== undefined) steps.push(`${PEER_NAMES[i]} − ${PEER_NAMES[i + 1]} ${(1000 * (upper - lower)).toFixed(0)} µs`);
    }
    console.log(`${tag.padEnd(16)} ${when === 'paced' ? `paced at ${rate}/s` : 'at each maximum'}: ${line}${ratio}`);
    if (steps.length) console.log(`${''.padEnd(16)} steps: ${steps.join(', ')}`);
  }
}
console.log(JSON.stringify({ results, cpu, capacity, serverSide, ladder }));
