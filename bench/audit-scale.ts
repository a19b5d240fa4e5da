/**
 * Audit at mainnet scale: the real `oracle-verifier reverify --node` CLI process (dist/, after
 * `npm run build`) over blocks [0, N) of the mainnet-shaped stand-in (test/support/mainnet-node.ts,
 * its own process), once per block source, on the same chain and the same N:
 *   (a) `/blocks` read by JSON.parse of the whole answer (VERIFIER_BLOCKS_READER=json),
 *   (b) `/blocks` read by the structural reader (--block-source blocks),
 *   (c) `/blocks/transactions` (--block-source transactions).
 * Per row: blocks/s, MB/s read, CPU ms per block of the verifier process (user + system from
 * wait4's rusage via /usr/bin/time, not wall time), peak RSS (maxrss = VmHWM) and the projection
 * to 22.1 M blocks. The stand-in's rate limit is set high (--rps) so that it never paces the run.
 *
 *   npx tsx bench/audit-scale.ts [--blocks N] [--concurrency C] [--batch B] [--rows a,b,c] [--rps R] [--profile DIR]
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startMintedCliEnv } from '../test/support/minted-cli.js';
import { MRENCLAVE } from '../test/support/ledger-fixture.js';
import { mainnetUpdates } from '../test/support/mainnet-updates.js';
import { startMainnetNodeProcess, type MainnetNodeSpec } from '../test/support/mainnet-node.js';

const MAINNET_BLOCKS = 22_100_000;
const { values } = parseArgs({
  options: {
    blocks: { type: 'string', default: '200000' },
    concurrency: { type: 'string' },
    batch: { type: 'string' },
    rows: { type: 'string', default: 'a,b,c' },
    rps: { type: 'string', default: '100000' },
    prefix: { type: 'string', default: '/v2/mainnet' },
    profile: { type: 'string' },
  },
});
const N = Number(values.blocks);
const CLI = resolve('dist/src/cli/main.js');

interface Row {
  id: string;
  label: string;
  args: string[];
  env: NodeJS.ProcessEnv;
}
const ROWS: Row[] = [
  { id: 'a', label: "(a) /blocks, JSON.parse of the whole answer (today's reader)", args: ['--block-source', 'blocks'], env: { VERIFIER_BLOCKS_READER: 'json' } },
  { id: 'b', label: '(b) /blocks, structural reader', args: ['--block-source', 'blocks'], env: {} },
  { id: 'c', label: '(c) /blocks/transactions', args: ['--block-source', 'transactions'], env: {} },
];

// Until the CLI has --block-source, row (b) is its default reader (the structural one) and row (c) cannot run.
const help = spawnSync(process.execPath, [CLI, 'reverify', '--help'], { encoding: 'utf8' });
const hasSource = `${help.stdout}${help.stderr}`.includes('--block-source');
if (!hasSource) {
  ROWS[1]!.args = [];
  ROWS[1]!.label = "(b) /blocks, structural reader (the CLI's default reader; no --block-source yet)";
  ROWS.splice(2, 1);
}
const dir = mkdtempSync(join(tmpdir(), 'audit-scale-'));
const env = await startMintedCliEnv(dir, MRENCLAVE);
const spec: MainnetNodeSpec = { latest: N - 1 + 1000, rps: Number(values.rps), updates: mainnetUpdates(env) };
writeFileSync(join(dir, 'spec.json'), JSON.stringify(spec));
const node = await startMainnetNodeProcess(join(dir, 'spec.json'));
/** The stand-in's CPU seconds so far (/proc/PID/stat utime + stime), to show it is not what is measured. */
const nodeCpuS = (): number => {
  const f = readFileSync(`/proc/${node.child.pid}/stat`, 'utf8').split(') ')[1]!.split(' ');
  return (Number(f[11]) + Number(f[12])) / 100;
};
const served = async () => (await (await fetch(`${node.origin}/__served`)).json()) as { requests: number; bytes: number };

