/**
 * GET /ledger/transactions/{id} against the ledger-node simulator: updates of every era found and
 * verified (also when called from another program), invalid updates, transactions without updates,
 * unknown and rejected transactions, a node answering garbage or going away; the store routes
 * without a watcher; the routes in the OpenAPI description.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IFACE5, OFFICIAL, startLedgerFixture, VERU2, VLINK, type LedgerFixture } from '../support/ledger-fixture.js';
import { startLedgerServer, type LedgerServer } from '../support/ledger-server.js';
import { reply } from '../support/ledger-node.js';
import { fakeId } from '../support/ledger-chain.js';
import { startServer } from '../support/server.js';

let dir: string;
let fx: LedgerFixture;
let srv: LedgerServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-routes-'));
  fx = await startLedgerFixture(dir);
  srv = await startLedgerServer(fx, dir, {});
}, 300_000);

afterAll(async () => {
  await srv?.close();
  await fx?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('GET /ledger/transactions/{id}', { timeout: 300_000 }, () => {
  it('verifies the update of every era’s program, wrapped calls included', async () => {
    const cases: [string, string, string, string][] = [
      ['officialSgx', OFFICIAL, 'set_data_sgx', 'typeA'],
      ['officialNitro', OFFICIAL, 'set_data_nitro', 'typeB'],
      ['vlinkNitro', VLINK, 'set_data_nitro', 'typeB'],
      ['veruWrapped', VERU2, 'set_data_sgx', 'typeA'],
      ['ifaceSingle', IFACE5, 'set_single_data_sgx', 'typeA'],
      ['ifaceWrapped', IFACE5, 'set_multiple_data_sgx', 'typeA'],
      ['ifaceFive', IFACE5, 'set_five_data_sgx', 'typeA'],
    ];
    for (const [name, program, fn, kind] of cases) {
      const t = fx.tx[name]!;
      const r = await srv.get(`/ledger/transactions/${t.transactionId}`);
      expect(r.status, name).toBe(200);
      const added = fx.expected.find((x) => x.transactionId === t.transactionId)!;
      expect(r.body.transactionId).toBe(t.transactionId);
      expect(r.body.blockHeight).toBe(added.height);
      expect(r.body.updates).toHaveLength(1);
      const u = r.body.updates[0];
      expect(u, name).toMatchObject({ transactionId: t.transactionId, transitionId: added.transitionId, blockHeight: added.height, program, function: fn, reportType: kind, reportValid: true, outcome: 'valid' });
      expect(u.errorCode).toBeUndefined();
      expect(Date.parse(u.verifiedAt)).not.toBeNaN();
      expect(kind === 'typeA' ? Object.keys(u.measurements) : u.measurements.pcrs).toHaveLength(kind === 'typeA' ? 1 : 3);
    }
    const era4 = (await srv.get(`/ledger/transactions/${fx.tx.ifaceFive!.transactionId}`)).body.updates[0];
    expect(era4.decodedRequests.length).toBeGreaterThan(1);
    expect(era4.decodedRequests[0]).toMatchObject(era4.decodedData);
  });

  it('asks an older node (bare transaction, no block_height) for the transaction’s block', async () => {
    const t = fx.tx.veruWrapped!;
    const added = fx.expected.find((x) => x.transactionId === t.transactionId)!;
    const bare = (fx.chain.block(added.height).transactions as any[])[0].transaction;
    fx.node.script(`/transaction/${t.transactionId}`, [reply.json(bare)]);
    const r = await srv.get(`/ledger/transactions/${t.transactionId}`);
    expect(r.status).toBe(200);
    expect(r.body.blockHeight).toBe(added.height);
    expect(r.body.updates.map((u: any) => [u.transitionId, u.blockHeight, u.reportValid])).toEqual([[added.transitionId, added.height, true]]);
    expect(fx.node.requestsTo(`/find/blockHash/${t.transactionId}`)).toHaveLength(1);
    // A block hash that is not one: 502.
    fx.node.script(`/transaction/${t.transactionId}`, [reply.json(bare)]);
    fx.node.script(`/find/blockHash/${t.transactionId}`, [reply.json({ not: 'a hash' })]);
    const bad = await srv.get(`/ledger/transactions/${t.transactionId}`);
    expect([bad.status, bad.body.errorCode]).toEqual([502, 'LEDGER_NODE_BAD_TRANSACTION']);
  });

  it('verifies with the same core and policy as /decodeReport: a report bound to other data is invalid', async () => {
    const r = await srv.get(`/ledger/transactions/${fx.tx.invalid!.transactionId}`);
    expect(r.status).toBe(200);
    expect(r.body.updates).toHaveLength(1);
    expect(r.body.updates[0]).toMatchObject({ reportType: 'typeB', reportValid: false, outcome: 'invalid', errorCode: expect.any(String), errorString: expect.any(String) });
  });

  it("answers an unknown program's transition of update shape as an unrecognized update, never dropped", async () => {
    const r = await srv.get(`/ledger/transactions/${fx.tx.unknown!.transactionId}`);
    expect(r.status).toBe(200);
    expect(r.body.updates).toHaveLength(1);
    expect(r.body.updates[0]).toMatchObject({ program: 'other_oracle.aleo', function: 'set_data_sgx', unrecognized: true, reportType: 'typeA', outcome: 'valid' });
  });

  it('answers 200 with no updates for a transaction without oracle updates', async () => {
    for (const name of ['transfer', 'owner']) {
      const r = await srv.get(`/ledger/transactions/${fx.tx[name]!.transactionId}`);
      expect(r.status, name).toBe(200);
      expect(r.body, name).toEqual({ transactionId: fx.tx[name]!.transactionId, blockHeight: expect.any(Number), updates: [] });
    }
  });

  it('answers 404 LEDGER_TX_NOT_FOUND for an unknown transaction, and for a rejected execution (not on the ledger)', async () => {
    for (const id of [fakeId('at', 'never-sent'), fx.tx.rejected!.transactionId]) {
      const r = await srv.get(`/ledger/transactions/${id}`);
      expect(r.status).toBe(404);
      expect(r.body).toMatchObject({ errorCode: 'LEDGER_TX_NOT_FOUND', errorString: expect.stringContaining(id) });
    }
  });

  it('answers 400 LEDGER_BAD_REQUEST for something that is not a transaction id', async () => {
    const r = await srv.get('/ledger/transactions/not-a-tx');
    expect(r.status).toBe(400);
    expect(r.body.errorCode).toBe('LEDGER_BAD_REQUEST');
  });

  it('answers 502 when the node answers garbage or is unreachable, and verification keeps working', async () => {
    const id = fx.tx.officialSgx!.transactionId;
    const path = `/transaction/${id}`;
    fx.node.script(path, [reply.text(200, '<html>maintenance</html>')]);
    let r = await srv.get(`/ledger/transactions/${id}`);
    expect([r.status, r.body.errorCode]).toEqual([502, 'LEDGER_NODE_BAD_RESPONSE']);
    fx.node.script(path, [reply.json({ id: fakeId('at', 'another'), type: 'execute' })]);
    r = await srv.get(`/ledger/transactions/${id}`);
    expect([r.status, r.body.errorCode]).toEqual([502, 'LEDGER_NODE_BAD_TRANSACTION']);
    fx.node.script(path, [reply.json([1, 2, 3])]);
    r = await srv.get(`/ledger/transactions/${id}`);
    expect([r.status, r.body.errorCode]).toEqual([502, 'LEDGER_NODE_BAD_TRANSACTION']);
    // Gone: every attempt (first + 2 retries) hangs up.
    fx.node.script(path, [reply.hangUp(), reply.hangUp(), reply.hangUp()]);
    r = await srv.get(`/ledger/transactions/${id}`);
    expect([r.status, r.body.errorCode]).toEqual([502, 'LEDGER_NODE_UNREACHABLE']);
    // Rate limited on the first attempt only: answered after the Retry-After.
    fx.node.script(path, [reply.tooManyRequests('0')]);
    r = await srv.get(`/ledger/transactions/${id}`);
    expect(r.status).toBe(200);
    expect(r.body.updates[0].reportValid).toBe(true);
  });

  it('answers 405 with Allow on /ledger/status and /ledger/updates for another method', async () => {
    for (const p of ['/ledger/status', '/ledger/updates']) {
      const r = await fetch(`${srv.url}${p}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      expect(r.status).toBe(405);
      expect(r.headers.get('allow')).toBe('GET, HEAD');
      expect(((await r.json()) as { errorCode: string }).errorCode).toBe('HTTP_METHOD_NOT_ALLOWED');
    }
  });

  it('answers 503 LEDGER_WATCH_NOT_CONFIGURED on the store routes without a watcher; /info says so beforehand (ledgerWatcher: false)', async () => {
    for (const p of ['/ledger/status', '/ledger/updates']) {
      const r = await srv.get(p);
      expect(r.status).toBe(503);
      expect(r.body.errorCode).toBe('LEDGER_WATCH_NOT_CONFIGURED');
    }
    const info = await srv.get('/info');
    expect(info.body.ledgerWatcher).toBe(false);
    expect(info.body.ledgerPrograms.length).toBeGreaterThan(0);
  });

  it('answers 503 LEDGER_NODE_NOT_CONFIGURED without liveCheck.apiBaseUrl', async () => {
    const s = await startServer({ ...fx.env.config, verificationTime: fx.env.at });
    try {
      const r = await fetch(`${s.url}/ledger/transactions/${fx.tx.officialSgx!.transactionId}`);
      expect(r.status).toBe(503);
      expect(((await r.json()) as { errorCode: string }).errorCode).toBe('LEDGER_NODE_NOT_CONFIGURED');
    } finally {
      await s.close();
    }
  });

  it('describes the /ledger routes in OpenAPI with their error answers', async () => {
    const doc = (await srv.get('/docs/json')).body;
    const tx = doc.paths['/ledger/transactions/{id}'].get;
    expect(Object.keys(tx.responses)).toEqual(expect.arrayContaining(['200', '400', '404', '502', '503']));
    expect(tx.responses['200'].content['application/json'].schema.properties.updates.items.required).toContain('transitionId');
    expect(doc.paths['/ledger/status'].get.responses['200'].content['application/json'].schema.required).toEqual(['scannedHeight', 'tipHeight', 'lagBlocks', 'updates', 'unrecognized', 'mapping', 'watcher']);
    expect(doc.paths['/ledger/consistency'].get.parameters.map((p: any) => p.name)).toEqual(expect.arrayContaining(['status', 'limit', 'cursor']));
    expect(doc.paths['/ledger/consistency'].get.responses['200'].content['application/json'].schema.properties.keys.items.required).toEqual(expect.arrayContaining(['key', 'status']));
    const params = doc.paths['/ledger/updates'].get.parameters.map((p: any) => p.name);
    expect(params).toEqual(expect.arrayContaining(['valid', 'kind', 'fromHeight', 'toHeight', 'limit', 'cursor']));
  });
});
