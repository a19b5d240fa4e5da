/**
 * The completeness check cannot say "complete" wrongly (issue 50, item 1), tried as an auditor
 * would against the mainnet-shaped stand-in (test/support/mainnet-node.ts) as its own process, with
 * every era's updates (and one more of a request already made, later, so that a key is written
 * twice), the CLI and the server as real processes:
 * - a node on which no followed program exists (every listing "Program '…' does not exist") and no
 *   write stored: not checked, exit 2, never complete;
 * - a node listing a key with the value it held before an overwrite the scan stored: the key is
 *   unexplained (only its last write explains it);
 * - a write never seen (its records dropped): its block window placed through the stand-in's block
 *   headers, whose times hold the attestation times, and the rescan finds it in its block;
 * - the node's JWT echoed in a 200 listing body: cut out of stderr and --json;
 * - the watcher checks again every watch.completenessIntervalMs (a key added to the listing is
 *   reported, its removal seen; the metric follows each result), and after new writes (the tip moves
 *   on with a new update; the interval an hour).
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startMintedCliEnv, type MintedCliEnv } from '../support/minted-cli.js';
import { MRENCLAVE, mintedUpdates, OFFICIAL, VERU2 } from '../support/ledger-fixture.js';
import { mainnetUpdates } from '../support/mainnet-updates.js';
import { startMainnetNodeProcess, type ListedValue, type MainnetNodeProcess, type MainnetNodeSpec, type MainnetUpdate } from '../support/mainnet-node.js';
import { childEnv, logRecords, runMain, startMain, type ServiceProcess } from '../support/process.js';
import { prettyLeo } from '../support/ledger-node.js';
import { until } from '../support/wait.js';
import { PROGRAMS } from '../../src/ledger/programs.js';
import { updateWrites } from '../../src/ledger/records/mappingWrites.js';

const CLI = resolve(process.cwd(), 'src/cli/main.ts');
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGVvMW1haW5uZXQifQ.c3RhbmQtaW4tbm9kZS1zaWduYXR1cmU';
const SGX = 'sgx_attested_data';
/** The minted typeA update's attestation time (test/support/ledger-reports.ts); the later one attests 15 minutes after. */
const MINTED_TIME = 1725008028;

interface Write {
  program: string;
  mapping: string;
  key: string;
  role: string;
  data?: string;
  attestationTimestamp?: string;
}
interface Rec {
  transactionId?: string;
  blockHeight?: number;
  program?: string;
  kind: string;
  mappingWrites?: Write[];
}

let dir: string;
let env: MintedCliEnv;
let updates: MainnetUpdate[];
let node: MainnetNodeProcess;
let records: Rec[];
/** The request-hash key both minted SGX updates of official_oracle write, and each one's value. */
let twice: { key: string; older: string; newer: string };

const withJwt = (): NodeJS.ProcessEnv => ({ ...childEnv(), LEDGER_NODE_JWT: JWT, NODE_NO_WARNINGS: '1' });
const withoutJwt = (): NodeJS.ProcessEnv => {
  const e: NodeJS.ProcessEnv = { ...childEnv(), NODE_NO_WARNINGS: '1' };
  delete e.LEDGER_NODE_JWT;
  return e;
};
const cli = (args: string[], e: NodeJS.ProcessEnv) => runMain(args, { entry: CLI, env: e, timeoutMs: 240_000 });
const attested = (v: { data?: string; attestationTimestamp?: string }) => `{ data: ${v.data}u128, attestation_timestamp: ${v.attestationTimestamp}u128 }`;

async function startNode(name: string, spec: MainnetNodeSpec): Promise<MainnetNodeProcess> {
  writeFileSync(join(dir, `${name}.json`), JSON.stringify(spec));
  return startMainnetNodeProcess(join(dir, `${name}.json`));
}

/** What the stand-in claims instead of its blocks' writes ([]: the truth). */
async function claim(n: MainnetNodeProcess, listed: ListedValue[]): Promise<void> {
  const r = await fetch(`${n.origin}/__listed`, { method: 'PUT', body: JSON.stringify(listed) });
  expect(r.status).toBe(200);
}

