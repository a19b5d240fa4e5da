/**
 * The ledger watcher in the server against the ledger-node simulator: it follows the chain of
 * every era to the tip through a node that rate limits (429 and the old plain-text answer), answers
 * another height range, times out and goes away for a while, and stores every accepted update
 * exactly once (not the rejected one, not other programs'); verification requests are answered
 * meanwhile. Then the read API (status, filters, keyset pages), and one store shared by a
 * `reverify --store` backfill and the watcher, which resumes where the backfill stopped.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLedgerFixture, type LedgerFixture } from '../support/ledger-fixture.js';
import { startLedgerServer, type LedgerServer } from '../support/ledger-server.js';
import { reply } from '../support/ledger-node.js';
import { postJson } from '../support/server.js';
import { reverifyCommand } from '../../src/cli/reverify.js';
import { openUpdateStore } from '../../src/ledger/store/updateStore.js';

let dir: string;
let fx: LedgerFixture;
const LATEST = 760;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-watch-'));
  fx = await startLedgerFixture(dir, { first: 700, latest: LATEST });
}, 300_000);

afterAll(async () => {
  await fx?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const watch = (database: string, extra: Record<string, unknown> = {}) => ({ watch: { enabled: true, fromHeight: 700, pollIntervalMs: 100, database, batchBlocks: 5, rps: 200, ...extra } });
const stored = (h: number) => (l: { msg: string; obj: any }) => l.msg === 'ledger range stored' && l.obj.scannedHeight === h;

async function allUpdates(srv: LedgerServer, query = '', limit = 3): Promise<any[]> {
  const out: any[] = [];
  let cursor: string | undefined;
  for (;;) {
    const r = await srv.get(`/ledger/updates?limit=${limit}${query}${cursor ? `&cursor=${cursor}` : ''}`);
    expect(r.status).toBe(200);
    out.push(...r.body.updates);
    if (!r.body.nextCursor) return out;
    cursor = r.body.nextCursor;
  }
}

/** The ledger's updates newest first by (height, transition id), as GET /ledger/updates orders them. */
const newestFirst = (xs: { height: number; transitionId: string }[]) =>
  [...xs].sort((a, b) => b.height - a.height || (a.transitionId < b.transitionId ? 1 : a.transitionId > b.transitionId ? -1 : 0)).map((x) => x.transitionId);

