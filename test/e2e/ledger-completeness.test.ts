/**
 * The completeness check end to end, against the ledger-node simulator serving the chain of every
 * era (test/support/ledger-fixture.ts) with snarkOS's mapping listing behind its JWT check:
 * - the CLI as a real process: `reverify --node … --completeness` prints "completeness: complete"
 *   after a whole scan, and "not checked" without LEDGER_NODE_JWT (exit 2); `completeness
 *   --records` of a scan that never saw one transaction, against a chain that also lost a stored
 *   key, prints "incomplete" with the unexplained keys, their windows, the transaction the rescan
 *   found, and the missing key (exit 1);
 * - the server as a real process: its watcher runs it when its scan reaches the tip; GET /ledger/completeness
 *   and the metrics say complete; the JWT appears in no answer and no log line (level trace).
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLedgerFixture, VERU2, type LedgerFixture } from '../support/ledger-fixture.js';
import { startLedgerNode, type LedgerNode } from '../support/ledger-node.js';
import { childEnv, logRecords, startMain } from '../support/process.js';
import { until } from '../support/wait.js';
import { reverifyCommand } from '../../src/cli/reverify.js';
import { completenessCommand } from '../../src/cli/completeness.js';

const CLI = resolve(process.cwd(), 'src/cli/main.ts');
const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGVvMWNvbXBsZXRlIn0.bm9kZS1zaWduYXR1cmUtb2YtdGVzdA';
const FIRST = 700;
const LATEST = 760;
/** Block h's timestamp in the simulator (ledger-chain.ts). */
const blockTime = (h: number) => 1725000000 + h * 3;
/** The fixture's `time0` update (block FIRST + 21) attests 20 s before its block. */
const TIME0_HEIGHT = FIRST + 21;

interface Write {
  program: string;
  mapping: string;
  key: string;
  role: 'latest' | 'historic' | 'unattested';
  data?: string;
  attestationTimestamp?: string;
}
interface Rec {
  transactionId?: string;
  blockHeight?: number;
  kind: string;
  mappingWrites?: Write[];
}

let dir: string;
let fx: LedgerFixture;
let node: LedgerNode;
let records: Rec[];

function cli(args: string[], env: NodeJS.ProcessEnv): Promise<{ code: number | null; stderr: string }> {
  return new Promise((res, rej) => {
    const child = spawn(process.execPath, ['--import', 'tsx', CLI, ...args], { env: { ...env, NODE_NO_WARNINGS: '1' } });
    let stderr = '';
    child.stderr.on('data', (d) => (stderr += d));
    child.stdout.resume();
    child.on('error', rej);
    child.on('exit', (code) => res({ code, stderr }));
  });
}

const envWithout = (): NodeJS.ProcessEnv => {
  const e = { ...process.env };
  delete e.LEDGER_NODE_JWT;
  return e;
};

/** The chain's mapping after these records' writes in ledger order (a request-hash key only by a newer attestation). */
function serveChainState(n: LedgerNode, recs: readonly Rec[]): void {
  const held = new Map<string, bigint>();
  for (const r of [...recs].sort((x, y) => (x.blockHeight ?? 0) - (y.blockHeight ?? 0))) {
    for (const w of r.mappingWrites ?? []) {
      if (w.data === undefined) continue;
      const id = `${w.program}|${w.mapping}|${w.key}`;
      const ts = BigInt(w.attestationTimestamp!);
      if (w.role === 'latest' && held.has(id) && held.get(id)! >= ts) continue;
      held.set(id, ts);
      n.setMapping(w.program, w.mapping, w.key, `{ data: ${w.data}u128, attestation_timestamp: ${w.attestationTimestamp}u128 }`);
    }
  }
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-completeness-'));
  fx = await startLedgerFixture(dir, { first: FIRST, latest: LATEST, timestamps: [blockTime(TIME0_HEIGHT) - 20] });
  node = await startLedgerNode({ jwt: JWT });
  fx.chain.install(node);
  node.setHeight(LATEST);
}, 300_000);

