/**
 * Peak memory of the service under 300 connections: the built service (dist/src/main.js, 2
 * workers, as deploy/k8s runs it) as its own process with the ledger watcher on (following a
 * ledger-node simulator whose chain holds MEM_UPDATES minted oracle updates, stored in a fresh
 * SQLite file), loaded by autocannon with MEM_CONNECTIONS (300) connections for MEM_SECONDS (20)
 * on POST /verify (16 notarizer responses per request, without oracleData: ≈ 86 KB bodies), on
 * POST /decodeReport (64 distinct minted updates, half typeA, ≈ 25 KB bodies), on both at once, and
 * on POST /verify with 8 responses with oracleData (≈ 170 KB bodies, as the SDKs send them). Each
 * scenario runs on a fresh process, once per value of MEM_INFLIGHT (the config key
 * maxInflightBytes; `default` = the config's default, a number = that many bytes), with the node
 * flags the image sets (NODE_OPTIONS in the Dockerfile); the peak is the kernel's VmHWM of
 * /proc/<pid>/status (RSS sampled every 50 ms besides, and after the load). The answers column
 * shows what the load got: autocannon retries at once, ignoring Retry-After.
 *
 * `hostile` (issue 32): the /decodeReport load while every upstream and some clients are hostile
 * at once — the PCCS answers every /tcb with a 200 MB body (not declared: read until the cap),
 * rounds of MEM_LOOKUPS (30) concurrent GET /ledger/transactions/{id} are answered by the node
 * with 31 MB each (half declared in Content-Length, half not), and MEM_SLOW_SOCKETS (8) sockets
 * declare 256 KiB on POST /verify and send one byte a second (reconnecting when closed). Its
 * answers column adds the lookups' statuses, the bytes the PCCS got to send per /tcb answer before
 * the verifier closed it, and the slow sockets' (re)connections.
 *
 * `unread` (issue 48): the /decodeReport load while MEM_UNREAD (20) connections each send
 * `GET /docs/json` pipelined 500 times a write and never read (reconnecting when closed; half on
 * /info). `idle`: the same load while another address (127.0.0.2) opens MEM_IDLE (15000) connections, each
 * finishing one request and then idling. Their answers columns say how those clients fared.
 * Usage: npm run build && npx tsx bench/memory.ts
 * Env: MEM_CONNECTIONS=300 MEM_SECONDS=20 MEM_WORKERS=2 MEM_UPDATES=1500 MEM_SCENARIOS=verify,decodeReport,both,verifyLarge,hostile,unread,idle
 *   MEM_UNREAD=20 MEM_IDLE=15000
 *   MEM_INFLIGHT=default MEM_NODE_ARGS=(the Dockerfile's NODE_OPTIONS) MEM_LOOKUPS=30 MEM_SLOW_SOCKETS=8
 *   MEM_HOSTILE=pccs,lookups,slow (the hostile parts to run) MEM_LOOKUP_BYTES=31000000
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { fakeId, LedgerChain, t } from '../test/support/ledger-chain.js';
import { reply, startLedgerNode } from '../test/support/ledger-node.js';
import { MRENCLAVE, mintedUpdates } from '../test/support/ledger-fixture.js';
import { startMintedCliEnv } from '../test/support/minted-cli.js';
import { imageNodeArgs, procStatusMiB, startServiceProcess } from './serviceProcess.js';
import { mintAttestationResponses } from './verifyEntries.js';

const CONNECTIONS = Number(process.env.MEM_CONNECTIONS ?? 300);
const SECONDS = Number(process.env.MEM_SECONDS ?? 20);
const WORKERS = Number(process.env.MEM_WORKERS ?? 2);
const UPDATES = Number(process.env.MEM_UPDATES ?? 1500);
const SCENARIOS = (process.env.MEM_SCENARIOS ?? 'verify,decodeReport,both,verifyLarge,hostile,unread,idle').split(',');
const UNREAD = Number(process.env.MEM_UNREAD ?? 20);
const IDLE = Number(process.env.MEM_IDLE ?? 15_000);
const LOOKUPS = Number(process.env.MEM_LOOKUPS ?? 30);
const SLOW_SOCKETS = Number(process.env.MEM_SLOW_SOCKETS ?? 8);
/** Which hostile parts the `hostile` scenario runs (all by default): pccs, lookups, slow. */
const HOSTILE = new Set((process.env.MEM_HOSTILE ?? 'pccs,lookups,slow').split(','));
/** The node's answer to each lookup (31 MB; MEM_LOOKUP_BYTES=4000000 for bodies under a transaction's 4 MiB cap: then the node bodies' budget bounds them). */
const LOOKUP_BYTES = Number(process.env.MEM_LOOKUP_BYTES ?? 31_000_000);
const PCCS_BYTES = 200_000_000;
const INFLIGHT = (process.env.MEM_INFLIGHT ?? 'default').split(',');
/** Node flags of the service: by default the image's NODE_OPTIONS (Dockerfile), as deployments run it; MEM_NODE_ARGS= (empty) for node's defaults. */
const NODE_ARGS = process.env.MEM_NODE_ARGS !== undefined ? process.env.MEM_NODE_ARGS.split(' ').filter(Boolean) : imageNodeArgs();
const OFFICIAL = 'official_oracle.aleo';