/** `completeness --records FILE` of the scan [0, to) against `n`, with the JWT, keeping --json. */
async function completeness(n: MainnetNodeProcess, recordsFile: string, to: number, json: string) {
  const r = await cli(['completeness', '--node', `${n.origin}/mainnet`, '--records', recordsFile, '--from', '0', '--to', String(to), '--config', env.configFile, '--rps', '100000', '--json', json], withJwt());
  return { ...r, result: JSON.parse(readFileSync(json, 'utf8')) as any };
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'completeness-mainnet-'));
  env = await startMintedCliEnv(dir, MRENCLAVE);
  // Every era's updates, and the minted SGX request once more, 15 minutes later with another value.
  const later = mintedUpdates(env).sgx('59500.00000000', { timestamp: MINTED_TIME + 900 });
  updates = [...mainnetUpdates(env), { program: OFFICIAL, fn: 'set_data_sgx', ...later }];
  const layout = PROGRAMS.program(OFFICIAL)!.attestedData;
  const latestOf = (u: MainnetUpdate) => updateWrites(layout, 'typeA', u.fn, u.userData).find((w) => w.role === 'latest')!;
  const [older, newer] = [latestOf(updates[0]!), latestOf(updates[updates.length - 1]!)];
  expect(older.key).toBe(newer.key);
  twice = { key: newer.key, older: attested(older), newer: attested(newer) };
  // One placement of each update, every 100 blocks (the stand-in orders them by attestation time).
  node = await startNode('node', { latest: updates.length * 100 - 1, rps: 100_000, updates, jwt: JWT });
  const out = join(dir, 'scan.jsonl');
  const scan = await cli(
    ['reverify', '--node', `${node.origin}/mainnet`, '--from', '0', '--to', String(updates.length * 100), '--config', env.configFile, '--at', env.at, '--workers', '0', '--out', out, '--progress-interval', '0', '--rps', '100000'],
    withoutJwt(),
  );
  expect(scan.stderr).toMatch(/^updates 13: valid \d+/m);
  records = readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Rec);
}, 300_000);

