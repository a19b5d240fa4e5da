/**
 * A/B of the HTTP thread's CPU per POST /decodeReport at one fixed paced rate, for a change to the
 * service's front end on a shared host (where latencies are noise but CPU time per request is
 * not): the built service (dist/src/main.js), another build of it (AB_BASE=<its dist/src/main.js>,
 * peer `base`) and floor+piscina (bench/floorServer.ts) run side by side with 2 workers on the mix
 * of bench/http-load.ts, each warmed 5 s, then paced in turns of AB_SLICE seconds (default 2), each
 * round starting with the next peer, in whole cycles of the peers until each has had at least
 * AB_SECONDS (default 30) at AB_RATE req/s
 * (default 200). Prints each peer's HTTP (main) thread CPU per request from /proc, over the whole
 * run and the median of its turns, its voluntary context switches (sleeps) per request, its
 * p50/p99, and its whole process's CPU per request split into HTTP thread, workers and the
 * other (V8, libuv) threads. AB_PEERS chooses the peers
 * (default service,base,floor); AB_NODE_ARGS are node flags for the service and base (e.g.
 * --cpu-prof --cpu-prof-dir=DIR), AB_BASE_NODE_ARGS for base alone (default: AB_NODE_ARGS),
 * AB_FLOOR_NODE_ARGS for floor+piscina, AB_BASE_CONFIG config settings (JSON) for base alone (e.g. an A/B
 * of a setting: AB_BASE=dist/src/main.js AB_BASE_CONFIG='{"workerYoungGenerationMb":48}').
 * Usage: npm run build && AB_BASE=../other/dist/src/main.js npx tsx bench/http-ab.ts
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { serialize } from 'node:v8';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { bundleFromCollateral, startPccsServer } from '../test/support/pccs-server.js';
import { reportText } from '../test/support/ledger-reports.js';
import { coreInputOf } from './corePath.js';
import { mintMix, mixConfig } from './mix.js';
import { startBenchPeer, stopOf, type PeerProcess } from './peerProcess.js';
import { freePort, startServiceProcess } from './serviceProcess.js';
import { pacedPosts, turnRounds, turns } from './pacedLoad.js';
import { addDeltas, measuredTurn, splitThreads } from './procStat.js';
const RATE = Number(process.env.AB_RATE ?? 200);
const SECONDS = Number(process.env.AB_SECONDS ?? 30);
const SLICE = Number(process.env.AB_SLICE ?? 2);
const dir = mkdtempSync(join(tmpdir(), 'ab-'));
const mix = mintMix(64);
const bodies = mix.updates.map((u, i) => JSON.stringify({ userData: u.userData.text, report: reportText(i % 2 === 0 ? u.typeA : u.typeB) }));
writeFileSync(join(dir, 'core-input.v8'), serialize(coreInputOf(mix)));
const pccs = await startPccsServer(bundleFromCollateral(mix.a.collateral));
const cfg = { ...mixConfig(mix, dir, pccs.url), workers: 2, maxQueue: 4096, logLevel: 'warn' };
const nodeArgs = (process.env.AB_NODE_ARGS ?? '').split(' ').filter(Boolean);
const starters: Record<string, () => Promise<PeerProcess>> = {
  service: () => startServiceProcess(cfg, dir, 'svc', nodeArgs),
  base: async () => {
    if (!process.env.AB_BASE) throw new Error('the peer base needs AB_BASE (another build\'s dist/src/main.js)');
    const port = await freePort();
    writeFileSync(join(dir, 'base.json'), JSON.stringify({ ...cfg, ...(JSON.parse(process.env.AB_BASE_CONFIG ?? '{}') as object), port, host: '127.0.0.1' }));
    const baseArgs = process.env.AB_BASE_NODE_ARGS !== undefined ? process.env.AB_BASE_NODE_ARGS.split(' ').filter(Boolean) : nodeArgs;
    const child = spawn(process.execPath, [...baseArgs, resolve(process.env.AB_BASE!), '--config', join(dir, 'base.json')], { stdio: ['ignore', 'ignore', 'inherit'] });
    const url = `http://127.0.0.1:${port}`;
    for (let i = 0; (await fetch(`${url}/readyz`).catch(() => undefined))?.status !== 200; i++) {
      if (i > 600 || child.exitCode !== null) throw new Error('the base build did not become ready');
      await new Promise((r) => setTimeout(r, 100));
    }
    return { url, pid: child.pid!, stop: stopOf(child) };
  },
  floor: () => startBenchPeer('floorServer.ts', ['2', join(dir, 'core-input.v8'), 'piscina'], { nodeArgs: (process.env.AB_FLOOR_NODE_ARGS ?? '').split(' ').filter(Boolean) }),
};
const names = (process.env.AB_PEERS ?? 'service,base,floor').split(',');
const peers = new Map<string, PeerProcess>();
for (const n of names) peers.set(n, await starters[n]!());
/** One request every 1/RATE s for `seconds`, whatever the answers (open loop; bench/pacedLoad.ts). */
async function paced(url: string, seconds: number): Promise<{ n: number; lat: number[]; failed: number }> {
  const r = await pacedPosts(url, bodies, RATE, seconds);
  return { n: r.lat.length + r.errors, lat: r.lat, failed: r.non2xx + r.errors + r.invalid };
}

for (const p of peers.values()) await paced(p.url, 5); // warm-up
const acc = new Map(names.map((n) => [n, { cpu: 0, sleeps: 0, n: 0, failed: 0, turns: [] as number[], lat: [] as number[], threads: new Map<number, number>() }]));
// Each round starts with the next peer: a fixed order gave the first place a worse tail (bench/http-load.ts).
for (const name of turns(names, turnRounds(SECONDS, SLICE, names.length))) {
  const p = peers.get(name)!;
  const { result: r, threads: [t0, t1], sleeps: [z0, z1] } = await measuredTurn(p.pid, () => paced(p.url, SLICE));
  const a = acc.get(name)!;
  addDeltas(a.threads, t0, t1);
  const c = (t1.get(p.pid) ?? 0) - (t0.get(p.pid) ?? 0);
  a.cpu += c;
  a.sleeps += (z1.get(p.pid) ?? 0) - (z0.get(p.pid) ?? 0);
  a.n += r.n;
  a.failed += r.failed;
  a.turns.push((1000 * c) / r.n);
  a.lat.push(...r.lat);
}
const at = (xs: number[], q: number) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))]!;
console.log(`paced at ${RATE}/s, ${SECONDS} s each in turns of ${SLICE} s`);
for (const [name, a] of acc) {
  console.log(
    `${name.padEnd(8)} HTTP-thread CPU ${((1000 * a.cpu) / a.n).toFixed(3)} ms/req (median turn ${at(a.turns, 0.5).toFixed(3)}), sleeps ${(a.sleeps / a.n).toFixed(2)}/req, ` +
      `n ${a.n}, not 200 valid ${a.failed}, p50 ${at(a.lat, 0.5).toFixed(1)} p99 ${at(a.lat, 0.99).toFixed(1)} ms`,
  );
  // The HTTP thread is the process's own id, the pool's workers its busiest others (splitThreads), the rest V8's and libuv's helpers.
  const ms = (s: number) => ((1000 * s) / a.n).toFixed(3);
  const split = splitThreads(peers.get(name)!.pid, new Map(), a.threads, cfg.workers);
  console.log(`${''.padEnd(8)} whole process ${ms(split.main + split.workers + split.rest)} ms/req: HTTP thread ${ms(split.main)}, workers ${ms(split.workers)}, helpers ${ms(split.rest)}`);
}
for (const p of peers.values()) await p.stop();
await pccs.close();
