/**
 * Crash safety of the ledger watcher in the real server process (src/main.ts): the process is
 * killed with SIGKILL again and again in the middle of a range (right when it asks the node for
 * blocks, or right after it stored a range and went on), restarted on the same store each time,
 * and each restart continues at the stored scannedHeight + 1. At the end the store holds every
 * update of the ledger exactly once. Kills are triggered by events (the node seeing a request,
 * a log line), never by time.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLedgerFixture, type LedgerFixture } from '../support/ledger-fixture.js';
import { startMain, type ServiceProcess } from '../support/process.js';
import { openUpdateStore } from '../../src/ledger/store/updateStore.js';

let dir: string;
let fx: LedgerFixture;
const LATEST = 760;
const START_TIMEOUT_MS = 180_000; // a guard against a hung start, not a synchronisation

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-kill-'));
  fx = await startLedgerFixture(dir, { first: 700, latest: LATEST, extraSgx: 20 });
}, 300_000);

afterAll(async () => {
  await fx?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const scannedHeight = (db: string): number | null => {
  const s = openUpdateStore(db);
  try {
    return s.state().scannedHeight;
  } finally {
    s.close();
  }
};

/** Resolves with each pino line of the process's stdout that matches, as it arrives. */
function onLogLine(svc: ServiceProcess, pred: (rec: any) => boolean, fn: (rec: any) => void): void {
  let buf = '';
  svc.child.stdout!.on('data', (d: Buffer) => {
    buf += d.toString('utf8');
    const lines = buf.split('\n');
    buf = lines.pop()!;
    for (const line of lines) {
      let rec: any;
      try {
        rec = JSON.parse(line);
      } catch {
        continue;
      }
      if (pred(rec)) fn(rec);
    }
  });
}

const exited = (svc: ServiceProcess) => new Promise<void>((r) => (svc.child.exitCode !== null || svc.child.signalCode !== null ? r() : svc.child.once('exit', () => r())));

describe('ledger watcher under kill -9', () => {
  it('resumes after every kill with nothing lost or doubled', async () => {
    const db = join(dir, 'watch.db');
    const config = join(dir, 'server.json');
    writeFileSync(
      config,
      JSON.stringify({
        ...fx.env.config,
        port: 0,
        host: '127.0.0.1',
        workers: 0,
        verificationTime: fx.env.at,
        logLevel: 'info',
        liveCheck: { skip: true, apiBaseUrl: fx.node.url, timeoutMs: 30000 },
        watch: { enabled: true, fromHeight: 700, pollIntervalMs: 100, database: db, batchBlocks: 3, rps: 1000 },
      }),
    );
    const heights: (number | null)[] = [];
    for (let round = 0; round < 6; round++) {
      const before = scannedHeight(db);
      heights.push(before);
      fx.node.reset();
      const killed = new Promise<{ start: number }>((resolve, reject) => {
        let seen = 0;
        let first: number | undefined;
        const off = fx.node.onRequest((r) => {
          if (!r.path.includes('/blocks?')) return;
          const start = Number(new URL(r.path, 'http://x').searchParams.get('start'));
          first ??= start;
          // Even rounds: killed while it waits for the (round/2 + 1)-th range of blocks.
          if (round % 2 === 0 && ++seen === round / 2 + 1) {
            off();
            if (!svc) return reject(new Error('request before the process was known'));
            svc.child.kill('SIGKILL');
            resolve({ start: first });
          }
        });
        let svc: ServiceProcess | undefined;
        startMain(['--config', config], { timeoutMs: START_TIMEOUT_MS }).then((s) => {
          svc = s;
          current = s;
          // Odd rounds: killed right after its second stored range, on the way to the next.
          if (round % 2 === 1) {
            let stored = 0;
            onLogLine(s, (rec) => rec.msg === 'ledger range stored', () => {
              if (++stored !== 2) return;
              off();
              s.child.kill('SIGKILL');
              resolve({ start: first! });
            });
          }
        }, reject);
      });
      let current: ServiceProcess | undefined;
      const { start } = await killed;
      await exited(current!);
      expect(current!.child.signalCode).toBe('SIGKILL');
      // Each run continued where the store said the last one stopped.
      expect(start).toBe(before === null ? 700 : before + 1);
    }
    const afterKills = scannedHeight(db);
    heights.push(afterKills);
    expect(afterKills).not.toBeNull();
    expect(afterKills!).toBeLessThan(LATEST);
    expect(new Set(heights).size).toBeGreaterThan(2); // the kills landed at different points of the scan

    // A last run to the tip, then a clean stop.
    const svc = await startMain(['--config', config], { timeoutMs: START_TIMEOUT_MS });
    await new Promise<void>((resolve) => {
      if (svc.stdout().includes(`"scannedHeight":${LATEST},`)) return resolve();
      onLogLine(svc, (rec) => rec.msg === 'ledger range stored' && rec.scannedHeight === LATEST, () => resolve());
    });
    expect(await svc.stop('SIGTERM')).toBe(0);

    const raw = new Database(db, { readonly: true });
    const rows = raw.prepare('SELECT transition_id AS t, block_height AS h FROM updates ORDER BY block_height, transition_id').all() as { t: string; h: number }[];
    raw.close();
    const expected = [...fx.expected].sort((a, b) => a.height - b.height || (a.transitionId < b.transitionId ? -1 : 1));
    expect(rows).toEqual(expected.map((x) => ({ t: x.transitionId, h: x.height })));
    expect(scannedHeight(db)).toBe(LATEST);
  }, 900_000); // seven process starts: a guard against a hang, generous for a loaded machine
});