afterAll(async () => {
  await node?.stop();
  await env?.pccs.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('completeness against the mainnet-shaped stand-in', { timeout: 300_000 }, () => {
  it('a node on which none of the followed programs exists, no write stored: not checked (exit 2), never "complete — 0 keys in 0 mappings"', async () => {
    const empty = await startNode('empty', { latest: 3199, rps: 100_000, updates: [], jwt: JWT });
    try {
      const file = join(dir, 'empty.jsonl');
      writeFileSync(file, '');
      const r = await completeness(empty, file, 3200, join(dir, 'empty-result.json'));
      const n = r.result.mappings.length;
      expect(n).toBeGreaterThan(0);
      // Every listing answered snarkOS's 500 "Program '…' does not exist".
      expect(r.result.mappings.every((m: any) => m.uninitialized === true && m.keys === 0)).toBe(true);
      expect(r.result).toMatchObject({ status: 'not_checked', errorCode: 'LEDGER_NODE_NO_ORACLE_MAPPING', keys: 0 });
      expect(r.stderr).toMatch(new RegExp(`^completeness: not checked — none of the ${n} oracle data mappings of the followed programs exists on the node .*nothing is proven \\(LEDGER_NODE_NO_ORACLE_MAPPING\\)$`, 'm'));
      expect(r.stderr).not.toMatch(/completeness: complete/);
      expect(r.code).toBe(2);
    } finally {
      await empty.stop();
    }
  });

  it('the truth is complete; a node listing the value a key held before an overwrite the scan stored is reported, not explained', async () => {
    await claim(node, []);
    const truth = await completeness(node, join(dir, 'scan.jsonl'), updates.length * 100, join(dir, 'truth.json'));
    expect(truth.stderr).toMatch(/^completeness: complete — \d+ keys in \d+ mappings \(\d+ more not deployed on this network\), all explained by scanned writes$/m);
    expect(truth.code).toBe(0);
    // The chain holds the later update's value under the request hash; the stale node lists the earlier one.
    const held = truth.result.mappings.find((m: any) => m.program === OFFICIAL && m.mapping === SGX);
    expect(held.keys).toBeGreaterThan(0);
    await claim(node, [{ program: OFFICIAL, mapping: SGX, key: twice.key, value: prettyLeo(twice.older) }]);
    try {
      const r = await completeness(node, join(dir, 'scan.jsonl'), updates.length * 100, join(dir, 'stale.json'));
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^completeness: incomplete — 1 of \d+ keys in \d+ mappings .* unexplained, 0 stored keys missing on chain/m);
      expect(r.stderr).toContain(`  unexplained ${OFFICIAL}/${SGX}[${twice.key}] = ${twice.older}`);
      expect(r.result.unexplained).toHaveLength(1);
      expect(r.result.unexplained[0]).toMatchObject({ key: twice.key, value: twice.older, reason: expect.stringMatching(/earlier write of this key, not of the last/) });
    } finally {
      await claim(node, []);
    }
  });

  it("a write the scan never saw: its window placed by the stand-in's block headers around its attestation time, the rescan finds it in its block", async () => {
    // A real-era update (2025) the scan "never saw": its records dropped.
    const year2025 = (r: Rec) => r.mappingWrites?.some((w) => Number(w.attestationTimestamp) >= 1735689600 && Number(w.attestationTimestamp) < 1767225600);
    const unseen = records.find((r) => r.kind === 'typeA' && r.program === VERU2 && year2025(r))!;
    expect(unseen).toBeDefined();
    const trimmed = join(dir, 'trimmed.jsonl');
    writeFileSync(trimmed, records.filter((r) => r.transactionId !== unseen.transactionId).map((r) => `${JSON.stringify(r)}\n`).join(''));
    const r = await completeness(node, trimmed, updates.length * 100, join(dir, 'unseen.json'));
    expect(r.code).toBe(1);
    const keys = unseen.mappingWrites!.map((w) => w.key);
    expect(r.result.unexplained.map((k: any) => k.key).sort()).toEqual([...keys].sort());
    const at = Number(unseen.mappingWrites![0]!.attestationTimestamp);
    for (const k of r.result.unexplained) {
      expect(k.window).toMatchObject({ fromTimestamp: at - 300, toTimestamp: at + 3600 });
      expect(k.window.fromHeight).toBeLessThanOrEqual(unseen.blockHeight!);
      expect(k.window.toHeight).toBeGreaterThanOrEqual(unseen.blockHeight!);
      expect(k.rescan).toEqual({ status: 'found', found: [expect.objectContaining({ blockHeight: unseen.blockHeight, transactionId: unseen.transactionId, program: VERU2, function: 'set_data_sgx' })] });
      expect(r.stderr).toContain(`; rescan found ${VERU2}/set_data_sgx in block ${unseen.blockHeight} (transaction ${unseen.transactionId})`);
    }
  });

  it("the node's JWT echoed in a 200 listing body (in a value and in a key) is in neither stderr nor --json", async () => {
    await claim(node, [
      { program: OFFICIAL, mapping: SGX, key: '1u128', value: `{ data: 1u128, attestation_timestamp: 2u128 } Bearer ${JWT}` },
      { program: OFFICIAL, mapping: SGX, key: JWT, value: '{ data: 1u128, attestation_timestamp: 2u128 }' },
    ]);
    try {
      const json = join(dir, 'echo.json');
      const r = await completeness(node, join(dir, 'scan.jsonl'), updates.length * 100, json);
      expect(r.code).toBe(1);
      expect(r.result.unexplained).toHaveLength(2);
      const raw = readFileSync(json, 'utf8');
      for (const text of [r.stderr, r.stdout, raw]) expect(text).not.toContain(JWT);
      expect(r.stderr).toContain('  unexplained official_oracle.aleo/sgx_attested_data[1u128] = { data: 1u128, attestation_timestamp: 2u128 } [redacted]');
      expect(r.stderr).toContain('  unexplained official_oracle.aleo/sgx_attested_data[[redacted]] = { data: 1u128, attestation_timestamp: 2u128 }');
      expect(raw).toContain('[redacted]');
    } finally {
      await claim(node, []);
    }
  });
});

describe('the watcher checks completeness again', { timeout: 300_000 }, () => {
  /** A server process watching `n` from 0 with the completeness interval given. */
  async function watcher(n: MainnetNodeProcess, name: string, intervalMs: number): Promise<ServiceProcess> {
    const cfg = join(dir, `${name}.json`);
    writeFileSync(
      cfg,
      JSON.stringify({
        ...env.config,
        port: 0,
        host: '127.0.0.1',
        workers: 0,
        verificationTime: env.at,
        liveCheck: { skip: true, apiBaseUrl: `${n.origin}/mainnet`, timeoutMs: 10_000 },
        watch: { enabled: true, fromHeight: 0, pollIntervalMs: 100, database: join(dir, `${name}.db`), rps: 100_000, mappingKeysPerPoll: 0, completenessIntervalMs: intervalMs },
      }),
    );
    return startMain(['--config', cfg], { env: withJwt(), timeoutMs: 180_000 });
  }
  const get = async (s: ServiceProcess, path: string) => (await fetch(`${s.url}${path}`)).text();
  /** The check's answer once it is `status` (each result replaces the last; a guard limit, not a synchronisation). */
  const result = (s: ServiceProcess, status: string, what: string) =>
    until(what, async () => {
      const r = JSON.parse(await get(s, '/ledger/completeness'));
      return r.status === status ? r : undefined;
    }, 150_000);
  const extra: ListedValue = { program: OFFICIAL, mapping: SGX, key: '12345u128', value: `{ data: 7u128, attestation_timestamp: ${MINTED_TIME}u128 }` };

  it('every completenessIntervalMs at the tip: a key added to the listing is reported, its removal seen, the metric following each result', async () => {
    const n = await startNode('interval-node', { latest: updates.length * 100 - 1, rps: 100_000, updates, jwt: JWT });
    const svc = await watcher(n, 'interval', 1000);
    try {
      const first = await result(svc, 'complete', 'the first check');
      expect(first.scannedHeight).toBe(updates.length * 100 - 1);
      await claim(n, [extra]);
      const found = await result(svc, 'incomplete', 'a later check finding the added key');
      expect(found).toMatchObject({ unexplainedCount: 1, unexplained: [expect.objectContaining({ key: extra.key })] });
      expect(Date.parse(found.checkedAt)).toBeGreaterThan(Date.parse(first.checkedAt));
      const metrics = await get(svc, '/metrics');
      expect(metrics).toMatch(/^verifier_ledger_completeness\{status="incomplete"\} 1$/m);
      expect(metrics).toMatch(/^verifier_ledger_completeness\{status="complete"\} 0$/m);
      expect(metrics).toMatch(/^verifier_ledger_unexplained_keys 1$/m);
      await claim(n, []);
      await result(svc, 'complete', 'a later check after the key went');
      const after = await get(svc, '/metrics');
      expect(after).toMatch(/^verifier_ledger_completeness\{status="complete"\} 1$/m);
      expect(after).toMatch(/^verifier_ledger_completeness\{status="incomplete"\} 0$/m);
      expect(after).toMatch(/^verifier_ledger_unexplained_keys 0$/m);
      expect([svc.stdout(), svc.stderr()].join('\n')).not.toContain(JWT);
    } finally {
      await svc.stop();
      await n.stop();
    }
  });

  it('after new writes to the oracle programs (the interval an hour): the next check at the tip reports the key the listing gained', async () => {
    // The last update (by attestation time) not on chain yet.
    const n = await startNode('writes-node', { latest: (updates.length - 1) * 100 - 1, rps: 100_000, updates, jwt: JWT });
    const svc = await watcher(n, 'writes', 3_600_000);
    try {
      const first = await result(svc, 'complete', 'the first check');
      expect(first.scannedHeight).toBe((updates.length - 1) * 100 - 1);
      await claim(n, [extra]);
      // The chain grows by a block holding an update: the watcher stores it, then checks again.
      const r = await fetch(`${n.origin}/__latest`, { method: 'PUT', body: JSON.stringify(updates.length * 100 - 1) });
      expect(r.status).toBe(200);
      const found = await result(svc, 'incomplete', 'the check after the new update was stored');
      expect(found).toMatchObject({ scannedHeight: updates.length * 100 - 1, unexplainedCount: 1, unexplained: [expect.objectContaining({ key: extra.key })] });
      const stored = logRecords(svc).filter((l) => l.msg === 'ledger range stored' && l.added > 0);
      expect(stored.at(-1)).toMatchObject({ scannedHeight: updates.length * 100 - 1 });
      expect(await get(svc, '/metrics')).toMatch(/^verifier_ledger_completeness\{status="incomplete"\} 1$/m);
    } finally {
      await svc.stop();
      await n.stop();
    }
  });
});
