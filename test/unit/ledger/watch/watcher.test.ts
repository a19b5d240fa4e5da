/**
 * The watcher's own rules, with a scripted verifier against the ledger-node simulator: a range
 * whose verification the pool refused (POOL_*) is not stored and is retried; stop() returns while
 * a node request hangs; a transaction lookup refused by the pool is an error (503), not a verdict.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerChain, t } from '../../../support/ledger-chain.js';
import { reply, startLedgerNode, type LedgerNode } from '../../../support/ledger-node.js';
import { createBlockScanner } from '../../../../src/ledger/node/blocks/fetchBlocks.js';
import { LedgerWatcher } from '../../../../src/ledger/watch/watcher.js';
import { createLedgerFeature } from '../../../../src/server/ledgerFeature.js';
import { resolveConfig } from '../../../../src/config/load.js';
import { openUpdateStore } from '../../../../src/ledger/store/updateStore.js';
import type { VerifyOutcome } from '../../../../src/verify/types.js';

const P = 'official_oracle.aleo';
let dir: string;
let node: LedgerNode;
let chain: LedgerChain;
const ids: string[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-watcher-'));
  chain = new LedgerChain(10, 19);
  for (const h of [11, 14, 17]) ids.push(chain.add(h, [t.setDataSgx(P, `ud${h}`, `report${h}`)]).transitionIds[0]!);
  node = await startLedgerNode();
  chain.install(node);
});

afterAll(async () => {
  await node?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const valid: VerifyOutcome = { reportType: 'typeA', reportValid: true } as VerifyOutcome;
const refused: VerifyOutcome = { reportType: 'typeA', reportValid: false, error: { code: 'POOL_OVERLOADED', message: 'pool full' } } as VerifyOutcome;
const events = () => {
  const lines: { msg: string; obj: any }[] = [];
  const waiters: { pred: (l: { msg: string; obj: any }) => boolean; resolve: () => void }[] = [];
  const push = (obj: object, msg: string) => {
    const l = { msg, obj };
    lines.push(l);
    for (const w of [...waiters]) if (w.pred(l)) (waiters.splice(waiters.indexOf(w), 1), w.resolve());
  };
  return {
    lines,
    log: { info: push, warn: push },
    waitFor: (pred: (l: { msg: string; obj: any }) => boolean) => new Promise<void>((resolve) => (lines.some(pred) ? resolve() : waiters.push({ pred, resolve }))),
  };
};

describe('ledger watcher', () => {
  it('does not store a range whose verification the pool refused, and stores it on the retry', async () => {
    node.reset();
    const store = openUpdateStore(join(dir, 'refused.db'));
    const calls: string[] = [];
    let refuse = true;
    const ev = events();
    const w = new LedgerWatcher({
      scanner: createBlockScanner({ baseUrl: node.url, rps: 0, timeoutMs: 5000, retries: 0, backoffMs: 0 }),
      store,
      programs: [P],
      verify: async (u) => {
        calls.push(u);
        if (u === 'ud14' && refuse) {
          refuse = false;
          return refused;
        }
        return valid;
      },
      fromHeight: 10,
      pollIntervalMs: 100,
      batchBlocks: 5,
      concurrency: 1,
      log: ev.log,
    });
    w.start();
    await ev.waitFor((l) => l.obj.code === 'POOL_OVERLOADED');
    await ev.waitFor((l) => l.msg === 'ledger range stored' && l.obj.scannedHeight === 19);
    await w.stop();
    expect(calls.filter((c) => c === 'ud14')).toHaveLength(2);
    expect(store.list({}, 10).records.map((r) => r.transitionId)).toEqual([ids[2], ids[1], ids[0]]);
    expect(store.counts()).toEqual({ valid: 3, invalid: 0, unverifiable: 0, unattested: 0 });
    expect(w.status()).toEqual({ running: false, blockSource: '/blocks' });
    store.close();
  });

  it('keeps no range it stored: the blocks of every range but the last are collectable while it runs', async () => {
    // A full collection on demand (the flag, then a context's gc that sees it).
    setFlagsFromString('--expose-gc');
    const gc = runInNewContext('gc') as () => void;
    node.reset();
    const store = openUpdateStore(join(dir, 'kept.db'));
    const ev = events();
    const scanner = createBlockScanner({ baseUrl: node.url, rps: 0, timeoutMs: 5000, retries: 0, backoffMs: 0 });
    const ranges: WeakRef<object>[] = [];
    const fetchRange = scanner.fetchRange.bind(scanner);
    scanner.fetchRange = async (start, end) => {
      const blocks = await fetchRange(start, end);
      ranges.push(new WeakRef(blocks));
      return blocks;
    };
    const w = new LedgerWatcher({ scanner, store, programs: [P], verify: async () => valid, fromHeight: 10, pollIntervalMs: 100, batchBlocks: 2, concurrency: 1, log: ev.log });
    w.start();
    await ev.waitFor((l) => l.msg === 'ledger range stored' && l.obj.scannedHeight === 19);
    // Past the job that stored the last range (WeakRef targets are kept until then), the watcher still running.
    await new Promise((r) => setImmediate(r));
    gc();
    expect(ranges).toHaveLength(5);
    expect(ranges.slice(0, -1).filter((r) => r.deref() !== undefined)).toHaveLength(0);
    await w.stop();
    store.close();
  });

  it('stop() returns while a node request hangs, and nothing is stored', async () => {
    node.reset();
    node.script('/blocks', [reply.slow(600_000)]);
    const store = openUpdateStore(join(dir, 'hang.db'));
    const ev = events();
    const w = new LedgerWatcher({
      scanner: createBlockScanner({ baseUrl: node.url, rps: 0, timeoutMs: 600_000, retries: 0, backoffMs: 0 }),
      store,
      programs: [P],
      verify: async () => valid,
      fromHeight: 10,
      pollIntervalMs: 100,
      batchBlocks: 5,
      concurrency: 1,
      log: ev.log,
    });
    const asked = new Promise<void>((resolve) => node.onRequest((r) => r.path.includes('/blocks?') && resolve()));
    w.start();
    await asked;
    await w.stop();
    expect(store.state()).toEqual({ scannedHeight: null, tipHeight: 19 });
    store.close();
  });

  it('a transaction lookup the pool refused fails with the pool’s code instead of a verdict', async () => {
    node.reset();
    const config = resolveConfig({ port: 0, liveCheck: { skip: true, apiBaseUrl: node.url } }, dir);
    const f = createLedgerFeature(config, async () => refused, { info() {}, warn() {} });
    const tx = chain.added.find((x) => x.height === 11)!.transactionId;
    await expect(f.routes.lookup!(tx)).rejects.toMatchObject({ code: 'POOL_OVERLOADED' });
    const ok = createLedgerFeature(config, async () => valid, { info() {}, warn() {} });
    expect((await ok.routes.lookup!(tx)).updates.map((u) => [u.transitionId, u.reportValid])).toEqual([[ids[0], true]]);
  });
});
