/**
 * The ledger watcher at mainnet scale: the built server process (dist/src/main.js, after
 * `npm run build`) with the watcher on, following the mainnet-shaped stand-in
 * (test/support/mainnet-node.ts, its own process, chain [0, N), tip N − 1) from height 0 to the
 * tip, once per block source (watch.blockSource `transactions`: /blocks/transactions; `blocks`:
 * /blocks through the structural reader). The config is the default one with only what the run
 * needs: the SQLite file, fromHeight 0, the node URL, the minted test PKI's roots and targets
 * (test/support/minted-cli.ts), its verification clock (verificationTime), and watch.rps set high
 * (--watch-rps; the default 5 requests/s would time the limiter, not the watcher). The stand-in's
 * own rate limit is set high too (--rps) so that it never paces the run.
 *
 * Per row: the time from the server's spawn until it logs "ledger range stored" at the tip (the
 * event, not a poll), blocks/s, CPU ms per block of the server process (utime + stime of
 * /proc/PID/stat at that log line), peak RSS (VmHWM at that line; /usr/bin/time's maxrss after the
 * stop for the whole life), the stored updates by outcome (GET /ledger/status, with the block
 * source it says) and the projection to 22.1 M blocks. `uptime`'s load averages beside each row.
 *
 *   npx tsx bench/watch-scale.ts [--blocks N] [--blocks-for-blocks M] [--sources transactions,blocks] [--rps R] [--watch-rps R]
 * --blocks-for-blocks: another N for the `/blocks` row (it reads ≈ 345 KB a block).
 * WATCH_NODE_ARGS: extra node flags for the server (e.g. --trace-gc); WATCH_STDOUT=FILE keeps its
 * stdout (its log, and --trace-gc's lines) in FILE.<source>.
 */
