/**
 * Audit at mainnet scale: the real `oracle-verifier reverify --node` CLI process (dist/, after
 * `npm run build`) over blocks [0, N) of the mainnet-shaped stand-in (test/support/mainnet-node.ts,
 * its own process), once per block source, on the same chain and the same N:
 *   (a) `/blocks` read by JSON.parse of the whole answer (VERIFIER_BLOCKS_READER=json),
 *   (b) `/blocks` read by the structural reader (--block-source blocks) while the bytes arrive, with
 *       its WebAssembly fast path; (bw) the same once each body is whole (VERIFIER_BLOCKS_READER=whole);
 *       (bj) the JavaScript walk alone, once each body is whole (VERIFIER_BLOCKS_READER=js),
 *   (ba) (b) with a collateral archive (--archive): each update judged at its block's timestamp under
 *       the evaluation then in force, today's status beside it (docs/history.md),
 *   (c) `/blocks/transactions` (--block-source transactions),
 *   (f) the floor: a minimal node:http client process (no CLI) that GETs the same `/blocks` ranges
 *       at the same concurrency and discards the bytes; (g) the same, copying each answer into one
 *       buffer sized from Content-Length (what src/upstream/body.ts does). What Node's HTTP client
 *       alone costs per block on this machine, the bound under rows (a) and (b); (h) the same
 *       requests written on a bare net.Socket per worker, the answers' bytes counted off its data
 *       events (Content-Length only, no HTTP parser): what the bytes cost below node:http.
 * Per row: blocks/s, MB/s read, CPU ms per block of the verifier process (user + system from
 * wait4's rusage via /usr/bin/time, not wall time), peak RSS (maxrss = VmHWM) and the projection
 * to 22.1 M blocks. The stand-in's rate limit is set high (--rps) so that it never paces the run.
 *
 *   npx tsx bench/audit-scale.ts [--blocks N] [--concurrency C] [--batch B] [--rows a,b,bw,bj,ba,c,f,g,h] [--rps R] [--profile DIR] [--base-cli PATH]
 */