const dir = mkdtempSync(join(tmpdir(), 'memory-bench-'));
const env = await startMintedCliEnv(dir, MRENCLAVE);
const { sgx, nitro } = mintedUpdates(env);

// The ledger: one update per block, typeA and typeB alternating.
const FIRST = 1000;
const chain = new LedgerChain(FIRST, FIRST + UPDATES);
for (let i = 0; i < UPDATES; i++) {
  const u = i % 2 === 0 ? sgx(`7.${i + 1}`) : nitro(`7.${i + 1}`);
  chain.add(FIRST + 1 + i, [t.update(OFFICIAL, i % 2 === 0 ? 'set_data_sgx' : 'set_data_nitro', u.userData, u.report)]);
}
const node = await startLedgerNode();
chain.install(node);

const decodeBodies = Array.from({ length: 64 }, (_, i) => JSON.stringify(i % 2 === 0 ? sgx(`8.${i + 1}`) : nitro(`8.${i + 1}`)));
const verifyBody = JSON.stringify({ reports: await mintAttestationResponses({ typeA: env.typeA, typeB: env.typeB, mrEnclave: MRENCLAVE, count: 16 }) });
// As the SDKs send them: with oracleData (≈ 22 KB an entry), 8 entries ≈ 170 KB, near bodyLimit (256 KiB).
const largeBody = JSON.stringify({ reports: await mintAttestationResponses({ typeA: env.typeA, typeB: env.typeB, mrEnclave: MRENCLAVE, count: 8, withOracleData: true }) });
const json = { 'content-type': 'application/json' };
const requests = {
  verify: [{ method: 'POST', path: '/verify', headers: json, body: verifyBody }],
  verifyLarge: [{ method: 'POST', path: '/verify', headers: json, body: largeBody }],
  decodeReport: decodeBodies.map((body) => ({ method: 'POST', path: '/decodeReport', headers: json, body })),
  both: decodeBodies.flatMap((body) => [{ method: 'POST', path: '/decodeReport', headers: json, body }, { method: 'POST', path: '/verify', headers: json, body: verifyBody }]),
  hostile: decodeBodies.map((body) => ({ method: 'POST', path: '/decodeReport', headers: json, body })),
  unread: decodeBodies.map((body) => ({ method: 'POST', path: '/decodeReport', headers: json, body })),
  idle: decodeBodies.map((body) => ({ method: 'POST', path: '/decodeReport', headers: json, body })),
} as const;

/** Connections that pipeline GETs 500 a write and never read their answers, reconnecting when closed. */
function startUnread(url: string): { stop: () => Promise<string> } {
  const { hostname, port } = new URL(url);
  let stopping = false;
  let connections = 0;
  let bytesRead = 0;
  const sockets = new Set<Socket>();
  const open = (path: string): void => {
    if (stopping) return;
    connections++;
    const s = connect(Number(port), hostname);
    sockets.add(s);
    s.pause();
    const burst = `GET ${path} HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`.repeat(500);
    const send = (): void => void (!stopping && !s.destroyed && s.write(burst, () => setTimeout(send, 10)));
    s.once('connect', send);
    s.on('error', () => undefined);
    s.on('close', () => {
      bytesRead += s.bytesRead;
      sockets.delete(s);
      setTimeout(() => open(path), 100);
    });
  };
  for (let i = 0; i < UNREAD; i++) open(i % 2 === 0 ? '/docs/json' : '/info');
  return {
    stop: async () => {
      stopping = true;
      for (const s of sockets) s.destroy();
      return `unread clients ${UNREAD}: ${connections} connections, ${(bytesRead / 1048576).toFixed(1)} MiB of answers received in all`;
    },
  };
}