describe('ledger watcher', { timeout: 300_000 }, () => {
  let srv: LedgerServer;
  afterAll(async () => srv?.close());

  it('follows a misbehaving node to the tip, storing every update exactly once, and keeps verifying requests', async () => {
    fx.node.reset();
    fx.node.script('/block/height/latest', [reply.tooManyRequests('0'), reply.rateLimitText()]);
    fx.node.script('/blocks', [
      reply.tooManyRequests('0'),
      // Another height range than asked for: refused, nothing of it stored.
      reply.json([740, 741, 742, 743, 744].map((h) => fx.chain.block(h))),
      // A request that never completes (the node times out), then the node goes away for a while.
      reply.slow(600_000),
      ...Array.from({ length: 6 }, () => reply.hangUp()),
    ]);
    srv = await startLedgerServer(fx, dir, { ...watch(join(dir, 'watch.db')), liveCheck: { skip: true, apiBaseUrl: fx.node.url, timeoutMs: 500 } });
    const wrong = await srv.waitFor((l) => l.level === 'warn' && l.obj.code === 'LEDGER_NODE_BAD_BLOCKS');
    expect(wrong.obj.err).toContain('expected 700..704');
    await srv.waitFor((l) => l.level === 'warn' && l.obj.code === 'LEDGER_NODE_UNREACHABLE');
    // The node is gone: verification requests are answered as usual.
    const inputs = (fx.chain.block(702).transactions as any[])[0].transaction.execution.transitions[0].inputs;
    const v = await postJson(`${srv.url}/decodeReport`, { userData: inputs[0].value, report: inputs[1].value });
    expect(v.status).toBe(200);
    expect(v.body.reportValid).toBe(true);
    await srv.waitFor(stored(LATEST));

    const status = await srv.get('/ledger/status');
    expect(status.status).toBe(200);
    const valid = fx.expected.length - 2; // one update carries a report bound to other data; one record is an unattested overwrite
    expect(status.body).toMatchObject({ scannedHeight: LATEST, tipHeight: LATEST, lagBlocks: 0, updates: { valid, invalid: 1, unverifiable: 0 }, watcher: { running: true } });

    const all = await allUpdates(srv);
    expect(all.map((u) => u.transitionId)).toEqual(newestFirst(fx.expected));
    for (const u of all) {
      const e = fx.expected.find((x) => x.transitionId === u.transitionId)!;
      expect(u).toMatchObject({ transactionId: e.transactionId, blockHeight: e.height, program: e.program, function: e.function });
    }
    expect(all.filter((u) => u.outcome === 'invalid').map((u) => u.transactionId)).toEqual([fx.tx.invalid!.transactionId]);
    // Every stored record carries its outcome: the overwrite is an unattested write, and says what it wrote.
    const overwrite = fx.tx.overwrite!.transitionIds[0];
    expect(all.map((u) => u.outcome)).toEqual(all.map((u) => (u.transitionId === overwrite ? 'unattested' : u.reportValid ? 'valid' : 'invalid')));
    expect(all.find((u) => u.transitionId === overwrite)).toMatchObject({
      reportValid: false,
      written: { mapping: 'sgx_attested_data', key: '77u128', value: '{ data: 123u128, attestation_timestamp: 1725008028u128 }' },
    });
    // The unknown program's update is stored as unrecognized, and both are counted by program and function.
    expect(all.find((u) => u.transitionId === fx.tx.unknown!.transitionIds[0])).toMatchObject({ unrecognized: true, outcome: 'valid' });

    // Metrics: heights, and each stored update counted once by kind, outcome and code.
    const metrics = (await srv.get('/metrics')).body as string;
    expect(metrics).toMatch(new RegExp(`^verifier_ledger_scanned_height ${LATEST}$`, 'm'));
    expect(metrics).toMatch(new RegExp(`^verifier_ledger_tip_height ${LATEST}$`, 'm'));
    const count = (labels: string) => Number(new RegExp(`^verifier_ledger_updates_total\\{${labels}\\} (\\d+)$`, 'm').exec(metrics)?.[1]);
    const invalid = all.find((u) => u.outcome === 'invalid');
    expect(metrics).toMatch(/^verifier_ledger_unattested_total\{program="veru_oracle_v2\.aleo",function="update_historic_data"\} 1$/m);
    expect(metrics).toMatch(/^verifier_ledger_unrecognized_total\{program="other",function="set_data_sgx"\} 1$/m);
    expect(count(`kind="typeB",outcome="invalid",code="${invalid.errorCode}"`)).toBe(1);
    expect(count('kind="typeA",outcome="valid",code="none"') + count('kind="typeB",outcome="valid",code="none"')).toBe(valid);
  });

  it('filters by validity, kind and height range, and refuses bad parameters', async () => {
    // GET /info says a watcher runs (the ledger page asks it before the store routes).
    expect((await srv.get('/info')).body.ledgerWatcher).toBe(true);
    // valid=false: everything not valid, the unattested write (newest) included
    expect((await allUpdates(srv, '&valid=false')).map((u) => u.transactionId)).toEqual([fx.tx.overwrite!.transactionId, fx.tx.invalid!.transactionId]);
    expect((await allUpdates(srv, '&outcome=invalid')).map((u) => u.transactionId)).toEqual([fx.tx.invalid!.transactionId]);
    expect(await allUpdates(srv, '&outcome=unverifiable')).toEqual([]);
    expect((await allUpdates(srv, '&outcome=valid')).length).toBe(fx.expected.length - 2);
    expect((await allUpdates(srv, '&outcome=unattested')).map((u) => u.transitionId)).toEqual(fx.tx.overwrite!.transitionIds);
    expect((await allUpdates(srv, '&unrecognized=true')).map((u) => u.transitionId)).toEqual(fx.tx.unknown!.transitionIds);
    const typeB = await allUpdates(srv, '&kind=typeB', 2);
    expect(typeB.length).toBe(fx.expected.filter((x) => x.function === 'set_data_nitro').length);
    expect(typeB.every((u) => u.reportType === 'typeB')).toBe(true);
    const range = await allUpdates(srv, '&fromHeight=705&toHeight=712&valid=true');
    expect(range.map((u) => u.blockHeight)).toEqual([712, 711, 707, 705]);
    for (const [q, code] of [
      ['valid=yes', 'LEDGER_BAD_REQUEST'],
      ['outcome=unknown', 'LEDGER_BAD_REQUEST'],
      ['kind=typeC', 'LEDGER_BAD_REQUEST'],
      ['limit=0', 'LEDGER_BAD_REQUEST'],
      ['limit=501', 'LEDGER_BAD_REQUEST'],
      ['fromHeight=-1', 'LEDGER_BAD_REQUEST'],
      ['colour=red', 'LEDGER_BAD_REQUEST'],
      ['cursor=bm90LW91cnM', 'LEDGER_BAD_CURSOR'],
    ]) {
      const r = await srv.get(`/ledger/updates?${q}`);
      expect([q, r.status, r.body.errorCode]).toEqual([q, 400, code]);
    }
  });
});

