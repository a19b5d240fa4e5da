/**
 * One watcher per store (issue 25, item 10; issue 48), with real server processes (src/main.ts) on
 * one database file: a second server starts while the first runs (which keeps running), and its
 * watcher waits for the lease, saying so with the holder's expiry; when the first is killed with
 * SIGKILL, the waiting one takes the lease over at its next try (the holder's process is gone); a
 * lease of a watcher on another machine (behind a shared volume) is waited for until it expires,
 * then taken over.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerChain, t } from '../support/ledger-chain.js';
import { startLedgerNode, type LedgerNode } from '../support/ledger-node.js';
import { readVectorJson } from '../support/paths.js';
import { startMain, type ServiceProcess, logRecords } from '../support/process.js';
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

const WAIT_MS = 180_000; // a guard against a hang, not a synchronisation
const said = (s: ServiceProcess, prefix: string) => logRecords(s).find((l) => typeof l.msg === 'string' && l.msg.startsWith(prefix));

describe('one watcher per store', { timeout: 900_000 }, () => {
  it('a second watcher waits while the first runs, saying so with its expiry, and takes over at once when the first is killed', async () => {
    const cfg = config('a.json', 600_000);
    const a = await start(cfg);
    const holderA = leaseRow()!.holder;
    expect(holderA).toMatch(new RegExp(`/${a.child.pid}/`));

    // A second server process on the same database starts (verification is served) and its watcher waits, naming the holder.
    const b = await start(cfg);
    const waiting = await until('the second watcher to say it waits', () => said(b, "ledger watcher: the store's lease is held by "), WAIT_MS);
    const expiry = new Date(leaseRow()!.expires_at).toISOString();
    expect(waiting.msg).toBe(`ledger watcher: the store's lease is held by ${holderA} until ${waiting.expiresAt}; this watcher waits for it and starts once it is given up, expires, or its process no longer runs (verification is served meanwhile)`);
    expect(Date.parse(waiting.expiresAt)).toBeLessThanOrEqual(Date.parse(expiry));
    expect((await status(b)).watcher).toEqual({ running: false, waitingForLease: { holder: holderA, expiresAt: waiting.expiresAt } });
    expect((await fetch(`${b.url}/readyz`)).status).toBe(200);
    // The first one is unaffected.
    await until('the first watcher to reach the tip', async () => (await status(a)).scannedHeight === 40, WAIT_MS);
    expect((await status(a)).watcher).toEqual({ running: true, ...((await status(a)).watcher.blockSource ? { blockSource: '/blocks' } : {}) });
    expect(leaseRow()!.holder).toBe(holderA);

    // kill -9: the lease stays behind; the waiting watcher on this host takes it over at its next try.
    a.child.kill('SIGKILL');
    await new Promise<void>((r) => (a.child.exitCode !== null || a.child.signalCode !== null ? r() : a.child.once('exit', () => r())));
    const takeover = await until('the second watcher to take the lease over', () => said(b, "ledger watcher: took over the store's lease"), WAIT_MS);
    expect(takeover.msg).toBe(`ledger watcher: took over the store's lease from ${holderA} (its process no longer runs)`);
    expect(leaseRow()!.holder).toMatch(new RegExp(`/${b.child.pid}/`));
    await until('the second watcher to run', async () => (await status(b)).watcher.running === true, WAIT_MS);
    const watcherB = (await status(b)).watcher;
    expect(watcherB.waitingForLease).toBeUndefined();
    // A clean stop gives the lease up.
    expect(await b.stop('SIGTERM')).toBe(0);
    expect(leaseRow()).toBeUndefined();
  });

  it('takes over the lease of a killed watcher of another machine once it expires, waiting until then', async () => {
    const cfg = config('d.json', 600_000);
    const d = await start(cfg);
    const holderD = leaseRow()!.holder;
    d.child.kill('SIGKILL');
    await new Promise<void>((r) => (d.child.exitCode !== null || d.child.signalCode !== null ? r() : d.child.once('exit', () => r())));
    // As if it had run on another machine sharing the volume: its process cannot be checked from here.
    const raw = new Database(db());
    raw.prepare("UPDATE lease SET host = 'other-machine.example'").run();
    raw.close();
    const e = await start(cfg);
    await until('the watcher to say it waits', () => said(e, `ledger watcher: the store's lease is held by ${holderD} until `), WAIT_MS);
    expect((await status(e)).watcher.running).toBe(false);
    // Its TTL (600 s) passes without a heartbeat: the lease expired.
    const expiredAt = Date.now() - 1;
    const raw2 = new Database(db());
    raw2.prepare('UPDATE lease SET expires_at = ?').run(expiredAt);
    raw2.close();
    const takeover = await until('the watcher to take the expired lease over', () => said(e, "ledger watcher: took over the store's lease"), WAIT_MS);
    expect(takeover.msg).toBe(`ledger watcher: took over the store's lease from ${holderD} (it expired at ${new Date(expiredAt).toISOString()})`);
    await until('the watcher to run', async () => (await status(e)).watcher.running === true, WAIT_MS);
    expect(await e.stop('SIGTERM')).toBe(0);
  });
});