/** One address (127.0.0.2) opening IDLE connections, each finishing one GET /healthz and then idling. */
async function startIdle(url: string): Promise<{ stop: () => Promise<string> }> {
  const { hostname, port } = new URL(url);
  const sockets: Socket[] = [];
  const outcome = { answered: 0, closed: 0 };
  const one = () =>
    new Promise<void>((resolve) => {
      // From another loopback address than the load's, as another client would be.
      const s = connect({ port: Number(port), host: hostname, localAddress: '127.0.0.2' }, () => s.write(`GET /healthz HTTP/1.1\r\nHost: ${hostname}\r\n\r\n`));
      sockets.push(s);
      s.once('data', () => (outcome.answered++, resolve()));
      s.on('error', () => undefined);
      s.once('close', () => (outcome.closed++, resolve()));
    });
  for (let i = 0; i < IDLE; i += 500) await Promise.all(Array.from({ length: Math.min(500, IDLE - i) }, one));
  const healthz = await fetch(`${url}/healthz`).then((r) => String(r.status), () => 'error');
  return {
    stop: async () => {
      for (const s of sockets) s.destroy();
      return `idle connections ${IDLE}: ${outcome.answered} answered and held, ${outcome.closed} closed by the server; GET /healthz while they idled: ${healthz}`;
    },
  };
}

/**
 * The hostile upstreams and clients of the `hostile` scenario, started against `url`; `stop()`
 * ends them and says what they got.
 */
function startHostility(url: string, name: string): { stop: () => Promise<string> } {
  let stopping = false;
  // The PCCS: every /tcb answered with 200 MB, not declared (the verifier reads until its cap).
  const pccsFirst = env.pccs.streamed.length;
  env.pccs.clearInjected();
  if (HOSTILE.has('pccs')) env.pccs.inject('tcb', ...Array.from({ length: 20_000 }, () => ({ status: 200, stream: { bytes: PCCS_BYTES, declareLength: false } })));
  // The node: rounds of LOOKUPS concurrent lookups, each answered 31 MB (each id's retries too).
  const lookupAnswers: Record<string, number> = {};
  const lookups = (async () => {
    for (let round = 0; !stopping && HOSTILE.has('lookups'); round++) {
      const ids = Array.from({ length: LOOKUPS }, (_, i) => fakeId('at', `${name}-${round}-${i}`));
      ids.forEach((id, i) => node.script(`/transaction/${id}`, Array.from({ length: 3 }, () => reply.stream(LOOKUP_BYTES, i % 2 === 0))));
      const statuses = await Promise.all(ids.map((id) => fetch(`${url}/ledger/transactions/${id}`).then(async (r) => (await r.arrayBuffer(), String(r.status)), () => 'error')));
      for (const s of statuses) lookupAnswers[s] = (lookupAnswers[s] ?? 0) + 1;
    }
  })();
  // Slow bodies: 256 KiB declared on POST /verify, one byte a second, reconnecting when closed.
  const { hostname, port } = new URL(url);
  const sockets = new Set<Socket>();
  let connections = 0;
  const open = (): void => {
    if (stopping) return;
    connections++;
    const s = connect(Number(port), hostname, () => s.write(`POST /verify HTTP/1.1\r\nHost: ${hostname}\r\nContent-Type: application/json\r\nContent-Length: 262144\r\n\r\n`));
    sockets.add(s);
    const drip = setInterval(() => s.write(' '), 1000);
    s.on('error', () => undefined);
    s.on('data', () => undefined);
    s.on('close', () => {
      clearInterval(drip);
      sockets.delete(s);
      setTimeout(open, 100);
    });
  };
  if (HOSTILE.has('slow')) for (let i = 0; i < SLOW_SOCKETS; i++) open();
  return {
    stop: async () => {
      stopping = true;
      for (const s of sockets) s.destroy();
      await lookups;
      env.pccs.clearInjected();
      const sent = await Promise.all(env.pccs.streamed.slice(pccsFirst).map((x) => x.ended));
      const mib = (n: number) => (n / 1048576).toFixed(1);
      const lk = Object.entries(lookupAnswers).map(([s, n]) => `${s}: ${n}`).join(', ');
      return `lookups (${(LOOKUP_BYTES / 1e6).toFixed(1)} MB) ${lk}; PCCS /tcb answers ${sent.length}, sent before closed ≤ ${mib(Math.max(0, ...sent))} MiB each; slow sockets ${connections} connections`;
    },
  };
}