describe('one store for backfill and watcher', { timeout: 300_000 }, () => {
  it('reverify --store backfills, the watcher resumes after it; each update stored once', async () => {
    fx.node.reset();
    const db = join(dir, 'shared.db');
    let stderr = '';
    const code = await reverifyCommand(
      ['--config', fx.env.configFile, '--at', fx.env.at, '--workers', '0', '--node', fx.node.url, '--from', '700', '--to', '713', '--batch', '5', '--rps', '1000', '--store', db, '--out', join(dir, 'backfill.jsonl'), '--progress-interval', '0'],
      { stderr: (s) => void (stderr += s), tty: false },
    );
    expect(code, stderr).toBe(1); // one invalid update among them
    const s = openUpdateStore(db);
    expect(s.state().scannedHeight).toBe(712);
    const backfilled = s.list({}, 100).records;
    s.close();
    expect(backfilled.map((r) => r.transitionId)).toEqual(newestFirst(fx.expected.filter((x) => x.height < 713)));

    // reverify without --from continues from the store's scanned height.
    const code2 = await reverifyCommand(
      ['--config', fx.env.configFile, '--at', fx.env.at, '--workers', '0', '--node', fx.node.url, '--to', '716', '--rps', '1000', '--store', db, '--out', join(dir, 'backfill2.jsonl'), '--progress-interval', '0'],
      { stderr: () => undefined, tty: false },
    );
    expect(code2).toBe(0);
    expect(fx.node.requestsTo('/blocks').map((r) => r.path.split('?')[1])).toContain('start=713&end=716');

    fx.node.reset();
    const srv = await startLedgerServer(fx, dir, watch(db));
    try {
      await srv.waitFor(stored(LATEST));
      expect(new URLSearchParams(fx.node.requestsTo('/blocks')[0]!.path.split('?')[1]).get('start')).toBe('716');
      expect((await allUpdates(srv, '', 100)).map((u) => u.transitionId)).toEqual(newestFirst(fx.expected));
      // Records written by the backfill kept their first verification.
      const first = backfilled.find((r) => r.blockHeight === 702)!;
      expect((await allUpdates(srv, '&fromHeight=702&toHeight=702')).map((u) => u.verifiedAt)).toEqual([first.verifiedAt]);
    } finally {
      await srv.close();
    }
  });

  it('a scan of fewer programs never makes the full watcher skip the others: it rescans them, each update stored once', async () => {
    fx.node.reset();
    const db = join(dir, 'subset.db');
    // A backfill of one program over the whole chain...
    const code = await reverifyCommand(
      ['--config', fx.env.configFile, '--at', fx.env.at, '--workers', '0', '--node', fx.node.url, '--program', 'veru_oracle_v2', '--from', '700', '--to', String(LATEST + 1), '--batch', '20', '--rps', '1000', '--store', db, '--out', join(dir, 'subset.jsonl'), '--progress-interval', '0'],
      { stderr: () => undefined, tty: false },
    );
    expect(code).toBe(0);
    const s = openUpdateStore(db);
    expect(s.programScans()).toEqual([{ program: 'veru_oracle_v2.aleo', fromHeight: 700, scannedHeight: LATEST }]);
    const subset = s.list({}, 100).records.map((r) => r.transitionId);
    s.close();
    expect(subset.length).toBeGreaterThan(0);
    // ...then the watcher of every program on the same store: it scans from its start again for the
    // programs the backfill did not cover, and stores every update exactly once.
    fx.node.reset();
    const srv = await startLedgerServer(fx, dir, watch(db));
    try {
      await srv.waitFor(stored(LATEST));
      expect(new URLSearchParams(fx.node.requestsTo('/blocks')[0]!.path.split('?')[1]).get('start')).toBe('700');
      expect((await allUpdates(srv, '', 100)).map((u) => u.transitionId)).toEqual(newestFirst(fx.expected));
    } finally {
      await srv.close();
    }
    const after = openUpdateStore(db);
    expect(after.programScans().every((p) => p.fromHeight === 700 && p.scannedHeight === LATEST)).toBe(true);
    after.close();
  });

  it('refuses --store with --jsonl (no transition ids)', async () => {
    await expect(reverifyCommand(['--jsonl', join(dir, 'x.jsonl'), '--store', join(dir, 'x.db'), '--config', fx.env.configFile], { stderr: () => undefined, tty: false })).rejects.toMatchObject({ code: 'CLI_USAGE', message: expect.stringContaining('--store needs ledger updates') });
  });
});
