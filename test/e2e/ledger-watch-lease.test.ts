/**
 * One watcher per store (issue 25, item 10), with real server processes (src/main.ts) on one
 * database file: a second watcher is refused at startup with a clear error while the first runs
 * (which keeps running); a watcher killed with SIGKILL leaves its lease, which the next one on this
 * host takes over at once (its process is gone); a lease of a watcher on another machine (behind a
 * shared volume) is refused until it expires, then taken over.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerChain, t } from '../support/ledger-chain.js';
import { startLedgerNode, type LedgerNode } from '../support/ledger-node.js';
import { readVectorJson } from '../support/paths.js';
import { runMain, startMain, type ServiceProcess, logRecords } from '../support/process.js';
import { until } from '../support/wait.js';

const targets = readVectorJson<any>('production-targets.json');
const START_TIMEOUT_MS = 180_000; // a guard against a hung start, not a synchronisation
let dir: string;
let node: LedgerNode;
const running: ServiceProcess[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-lease-'));
  const chain = new LedgerChain(10, 40);
  for (let h = 12; h < 40; h += 7) chain.add(h, [t.transfer()]);
  node = await startLedgerNode();
  chain.install(node);
});

afterAll(async () => {
  for (const s of running) if (s.child.exitCode === null && s.child.signalCode === null) s.child.kill('SIGKILL');
  await node?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const db = () => join(dir, 'ledger.db');
const config = (name: string, leaseTtlMs: number): string => {
  const file = join(dir, name);
  writeFileSync(
    file,
    JSON.stringify({
      port: 0,
      host: '127.0.0.1',
      uniqueIdTarget: targets.uniqueIdTarget,
      pcrValuesTarget: targets.pcrValuesTarget,
      workers: 1,
      logLevel: 'info',
      liveCheck: { skip: true, apiBaseUrl: node.url, timeoutMs: 30_000 },
      watch: { enabled: true, database: db(), fromHeight: 10, pollIntervalMs: 200, batchBlocks: 10, rps: 1000, leaseTtlMs },
    }),
  );
  return file;
};

async function start(cfg: string): Promise<ServiceProcess> {
  const s = await startMain(['--config', cfg], { timeoutMs: START_TIMEOUT_MS });
  running.push(s);
  return s;
}

const leaseRow = (): { holder: string; host: string; pid: number; expires_at: number } | undefined => {
  const raw = new Database(db());
  try {
    return raw.prepare('SELECT holder, host, pid, expires_at FROM lease').get() as never;
  } finally {
    raw.close();
  }
};

const status = async (s: ServiceProcess) => (await fetch(`${s.url}/ledger/status`)).json() as Promise<any>;

describe('one watcher per store', { timeout: 900_000 }, () => {
  it('refuses a second watcher while the first runs, and lets the next one take over a killed one', async () => {
    const cfg = config('a.json', 600_000);
    const a = await start(cfg);
    const holderA = leaseRow()!.holder;
    expect(holderA).toMatch(new RegExp(`/${a.child.pid}/`));

    // A second server process on the same database: refused at startup, naming the holder.
    const b = await runMain(['--config', cfg], { timeoutMs: START_TIMEOUT_MS });
    expect(b.code).toBe(1);
    expect(b.stderr).toContain(`startup failed: store: ${db()} is in use by another ledger watcher (${holderA}: host `);
    expect(b.stderr).toMatch(/One watcher per store: stop the other one, or give this one its own watch\.database/);
    // The first one is unaffected.
    await until('the first watcher to reach the tip', async () => (await status(a)).scannedHeight === 40);
    expect((await status(a)).watcher).toEqual({ running: true, ...((await status(a)).watcher.blockSource ? { blockSource: '/blocks' } : {}) });
    expect(leaseRow()!.holder).toBe(holderA);

    // kill -9: the lease stays behind; the next watcher on this host takes it over at once.
    a.child.kill('SIGKILL');
    await new Promise<void>((r) => (a.child.exitCode !== null || a.child.signalCode !== null ? r() : a.child.once('exit', () => r())));
    expect(leaseRow()!.holder).toBe(holderA);
    const c = await start(cfg);
    const takeover = logRecords(c).find((l) => typeof l.msg === 'string' && l.msg.startsWith("ledger watcher: took over the store's lease"));
    expect(takeover?.msg).toBe(`ledger watcher: took over the store's lease from ${holderA} (its process no longer runs)`);
    expect(leaseRow()!.holder).toMatch(new RegExp(`/${c.child.pid}/`));
    // One status read: the block source may be detected between two reads (it is once the first range is asked).
    const watcherC = (await status(c)).watcher;
    expect(watcherC).toEqual({ running: true, ...(watcherC.blockSource ? { blockSource: '/blocks' } : {}) });
    // A clean stop gives the lease up.
    expect(await c.stop('SIGTERM')).toBe(0);
    expect(leaseRow()).toBeUndefined();
  });

  it('takes over the lease of a killed watcher of another machine once it expires', async () => {
    const cfg = config('d.json', 600_000);
    const d = await start(cfg);
    const holderD = leaseRow()!.holder;
    d.child.kill('SIGKILL');
    await new Promise<void>((r) => (d.child.exitCode !== null || d.child.signalCode !== null ? r() : d.child.once('exit', () => r())));
    // As if it had run on another machine sharing the volume: its process cannot be checked from here.
    const raw = new Database(db());
    raw.prepare("UPDATE lease SET host = 'other-machine.example'").run();
    raw.close();
    const refused = await runMain(['--config', cfg], { timeoutMs: START_TIMEOUT_MS });
    expect(refused.code).toBe(1);
    expect(refused.stderr).toContain(`is in use by another ledger watcher (${holderD}: host other-machine.example`);
    // Its TTL (600 s) passes without a heartbeat: the lease expired.
    const expiredAt = Date.now() - 1;
    const raw2 = new Database(db());
    raw2.prepare('UPDATE lease SET expires_at = ?').run(expiredAt);
    raw2.close();
    const e = await start(cfg);
    const takeover = logRecords(e).find((l) => typeof l.msg === 'string' && l.msg.startsWith("ledger watcher: took over the store's lease"));
    expect(takeover?.msg).toBe(`ledger watcher: took over the store's lease from ${holderD} (it expired at ${new Date(expiredAt).toISOString()})`);
    // One status read: the block source may be detected between two reads (it is once the first range is asked).
    const watcherE = (await status(e)).watcher;
    expect(watcherE).toEqual({ running: true, ...(watcherE.blockSource ? { blockSource: '/blocks' } : {}) });
    expect(await e.stop('SIGTERM')).toBe(0);
  });
});
