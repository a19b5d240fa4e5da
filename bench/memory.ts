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
 * Usage: npm run build && npx tsx bench/memory.ts
 * Env: MEM_CONNECTIONS=300 MEM_SECONDS=20 MEM_WORKERS=2 MEM_UPDATES=1500 MEM_SCENARIOS=verify,decodeReport,both,verifyLarge
 *   MEM_INFLIGHT=default MEM_NODE_ARGS=(the Dockerfile's NODE_OPTIONS)
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import autocannon from 'autocannon';
import { LedgerChain, t } from '../test/support/ledger-chain.js';
import { startLedgerNode } from '../test/support/ledger-node.js';
import { MRENCLAVE, mintedUpdates } from '../test/support/ledger-fixture.js';
import { startMintedCliEnv } from '../test/support/minted-cli.js';
import { imageNodeArgs, procStatusMiB, startServiceProcess } from './serviceProcess.js';
import { mintAttestationResponses } from './verifyEntries.js';

const CONNECTIONS = Number(process.env.MEM_CONNECTIONS ?? 300);
const SECONDS = Number(process.env.MEM_SECONDS ?? 20);
const WORKERS = Number(process.env.MEM_WORKERS ?? 2);
const UPDATES = Number(process.env.MEM_UPDATES ?? 1500);
const SCENARIOS = (process.env.MEM_SCENARIOS ?? 'verify,decodeReport,both,verifyLarge').split(',');
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
} as const;

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
      const r = await autocannon({ url: svc.url, connections: CONNECTIONS, duration: SECONDS, requests: requests[scenario as keyof typeof requests] } as unknown as autocannon.Options);
      clearInterval(timer);
      const hwm = procStatusMiB(svc.pid, 'VmHWM', read);
      const after = procStatusMiB(svc.pid, 'VmRSS', read);
      const status = (await (await fetch(`${svc.url}/ledger/status`)).json()) as { updates: { valid: number; invalid: number; unverifiable: number } };
      const by = Object.entries(r.statusCodeStats ?? {}).map(([s, v]) => `${s}: ${(v as { count: number }).count}`).join(', ');
      rows.push({ scenario, inflight, idle, sampledPeak, hwm, after, answers: `${by}${r.errors ? `, errors: ${r.errors}` : ''}`, rps: r.requests.average, stored: status.updates.valid + status.updates.invalid + status.updates.unverifiable });
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