import { spawn } from 'node:child_process';
import { createWriteStream, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { parseArgs } from 'node:util';
import { startMintedCliEnv } from '../test/support/minted-cli.js';
import { MRENCLAVE } from '../test/support/ledger-fixture.js';
import { mainnetUpdates } from '../test/support/mainnet-updates.js';
import { startMainnetNodeProcess, type MainnetNodeSpec } from '../test/support/mainnet-node.js';
import { freePort, procStatusMiB } from './serviceProcess.js';

const MAINNET_BLOCKS = 22_100_000;
const SOURCES = ['transactions', 'blocks'] as const;
type Source = (typeof SOURCES)[number];

const { values } = parseArgs({
  options: {
    blocks: { type: 'string', default: '200000' },
    'blocks-for-blocks': { type: 'string' },
    sources: { type: 'string', default: SOURCES.join(',') },
    rps: { type: 'string', default: '100000' },
    'watch-rps': { type: 'string', default: '100000' },
    prefix: { type: 'string', default: '/v2/mainnet' },
  },
});
const MAIN = resolve('dist/src/main.js');
const sources = values.sources.split(',') as Source[];
for (const s of sources) if (!SOURCES.includes(s)) throw new Error(`--sources: ${s} is not one of ${SOURCES.join(', ')}`);
const blocksOf = (s: Source): number => Number(s === 'blocks' && values['blocks-for-blocks'] ? values['blocks-for-blocks'] : values.blocks);

/** CPU seconds (utime + stime) of a live process. */
const cpuS = (pid: number): number => {
  const f = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};
const read = (p: string) => readFileSync(p, 'utf8');

const dir = mkdtempSync(join(tmpdir(), 'watch-scale-'));
const env = await startMintedCliEnv(dir, MRENCLAVE);
const updates = mainnetUpdates(env);
console.log(`watch-scale: stand-in rate limit ${values.rps} rps per IP, watch.rps ${values['watch-rps']}, ${updates.length} updates in turn every 100 blocks, node ${process.version}`);

interface Result {
  source: Source;
  blocks: number;
  wallS: number;
  cpuMsPerBlock: number;
  hwmMiB: number;
  maxRssMiB: number;
  status: { scannedHeight: number; tipHeight: number; updates: Record<string, number>; watcher: { blockSource?: string } };
  expectedUpdates: number;
  load: string;
}
const results: Result[] = [];
try {
  for (const source of sources) {
    const N = blocksOf(source);
    const spec: MainnetNodeSpec = { latest: N - 1, rps: Number(values.rps), updates };
    const specFile = join(dir, `spec-${source}.json`);
    writeFileSync(specFile, JSON.stringify(spec));
    const node = await startMainnetNodeProcess(specFile);
    const port = await freePort();
    const configFile = join(dir, `server-${source}.json`);
    const database = join(dir, `watch-${source}.sqlite`);
    writeFileSync(
      configFile,
      JSON.stringify({
        ...env.config,
        port,
        host: '127.0.0.1',
        verificationTime: env.at,
        liveCheck: { skip: true, apiBaseUrl: `${node.origin}${values.prefix}` },
        watch: { enabled: true, database, fromHeight: 0, blockSource: source, rps: Number(values['watch-rps']) },
      }),
    );
    const load = loadavg().map((l) => l.toFixed(2)).join(' ');
    const timeFile = join(dir, `${source}.time`);
    const nodeArgs = (process.env.WATCH_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const t0 = process.hrtime.bigint();
    const child = spawn('/usr/bin/time', ['-f', '%U %S %M', '-o', timeFile, process.execPath, ...nodeArgs, MAIN, '--config', configFile], { stdio: ['ignore', 'pipe', 'inherit'] });
    const keep = process.env.WATCH_STDOUT ? createWriteStream(`${process.env.WATCH_STDOUT}.${source}`) : undefined;
    const exited = new Promise<number | null>((ok) => child.once('exit', ok));
    // The server's pid: /usr/bin/time's child.
    const serverPid = (): number => Number(read(`/proc/${child.pid}/task/${child.pid}/children`).trim().split(' ')[0]);
    let atTip: { wallS: number; cpuS: number; hwmMiB: number } | undefined;
    const reached = new Promise<void>((ok, fail) => {
      exited.then((code) => fail(new Error(`the server exited with ${code} before it stored the tip`)));
      createInterface({ input: child.stdout! }).on('line', (line) => {
        keep?.write(`${line}\n`);
        if (atTip || !line.includes('ledger range stored')) return;
        let l: { msg?: string; scannedHeight?: number };
        try {
          l = JSON.parse(line);
        } catch {
          return;
        }
        if (l.msg !== 'ledger range stored' || l.scannedHeight !== N - 1) return;
        const pid = serverPid();
        atTip = { wallS: Number(process.hrtime.bigint() - t0) / 1e9, cpuS: cpuS(pid), hwmMiB: procStatusMiB(pid, 'VmHWM', read) };
        ok();
      });
    });
    await reached;
    const status = (await (await fetch(`http://127.0.0.1:${port}/ledger/status`)).json()) as Result['status'];
    process.kill(serverPid(), 'SIGTERM');
    await exited;
    keep?.end();
    await node.stop();
    const maxKb = Number(read(timeFile).trim().split('\n').pop()!.split(' ')[2]);
    const r: Result = {
      source,
      blocks: N,
      wallS: atTip!.wallS,
      cpuMsPerBlock: (atTip!.cpuS * 1000) / N,
      hwmMiB: atTip!.hwmMiB,
      maxRssMiB: maxKb / 1024,
      status,
      // The stand-in places an update at every height ≡ 50 (mod 100).
      expectedUpdates: Math.floor((N + 49) / 100),
      load,
    };
    results.push(r);
    console.log(JSON.stringify(r));
  }
} finally {
  await env.pccs.close();
  rmSync(dir, { recursive: true, force: true });
}

console.log('\n| block source (watch.blockSource) | blocks | start → tip stored, s | blocks/s | CPU ms/block | peak RSS MiB (VmHWM at tip / whole life) | updates stored (valid / all, expected) | 22.1 M blocks: wall h | 22.1 M blocks: CPU h | load avg (1/5/15 min) |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const r of results) {
  const all = Object.values(r.status.updates).reduce((a, b) => a + b, 0);
  const bps = r.blocks / r.wallS;
  console.log(
    `| ${r.status.watcher.blockSource ?? '?'} (${r.source}) | ${r.blocks} | ${r.wallS.toFixed(1)} | ${Math.round(bps)} | ${r.cpuMsPerBlock.toFixed(3)} | ${Math.round(r.hwmMiB)} / ${Math.round(r.maxRssMiB)} | ${r.status.updates.valid ?? 0} / ${all} (${r.expectedUpdates}) | ${(MAINNET_BLOCKS / bps / 3600).toFixed(2)} | ${((r.cpuMsPerBlock / 1000) * MAINNET_BLOCKS / 3600).toFixed(2)} | ${r.load} |`,
  );
}