interface Row {
  scenario: string;
  inflight: string;
  idle: number;
  sampledPeak: number;
  hwm: number;
  after: number;
  answers: string;
  rps: number;
  stored: number;
}

const rows: Row[] = [];
const read = (p: string) => readFileSync(p, 'utf8');
for (const scenario of SCENARIOS) {
  if (!(scenario in requests)) throw new Error(`MEM_SCENARIOS: unknown scenario ${scenario}`);
  for (const inflight of INFLIGHT) {
    const name = `${scenario}-${inflight}`;
    const config = {
      ...env.config,
      workers: WORKERS,
      verificationTime: env.at,
      logLevel: 'warn',
      liveCheck: { skip: true, apiBaseUrl: node.url },
      watch: { enabled: true, database: join(dir, `${name}.db`), fromHeight: FIRST, pollIntervalMs: 1000, batchBlocks: 50, rps: 20 },
      ...(inflight === 'default' ? {} : { maxInflightBytes: Number(inflight) }),
    };
    const svc = await startServiceProcess(config, dir, name, NODE_ARGS);
    try {
      const idle = procStatusMiB(svc.pid, 'VmRSS', read);
      let sampledPeak = idle;
      const timer = setInterval(() => {
        try {
          sampledPeak = Math.max(sampledPeak, procStatusMiB(svc.pid, 'VmRSS', read));
        } catch {
          /* exited */
        }
      }, 50);
      const hostility = scenario === 'hostile' ? startHostility(svc.url, name) : scenario === 'unread' ? startUnread(svc.url) : scenario === 'idle' ? await startIdle(svc.url) : undefined;
      const r = await autocannon({ url: svc.url, connections: CONNECTIONS, duration: SECONDS, requests: requests[scenario as keyof typeof requests] } as unknown as autocannon.Options);
      const hostile = hostility ? `; ${await hostility.stop()}` : '';
      clearInterval(timer);
      const hwm = procStatusMiB(svc.pid, 'VmHWM', read);
      const after = procStatusMiB(svc.pid, 'VmRSS', read);
      const status = (await (await fetch(`${svc.url}/ledger/status`)).json()) as { updates: { valid: number; invalid: number; unverifiable: number } };
      const by = Object.entries(r.statusCodeStats ?? {}).map(([s, v]) => `${s}: ${(v as { count: number }).count}`).join(', ');
      rows.push({ scenario, inflight, idle, sampledPeak, hwm, after, answers: `${by}${r.errors ? `, errors: ${r.errors}` : ''}${hostile}`, rps: r.requests.average, stored: status.updates.valid + status.updates.invalid + status.updates.unverifiable });
      console.log(JSON.stringify(rows.at(-1)));
    } finally {
      await svc.stop();
    }
  }
}
await node.close();
await env.pccs.close();
rmSync(dir, { recursive: true, force: true });

const f = (x: number) => x.toFixed(0);
console.log(`\nPeak RSS (MiB) of the service, ${WORKERS} workers, watcher on, ${CONNECTIONS} connections for ${SECONDS} s (VmHWM = the kernel's peak), node ${NODE_ARGS.join(' ') || '(default flags)'}`);
console.log('scenario       maxInflightBytes  idle  sampled peak  VmHWM  after  req/s   stored updates  answers');
for (const x of rows) {
  console.log(`${x.scenario.padEnd(15)}${x.inflight.padEnd(18)}${f(x.idle).padEnd(6)}${f(x.sampledPeak).padEnd(14)}${f(x.hwm).padEnd(7)}${f(x.after).padEnd(7)}${x.rps.toFixed(0).padEnd(8)}${String(x.stored).padEnd(16)}${x.answers}`);
}