afterAll(async () => {
  await node?.close();
  await fx?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('completeness', { timeout: 300_000 }, () => {
  it('reverify --completeness: complete after a whole scan; not checked without the JWT', async () => {
    const out = join(dir, 'scan.jsonl');
    const scan = ['reverify', '--node', node.url, '--from', String(FIRST), '--config', fx.env.configFile, '--at', fx.env.at, '--workers', '0', '--out', out, '--progress-interval', '0', '--rps', '1000'];
    // Without the JWT: the scan's verdicts stand, the completeness line says why it was not checked, exit 2.
    const without = await cli([...scan, '--completeness'], envWithout());
    expect(without.stderr).toMatch(/^completeness: not checked — no listing allowed: .*LEDGER_NODE_JWT is not set.* \(LEDGER_LISTING_NOT_CONFIGURED\)$/m);
    expect(without.code).toBe(2);
    records = readFileSync(out, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l) as Rec);
    expect(records.some((r) => r.kind === 'unattested' && r.mappingWrites?.length)).toBe(true);
    serveChainState(node, records);

    rmSync(out);
    const withJwt = await cli([...scan, '--completeness'], { ...process.env, LEDGER_NODE_JWT: JWT });
    const line = withJwt.stderr.split('\n').find((l) => l.startsWith('completeness:'));
    // The mappings of programs with no key on the simulated chain are not initialized there (not deployed).
    expect(line).toMatch(/^completeness: complete — \d+ keys in \d+ mappings \(\d+ more not deployed on this network\), all explained by scanned writes \(1 by an unattested write\)$/);
    // The scan's own verdicts decide the exit code (the fixture holds an invalid update), not the completeness.
    const scanCode = records.some((r) => (r as any).outcome === 'unverifiable') ? 2 : 1;
    expect(withJwt.code).toBe(scanCode);
    expect(withJwt.stderr).not.toContain(JWT);
    // The listing carried the JWT; nothing else did.
    expect(node.requests.some((r) => r.path.includes('/mapping/sgx_attested_data?all=true'))).toBe(true);
  });

  it('completeness --records: a write the scan never saw and a deleted write make it incomplete, naming the keys, windows and the transaction found', async () => {
    // The scan "never saw" the update of block FIRST + 21 (its records dropped)…
    const unseen = fx.tx.time0!.transactionId;
    const seen = records.filter((r) => r.transactionId !== unseen);
    const trimmed = join(dir, 'trimmed.jsonl');
    writeFileSync(trimmed, seen.map((r) => `${JSON.stringify(r)}\n`).join(''));
    const unseenKeys = records.find((r) => r.transactionId === unseen)!.mappingWrites!.filter((w) => w.role === 'historic').map((w) => w.key);
    // …and the chain lost a key a stored update wrote (the historic key of official_oracle's pair).
    const pair = records.find((r) => r.transactionId === fx.tx.pair!.transactionId)!;
    const lost = pair.mappingWrites!.find((w) => w.role === 'historic')!;
    node.deleteMapping(lost.program, lost.mapping, lost.key);
    try {
      const json = join(dir, 'completeness.json');
      const r = await cli(
        [
          'completeness', '--node', node.url, '--records', trimmed, '--from', String(FIRST), '--to', String(LATEST + 1), '--config', fx.env.configFile, '--rps', '1000', '--json', json,
          // The simulator's chain starts at FIRST: windows of a minute after, half a minute before.
          '--window-seconds', '60', '--slack-seconds', '30',
        ],
        { ...process.env, LEDGER_NODE_JWT: JWT },
      );
      expect(r.code).toBe(1);
      expect(r.stderr).toMatch(/^completeness: incomplete — 1 of \d+ keys in \d+ mappings \(\d+ more not deployed on this network\) unexplained, 1 stored key missing on chain/m);
      for (const key of unseenKeys) {
        expect(r.stderr).toMatch(new RegExp(`^  unexplained ${VERU2.replace('.', '\\.')}/sgx_attested_data\\[${key}\\] = \\{ data: \\d+u128, attestation_timestamp: \\d+u128 \\}; window \\d+\\.\\.\\d+; rescan found ${VERU2.replace('.', '\\.')}/set_data_sgx in block ${TIME0_HEIGHT} \\(transaction ${unseen}\\)$`, 'm'));
      }
      expect(r.stderr).toContain(`  missing ${lost.program}/${lost.mapping}[${lost.key}]: written by official_oracle.aleo/set_data_sgx in block ${FIRST + 20}`);
      expect(r.stderr).not.toContain(JWT);
      const result = JSON.parse(readFileSync(json, 'utf8'));
      expect(result.status).toBe('incomplete');
      expect(result.missing).toHaveLength(1);
      const window = result.unexplained.find((k: any) => k.key === unseenKeys[0]).window;
      // From 50 s before the block (17 blocks of 3 s, rounded up) to 40 s after it.
      expect(window).toEqual({ fromHeight: TIME0_HEIGHT - 16, toHeight: TIME0_HEIGHT + 14, fromTimestamp: blockTime(TIME0_HEIGHT) - 50, toTimestamp: blockTime(TIME0_HEIGHT) + 40 });
    } finally {
      node.setMapping(lost.program, lost.mapping, lost.key, `{ data: ${lost.data}u128, attestation_timestamp: ${lost.attestationTimestamp}u128 }`);
    }
  });

  it('the server process: its watcher checks when its scan reaches the tip; GET /ledger/completeness and the metrics say complete; the JWT is in no answer and no log line', async () => {
    const cfg = join(dir, 'server.json');
    writeFileSync(
      cfg,
      JSON.stringify({
        ...fx.env.config,
        port: 0,
        host: '127.0.0.1',
        workers: 0,
        verificationTime: fx.env.at,
        liveCheck: { skip: true, apiBaseUrl: node.url, timeoutMs: 10_000 },
        watch: { enabled: true, fromHeight: FIRST, pollIntervalMs: 100, database: join(dir, 'watch.db'), batchBlocks: 50, rps: 1000, mappingKeysPerPoll: 0 },
        logLevel: 'trace',
      }),
    );
    const svc = await startMain(['--config', cfg], { env: { ...childEnv(), LEDGER_NODE_JWT: JWT }, timeoutMs: 180_000 });
    try {
      const get = async (path: string) => {
        const r = await fetch(`${svc.url}${path}`);
        return { status: r.status, text: await r.text() };
      };
      // Once the watcher logs its check (a guard limit, not a synchronisation).
      const logged = await until('the completeness check logged', () => logRecords(svc).find((l) => typeof l.msg === 'string' && l.msg.startsWith('ledger completeness')), 120_000);
      expect(logged).toMatchObject({ msg: 'ledger completeness checked', status: 'complete', unexplained: 0, missing: 0 });
      const r = await get('/ledger/completeness');
      expect(r.status).toBe(200);
      const body = JSON.parse(r.text);
      expect(body).toMatchObject({ status: 'complete', scannedHeight: LATEST, explainedByUnattested: 1, unexplainedCount: 0, missingCount: 0, unexplained: [], missing: [] });
      expect(body.keys).toBe(body.explained);
      expect(body.keys).toBeGreaterThan(0);
      const metrics = (await get('/metrics')).text;
      expect(metrics).toMatch(/^verifier_ledger_completeness\{status="complete"\} 1$/m);
      expect(metrics).toMatch(/^verifier_ledger_completeness\{status="incomplete"\} 0$/m);
      expect(metrics).toMatch(/^verifier_ledger_unexplained_keys 0$/m);
      const status = await get('/ledger/status');
      expect([r.text, metrics, status.text, svc.stdout(), svc.stderr()].join('\n')).not.toContain(JWT);
    } finally {
      await svc.stop();
    }
  });

  it('usage: --completeness checks a whole --node scan with its writes at hand; completeness needs the scanned writes', async () => {
    const io = { stderr: () => undefined, tty: false };
    const base = ['--node', node.url, '--from', String(FIRST), '--config', fx.env.configFile, '--workers', '0', '--completeness'];
    await expect(reverifyCommand(base, io)).rejects.toMatchObject({ code: 'CLI_USAGE', message: 'reverify: --completeness needs the scanned writes: --store FILE or --out FILE' });
    await expect(reverifyCommand([...base, '--out', join(dir, 'x.jsonl'), '--shard', '0/2'], io)).rejects.toMatchObject({ code: 'CLI_USAGE', message: expect.stringContaining('run `completeness` after `merge`') });
    const cio = { stdout: () => undefined, stderr: () => undefined };
    await expect(completenessCommand(['--node', node.url], cio)).rejects.toMatchObject({ code: 'CLI_USAGE', message: 'completeness: give the scanned writes: --store FILE or --records FILE' });
    await expect(completenessCommand(['--node', node.url, '--records', join(dir, 'trimmed.jsonl')], cio)).rejects.toMatchObject({ code: 'CLI_USAGE', message: expect.stringContaining('--records needs --to H') });
  });
});