console.log(`audit-scale: ${N} blocks [0, ${N}), stand-in rate limit ${spec.rps} rps per IP (burst ${spec.rps}), ${spec.updates.length} updates in turn every 100 blocks, node ${process.version}`);
const results = [];
try {
  for (const row of ROWS.filter((r) => values.rows.split(',').includes(r.id))) {
    const load = loadavg().map((l) => l.toFixed(2)).join(' ');
    const before = await served();
    const nodeBefore = nodeCpuS();
    const out = join(dir, `${row.id}.jsonl`);
    const timeFile = join(dir, `${row.id}.time`);
    const args = ['reverify', '--node', `${node.origin}${values.prefix}`, '--from', '0', '--to', String(N), '--config', env.configFile, '--at', env.at, '--out', out, '--rps', String(spec.rps), '--progress-interval', '0', ...row.args];
    if (values.concurrency) args.push('--concurrency', values.concurrency);
    if (values.batch) args.push('--batch', values.batch);
    const nodeArgs = values.profile ? ['--cpu-prof', '--cpu-prof-dir', resolve(values.profile, row.id)] : [];
    const t0 = process.hrtime.bigint();
    const child = spawn('/usr/bin/time', ['-f', '%U %S %M', '-o', timeFile, process.execPath, ...nodeArgs, CLI, ...args], { env: { ...process.env, ...row.env }, stdio: ['ignore', 'ignore', 'pipe'] });
    let stderr = '';
    child.stderr!.on('data', (d) => (stderr += d));
    // The CLI's main thread CPU (its thread id is the process id), sampled until it exits: the
    // part of the CPU that cannot go to the verification workers.
    // The other threads' too (the verification workers are the busiest of them).
    let mainCpuS = 0;
    const threadCpuS = new Map<string, number>();
    const sampler = setInterval(() => {
      try {
        const pid = readFileSync(`/proc/${child.pid}/task/${child.pid}/children`, 'utf8').trim().split(' ')[0];
        if (!pid) return;
        for (const tid of readdirSync(`/proc/${pid}/task`)) {
          const f = readFileSync(`/proc/${pid}/task/${tid}/stat`, 'utf8').split(') ')[1]!.split(' ');
          const s = (Number(f[11]) + Number(f[12])) / 100;
          if (tid === pid) mainCpuS = s;
          else threadCpuS.set(tid, s);
        }
      } catch {
        /* not started yet, or gone */
      }
    }, 100);
    const code = await new Promise<number | null>((ok) => child.once('exit', ok));
    clearInterval(sampler);
    const wallS = Number(process.hrtime.bigint() - t0) / 1e9;
    const after = await served();
    const nodeCpu = nodeCpuS() - nodeBefore;
    const [user, sys, maxKb] = readFileSync(timeFile, 'utf8').trim().split('\n').pop()!.split(' ').map(Number) as [number, number, number];
    const records = readFileSync(out, 'utf8').split('\n').filter((l) => l !== '').length;
    const cpuS = user + sys;
    const mb = (after.bytes - before.bytes) / 1e6;
    const r = {
      row: row.label,
      exit: code,
      records,
      wallS: +wallS.toFixed(1),
      blocksPerS: Math.round(N / wallS),
      mbPerS: +(mb / wallS).toFixed(1),
      mbRead: Math.round(mb),
      requests: after.requests - before.requests,
      cpuMsPerBlock: +((cpuS * 1000) / N).toFixed(3),
      mainThreadCpuMsPerBlock: +((mainCpuS * 1000) / N).toFixed(3),
      /** The two busiest other threads (the verification workers, with 2 of them), CPU ms per block each. */
      topThreadsCpuMsPerBlock: [...threadCpuS.values()].sort((a, b) => b - a).slice(0, 3).map((t) => +((t * 1000) / N).toFixed(3)),
      peakRssMiB: Math.round(maxKb / 1024),
      projectedWallH: +(MAINNET_BLOCKS / (N / wallS) / 3600).toFixed(2),
      projectedCpuH: +((cpuS / N) * MAINNET_BLOCKS / 3600).toFixed(2),
      standInCpuMsPerBlock: +((nodeCpu * 1000) / N).toFixed(3),
      loadAvg: load,
    };
    results.push(r);
    console.log(JSON.stringify(r));
    if (code !== 0 && code !== 1) console.log(stderr.split('\n').slice(-15).join('\n'));
  }
} finally {
  await node.stop();
  await env.pccs.close();
  rmSync(dir, { recursive: true, force: true });
}
console.log('\n| row | blocks/s | MB/s read | CPU ms/block | peak RSS MiB | 22.1 M blocks: wall h | 22.1 M blocks: CPU h | records | stand-in CPU ms/block | load avg (1/5/15 min) |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const r of results) console.log(`| ${r.row} | ${r.blocksPerS} | ${r.mbPerS} | ${r.cpuMsPerBlock} | ${r.peakRssMiB} | ${r.projectedWallH} | ${r.projectedCpuH} | ${r.records} | ${r.standInCpuMsPerBlock} | ${r.loadAvg} |`);