import { spawn, spawnSync } from 'node:child_process';
import { closeSync, existsSync, mkdtempSync, openSync, readdirSync, readFileSync, readSync, rmSync, writeFileSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { startMintedCliEnv } from '../test/support/minted-cli.js';
import { MRENCLAVE } from '../test/support/ledger-fixture.js';
import { buildHistoryArchive, DAY } from '../test/support/history-archive.js';
import { mainnetUpdates } from '../test/support/mainnet-updates.js';
import { startMainnetNodeProcess, type MainnetNodeSpec } from '../test/support/mainnet-node.js';

/** Lines of a file of any size (a whole-chain run's output passes the 512 MB a string can hold). */
function lineCount(file: string): number {
  const fd = openSync(file, 'r');
  const buf = Buffer.alloc(1 << 20);
  let n = 0;
  try {
    for (let got; (got = readSync(fd, buf, 0, buf.length, null)) > 0; ) for (let i = buf.indexOf(10, 0); i !== -1 && i < got; i = buf.indexOf(10, i + 1)) n++;
  } finally {
    closeSync(fd);
  }
  return n;
}

const MAINNET_BLOCKS = 22_100_000;
const { values } = parseArgs({
  options: {
    blocks: { type: 'string', default: '200000' },
    concurrency: { type: 'string' },
    batch: { type: 'string' },
    rows: { type: 'string', default: 'a,b,bw,bj,ba,c,f,g,h' },
    rps: { type: 'string', default: '100000' },
    prefix: { type: 'string', default: '/v2/mainnet' },
    profile: { type: 'string' },
    /** Another build's CLI (e.g. a checkout of the base commit, built) for an A/B under the same load: its rows are run too, marked "(base)". */
    'base-cli': { type: 'string' },
  },
});
const N = Number(values.blocks);
const CLI = resolve('dist/src/cli/main.js');

interface Row {
  id: string;
  label: string;
  args: string[];
  env: NodeJS.ProcessEnv;
  /** A floor row: this script (`node -e`) instead of the CLI, given origin+prefix, N, concurrency, mode. */
  floor?: 'discard' | 'copy' | 'net';
  /** The CLI run (default: this checkout's build). */
  cli?: string;
}

/**
 * The floor client: GET `/blocks?start&end` for [0, N) in ranges of 50, C at a time over one
 * keep-alive agent, each answer's bytes discarded (or copied into one buffer of its declared
 * length); one line per range on `--out` so that the records check below reads the ranges done.
 */
const FLOOR_CLIENT = `
const http = require('node:http');
const fs = require('node:fs');
const [base, n, c, mode, out] = process.argv.slice(1);
const N = Number(n), C = Number(c), agent = new http.Agent({ keepAlive: true });
let next = 0, bytes = 0, ranges = 0;
const get = (s) => new Promise((ok, fail) => {
  http.get(base + '/blocks?start=' + s + '&end=' + Math.min(N, s + 50), { agent }, (res) => {
    if (res.statusCode !== 200) return fail(new Error('status ' + res.statusCode));
    const len = Number(res.headers['content-length']);
    let buf = mode === 'copy' ? Buffer.allocUnsafe(len) : undefined, at = 0;
    res.on('data', (d) => { if (buf) buf.set(d, at); at += d.length; });
    res.on('end', () => { bytes += at; ranges++; buf = undefined; ok(); });
    res.on('error', fail);
  }).on('error', fail);
});
const viaNet = async () => {
  const u = new URL(base);
  const sock = require('node:net').connect(Number(u.port), u.hostname);
  await new Promise((ok, fail) => sock.once('connect', ok).once('error', fail));
  let want = -1, got = 0, head = Buffer.alloc(0), done, failed;
  sock.on('error', (e) => failed && failed(e));
  sock.on('data', (d) => {
    if (want < 0) {
      head = Buffer.concat([head, d]);
      const i = head.indexOf('\\r\\n\\r\\n');
      if (i < 0) return;
      const h = head.toString('latin1', 0, i);
      if (!h.startsWith('HTTP/1.1 200')) return failed(new Error(h));
      want = Number(/content-length: *(\\d+)/i.exec(h)[1]);
      got = head.length - i - 4;
    } else got += d.length;
    if (got >= want) { bytes += got; ranges++; want = -1; head = Buffer.alloc(0); done(); }
  });
  while (next < N) {
    const s = next; next += 50;
    await new Promise((ok, fail) => { done = ok; failed = fail; sock.write('GET ' + u.pathname + '/blocks?start=' + s + '&end=' + Math.min(N, s + 50) + ' HTTP/1.1\\r\\nhost: ' + u.host + '\\r\\n\\r\\n'); });
  }
  sock.destroy();
};
const worker = mode === 'net' ? viaNet : async () => { while (next < N) { const s = next; next += 50; await get(s); } };
Promise.all(Array.from({ length: C }, worker)).then(() => {
  fs.writeFileSync(out, 'x\\n'.repeat(ranges));
  process.exit(0);
}, (e) => { console.error(e); process.exit(2); });
`;
const ROWS: Row[] = [
  { id: 'a', label: "(a) /blocks, JSON.parse of the whole answer (today's reader)", args: ['--block-source', 'blocks'], env: { VERIFIER_BLOCKS_READER: 'json' } },
  { id: 'b', label: '(b) /blocks, structural reader', args: ['--block-source', 'blocks'], env: {} },
  { id: 'bw', label: '(b) /blocks, structural reader once the body is whole, not while it arrives (VERIFIER_BLOCKS_READER=whole)', args: ['--block-source', 'blocks'], env: { VERIFIER_BLOCKS_READER: 'whole' } },
  { id: 'bj', label: '(b) /blocks, structural reader in JavaScript alone, once the body is whole (VERIFIER_BLOCKS_READER=js)', args: ['--block-source', 'blocks'], env: { VERIFIER_BLOCKS_READER: 'js' } },
  { id: 'ba', label: "(ba) (b) with a collateral archive: each update judged at its block's time, today's status beside it", args: ['--block-source', 'blocks', '--archive', 'ARCHIVE', '--tcb-update', 'early'], env: {} },
  { id: 'c', label: '(c) /blocks/transactions', args: ['--block-source', 'transactions'], env: {} },
  { id: 'f', label: '(f) floor: node:http GET of the same /blocks ranges, bytes discarded', args: [], env: {}, floor: 'discard' },
  { id: 'g', label: '(g) floor: node:http GET of the same /blocks ranges, copied into one buffer each', args: [], env: {}, floor: 'copy' },
  { id: 'h', label: '(h) below node:http: the same GETs on bare net.Socket connections, bytes counted and discarded', args: [], env: {}, floor: 'net' },
];

// Until the CLI has --block-source, row (b) is its default reader (the structural one) and row (c) cannot run.
const help = spawnSync(process.execPath, [CLI, 'reverify', '--help'], { encoding: 'utf8' });
const hasSource = `${help.stdout}${help.stderr}`.includes('--block-source');
if (!hasSource) {
  ROWS[1]!.args = [];
  ROWS[1]!.label = "(b) /blocks, structural reader (the CLI's default reader; no --block-source yet)";
  ROWS.splice(ROWS.findIndex((r) => r.id === 'c'), 1);
}
if (values['base-cli']) {
  // Each CLI row twice, the base build's right after this one's (same load, same chain).
  for (let i = ROWS.length - 1; i >= 0; i--) {
    const r = ROWS[i]!;
    if (!r.floor) ROWS.splice(i + 1, 0, { ...r, label: `${r.label} (base)`, cli: resolve(values['base-cli']) });
  }
}
const dir = mkdtempSync(join(tmpdir(), 'audit-scale-'));
const env = await startMintedCliEnv(dir, MRENCLAVE);
// Row (ba)'s archive (test/support/history-archive.ts): blocks from T0 − 100 days are judged under
// evaluation 19 (valid), with evaluation 20 rating them today; the chain starts there.
const archive = buildHistoryArchive(join(dir, 'archive'), env.typeA);
for (const r of ROWS) r.args = r.args.map((a) => (a === 'ARCHIVE' ? archive : a));
const spec: MainnetNodeSpec = { latest: N - 1 + 1000, rps: Number(values.rps), updates: mainnetUpdates(env), genesisTime: Math.floor((env.typeA.time - 100 * DAY) / 1000) };
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
    // AUDIT_NODE_ARGS: extra node flags for the measured process (e.g. --max-old-space-size=96);
    // AUDIT_STDOUT=FILE keeps its stdout in FILE.<row> (e.g. with --trace-gc).
    const extraArgs = (process.env.AUDIT_NODE_ARGS ?? '').split(' ').filter(Boolean);
    const nodeArgs = [...extraArgs, ...(values.profile ? ['--cpu-prof', '--cpu-prof-dir', resolve(values.profile, row.cli ? `${row.id}-base` : row.id)] : [])];
    const t0 = process.hrtime.bigint();
    const concurrency = values.concurrency ?? '4';
    const command = row.floor ? ['-e', FLOOR_CLIENT, `${node.origin}${values.prefix}`, String(N), concurrency, row.floor, out] : [row.cli ?? CLI, ...args];
    const child = spawn('/usr/bin/time', ['-f', '%U %S %M', '-o', timeFile, process.execPath, ...nodeArgs, ...command], { env: { ...process.env, ...row.env }, stdio: ['ignore', process.env.AUDIT_STDOUT ? openSync(`${process.env.AUDIT_STDOUT}.${row.id}`, 'w') : 'ignore', 'pipe'] });
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
    if (code !== 0 && (code !== 1 || row.floor)) console.log(stderr.split('\n').slice(-15).join('\n'));
    const records = existsSync(out) ? lineCount(out) : 0;
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
      userMsPerBlock: +((user * 1000) / N).toFixed(3),
      sysMsPerBlock: +((sys * 1000) / N).toFixed(3),
      peakRssMiB: Math.round(maxKb / 1024),
      projectedWallH: +(MAINNET_BLOCKS / (N / wallS) / 3600).toFixed(2),
      projectedCpuH: +((cpuS / N) * MAINNET_BLOCKS / 3600).toFixed(2),
      standInCpuMsPerBlock: +((nodeCpu * 1000) / N).toFixed(3),
      loadAvg: load,
    };
    results.push(r);
    console.log(JSON.stringify(r));
  }
} finally {
  await node.stop();
  await env.pccs.close();
  rmSync(dir, { recursive: true, force: true });
}
console.log('\n| row | blocks/s | MB/s read | CPU ms/block | peak RSS MiB | 22.1 M blocks: wall h | 22.1 M blocks: CPU h | records | stand-in CPU ms/block | load avg (1/5/15 min) |');
console.log('|---|---|---|---|---|---|---|---|---|---|');
for (const r of results) console.log(`| ${r.row} | ${r.blocksPerS} | ${r.mbPerS} | ${r.cpuMsPerBlock} | ${r.peakRssMiB} | ${r.projectedWallH} | ${r.projectedCpuH} | ${r.records} | ${r.standInCpuMsPerBlock} | ${r.loadAvg} |`);

