/**
 * The watcher's lastError names the real cause and clears when the watcher recovers (issue 25,
 * item 9): the store's own SQLite connection is limited (PRAGMA max_page_count) so that the
 * watcher's commit fails with a real SQLITE_FULL; GET /ledger/status shows STORE_WRITE_FAILED with
 * SQLite's code, not "INTERNAL_ERROR internal error during verification"; once the limit is lifted
 * the next range is stored and lastError is gone.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { LedgerChain, t } from '../../../support/ledger-chain.js';
import { startLedgerNode, type LedgerNode } from '../../../support/ledger-node.js';
import { createBlockScanner } from '../../../../src/ledger/node/blocks/fetchBlocks.js';
import { LedgerWatcher } from '../../../../src/ledger/watch/watcher.js';
import { openUpdateStore } from '../../../../src/ledger/store/updateStore.js';
import { ledgerRoutes } from '../../../../src/server/routes/ledger.js';
import { redactorOf } from '../../../../src/upstream/publicUrl.js';
import type { VerifyOutcome } from '../../../../src/verify/types.js';

// Every better-sqlite3 connection the store opens, so that the test can limit the store's own.
const opened = vi.hoisted(() => [] as { pragma(s: string, o?: { simple: boolean }): unknown }[]);
vi.mock('better-sqlite3', async (importOriginal) => {
  const mod = await importOriginal<{ default: new (...a: unknown[]) => object }>();
  class Tracked extends mod.default {
    constructor(...a: unknown[]) {
      super(...a);
      opened.push(this as unknown as (typeof opened)[number]);
    }
  }
  return { ...mod, default: Tracked };
});

const P = 'official_oracle.aleo';
let dir: string;
let node: LedgerNode;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-watcher-errors-'));
  const chain = new LedgerChain(10, 29);
  for (let h = 11; h <= 28; h += 3) chain.add(h, [t.setDataSgx(P, `ud${h}`, `report${h}`)]);
  node = await startLedgerNode();
  chain.install(node);
});

afterAll(async () => {
  await node?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

// Records of several KiB each: a range needs new database pages.
const invalid: VerifyOutcome = { reportType: 'typeA', reportValid: false, error: { code: 'USERDATA_HASH_MISMATCH', message: `mismatch ${'x'.repeat(6000)}` } } as VerifyOutcome;

describe('ledger watcher lastError', () => {
  it('names the store’s SQLite failure and clears once a range is stored again', async () => {
    const store = openUpdateStore(join(dir, 'full.db'));
    const db = opened.at(-1)!;
    db.pragma(`max_page_count = ${db.pragma('page_count', { simple: true }) as number}`);
    const lines: { msg: string; obj: any }[] = [];
    const waiters = new Set<{ pred: (l: { msg: string; obj: any }) => boolean; resolve: () => void }>();
    const push = (obj: object, msg: string) => {
      const l = { msg, obj };
      lines.push(l);
      for (const w of [...waiters]) if (w.pred(l)) (waiters.delete(w), w.resolve());
    };
    const waitFor = (pred: (l: { msg: string; obj: any }) => boolean) =>
      new Promise<void>((resolve) => (lines.some(pred) ? resolve() : waiters.add({ pred, resolve })));
    const w = new LedgerWatcher({
      scanner: createBlockScanner({ baseUrl: node.url, rps: 0, timeoutMs: 30_000, retries: 0, backoffMs: 0 }),
      store,
      programs: [P],
      verify: async () => invalid,
      fromHeight: 10,
      pollIntervalMs: 100,
      batchBlocks: 10,
      concurrency: 1,
      log: { info: push, warn: push },
    });
    const app = Fastify();
    await app.register(ledgerRoutes({ store, watcherStatus: () => w.status() }));
    const status = async () => (await app.inject({ method: 'GET', url: '/ledger/status' })).json();
    try {
      w.start();
      await waitFor((l) => l.obj.code === 'STORE_WRITE_FAILED');
      const failed = await status();
      expect(failed.watcher.running).toBe(true);
      expect(failed.watcher.lastError).toMatchObject({ errorCode: 'STORE_WRITE_FAILED' });
      expect(failed.watcher.lastError.errorString).toBe(`store: writing to ${store.file} failed: SQLITE_FULL: database or disk is full`);
      expect(failed.scannedHeight).toBeNull();

      db.pragma('max_page_count = 1073741823');
      await waitFor((l) => l.msg === 'ledger range stored');
      const recovered = await status();
      expect(recovered.watcher).toEqual({ running: true, blockSource: '/blocks' });
      expect(recovered.scannedHeight).toBeGreaterThanOrEqual(19);
    } finally {
      await w.stop();
      await app.close();
      store.close();
    }
  });

  /** The lastError a watcher shows once `verify` threw `error` (a failure of no verifier code). */
  async function lastErrorAfter(file: string, error: Error, redact?: (text: string) => string) {
    const store = openUpdateStore(join(dir, file));
    let seen: () => void;
    const failed = new Promise<void>((r) => (seen = r));
    const push = (obj: object) => {
      if ((obj as { code?: string }).code === 'INTERNAL_ERROR') seen();
    };
    const w = new LedgerWatcher({
      scanner: createBlockScanner({ baseUrl: node.url, rps: 0, timeoutMs: 30_000, retries: 0, backoffMs: 0 }),
      store,
      programs: [P],
      verify: async () => {
        throw error;
      },
      ...(redact ? { redact } : {}),
      fromHeight: 10,
      pollIntervalMs: 60_000,
      batchBlocks: 10,
      concurrency: 1,
      log: { info: push, warn: push },
    });
    try {
      w.start();
      await failed;
      return w.status().lastError!;
    } finally {
      await w.stop();
      store.close();
    }
  }

  it('an unexpected error shows no configured secret, in any encoding, before or across the 300-character cut', async () => {
    const secret = 'k3y/with+odd&chars';
    // An error of no verifier code, naming the key raw, percent-encoded and across the cut.
    const message = `bad header ${secret} / ${encodeURIComponent(secret)} ${'x'.repeat(280)}${secret}`;
    const shown = (await lastErrorAfter('secret.db', new RangeError(message), redactorOf([secret]))).errorString;
    expect(shown).toMatch(/^ledger watcher: RangeError: bad header /);
    for (const piece of [secret, encodeURIComponent(secret), secret.slice(0, 8), encodeURIComponent(secret).slice(0, 8)]) expect(shown).not.toContain(piece);
  });

  it('an unexpected error shows its name, code and message, URLs without their query', async () => {
    const error = Object.assign(new TypeError('fetch of https://pccs.example/v4/tcb?key=s3cr3t-XYZ failed'), { code: 'ERR_ODD' });
    expect(await lastErrorAfter('odd.db', error)).toMatchObject({
      errorCode: 'INTERNAL_ERROR',
      errorString: 'ledger watcher: TypeError ERR_ODD: fetch of https://pccs.example/v4/tcb failed',
    });
  });
});
