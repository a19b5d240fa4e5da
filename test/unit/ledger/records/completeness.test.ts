/**
 * The completeness check (src/ledger/watch/completeness.ts) on the ledger-node simulator, whose
 * mapping listing has snarkOS's shape and JWT check: every key on chain is explained by a stored
 * write (an update's or a flagged unattested one's) or reported unexplained with its value, its
 * block window and what the rescan of that window found; a stored key the chain lacks (a deleted
 * write) is reported missing; without a JWT, with a refused one, or with the node down the answer
 * is not_checked with the reason, never complete.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { LedgerChain, t } from '../../../support/ledger-chain.js';
import { reply, startLedgerNode, type LedgerNode } from '../../../support/ledger-node.js';
import { makeUserData } from '../../../support/ledger-reports.js';
import { createBlockScanner } from '../../../../src/ledger/node/blocks/fetchBlocks.js';
import { createLedgerNodeClient } from '../../../../src/ledger/node/client.js';
import { firstHeightAtOrAfter, listMapping } from '../../../../src/ledger/node/mappingListing.js';
import { PROGRAMS } from '../../../../src/ledger/programs.js';
import { itemsOfTransaction, writesOfUpdate } from '../../../../src/ledger/records/transitions.js';
import type { MappingWrite } from '../../../../src/ledger/records/mappingWrites.js';
import { openUpdateStore, type UpdateStore } from '../../../../src/ledger/store/updateStore.js';
import { checkCompleteness, dataMappings } from '../../../../src/ledger/watch/completeness.js';
import { completenessStatus, explainKey, heldWrite, type CompletenessResult } from '../../../../src/ledger/records/completeness.js';
import type { MappingWriteRef } from '../../../../src/ledger/records/mappingVerdict.js';
import { LedgerWatcher } from '../../../../src/ledger/watch/watcher.js';
import { storedUpdates, verifyUpdates } from '../../../../src/ledger/watch/verifyUpdates.js';
import type { VerifyOutcome } from '../../../../src/verify/types.js';

const JWT = 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJhbGVvMXRlc3QifQ.c2lnbmF0dXJlLW9mLXRoZS1ub2Rl';
const VERU2 = 'veru_oracle_v2.aleo';
const SGX = 'sgx_attested_data';
/** Block h's timestamp in the simulator (ledger-chain.ts). */
const ts = (h: number) => 1725000000 + h * 3;
const LATEST = 400;

/** Every verification valid: the check reads the stored writes, not the verdicts. */
const valid = async (): Promise<VerifyOutcome> => ({ reportValid: true, reportType: 'typeA' }) as VerifyOutcome;

interface World {
  chain: LedgerChain;
  node: LedgerNode;
  store: UpdateStore;
  /** The writes of each transaction added, by name. */
  writes: Record<string, MappingWrite[]>;
  tx: Record<string, { transactionId: string; transitionIds: string[]; height: number }>;
}

/** The writes the chain's transactions at `height` make (as the scan computes them). */
function writesAt(chain: LedgerChain, height: number): { items: ReturnType<typeof itemsOfTransaction>; writes: MappingWrite[] } {
  const items = (chain.block(height).transactions as unknown[]).flatMap((tx) => itemsOfTransaction(tx, PROGRAMS.ids, height));
  const writes = items.flatMap((it) => (it.type === 'update' ? writesOfUpdate(it) : it.type === 'unattested' ? (it.record.mappingWrites ?? []) : []));
  return { items, writes };
}

/** What the chain's finalize does with the writes: latest only when newer, historic and unattested always. */
function apply(node: LedgerNode, held: Map<string, bigint>, writes: readonly MappingWrite[]): void {
  for (const w of writes) {
    const id = `${w.program}/${w.mapping}/${w.key}`;
    const tsNow = BigInt(w.attestationTimestamp!);
    if (w.role === 'latest' && held.has(id) && held.get(id)! >= tsNow) continue;
    held.set(id, tsNow);
    node.setMapping(w.program, w.mapping, w.key, `{ data: ${w.data}u128, attestation_timestamp: ${w.attestationTimestamp}u128 }`);
  }
}

/**
 * A chain with four oracle transactions of veru_oracle_v2:
 * - `seen` (h 110): an update the scan stored;
 * - `unseen` (h 130): an update on chain the store does not hold (a write the scan never saw);
 * - `overwrite` (h 140): the owner's unattested overwrite of `seen`'s latest key, stored (flagged);
 * - `deleted` (h 120): an update the store holds whose keys the chain lacks (a deleted write).
 */
async function world(o: { jwt?: string; prefix?: string } = {}): Promise<World> {
  const chain = new LedgerChain(0, LATEST);
  const node = await startLedgerNode({ ...(o.jwt !== undefined ? { jwt: o.jwt } : {}), ...(o.prefix ? { prefix: o.prefix } : {}) });
  chain.install(node);
  node.setHeight(LATEST);
  const report = makeUserData().text; // any text: the check reads the writes, computed from the userData
  const tx: World['tx'] = {};
  const add = (name: string, height: number, spec: ReturnType<typeof t.other>) => (tx[name] = { ...chain.add(height, [spec]), height });
  add('seen', 110, t.update(VERU2, 'set_data_sgx', makeUserData({ url: 'api.example.com/price?symbol=ALEOUSDC', attestationData: '1.5', timestamp: ts(110) - 20 }).text, report));
  add('deleted', 120, t.update(VERU2, 'set_data_sgx', makeUserData({ url: 'api.example.com/price?symbol=BTCUSDC', attestationData: '2.5', timestamp: ts(120) - 20 }).text, report));
  add('unseen', 130, t.update(VERU2, 'set_data_sgx', makeUserData({ url: 'api.example.com/price?symbol=ETHUSDC', attestationData: '3.5', timestamp: ts(130) - 20 }).text, report));
  const writes: World['writes'] = {};
  for (const [name, x] of Object.entries(tx)) writes[name] = writesAt(chain, x.height).writes;
  const seenLatest = writes.seen!.find((w) => w.role === 'latest')!;
  add('overwrite', 140, t.other(VERU2, 'update_historic_data', ['true', seenLatest.key, `{ data: 999u128, attestation_timestamp: ${seenLatest.attestationTimestamp}u128 }`]));
  writes.overwrite = writesAt(chain, 140).writes;
  // The chain's mapping: every write but the deleted one's, in block order.
  const held = new Map<string, bigint>();
  for (const name of ['seen', 'unseen', 'overwrite']) apply(node, held, writes[name]!);
  // The store: what a scan that missed `unseen` stored.
  const store = openUpdateStore(':memory:');
  for (const name of ['seen', 'deleted', 'overwrite']) {
    const h = tx[name]!.height;
    store.commit(storedUpdates(await verifyUpdates(writesAt(chain, h).items, valid)));
  }
  store.commit([], { start: 0, end: LATEST }, undefined, PROGRAMS.ids);
  return { chain, node, store, writes, tx };
}

const scannerOf = (node: LedgerNode) => createBlockScanner({ baseUrl: node.url, rps: 1000, timeoutMs: 10_000, retries: 0, backoffMs: 1 });
const listingOf = (node: LedgerNode, jwt: string) =>
  createLedgerNodeClient({ baseUrl: node.url, timeoutMs: 10_000, retries: 0, headers: { authorization: `Bearer ${jwt}` }, secrets: [jwt] });

describe('completeness check', () => {
  let w: World | undefined;
  beforeEach(() => {
    w = undefined;
  });
  afterEach(async () => {
    w?.store.close();
    await w?.node.close();
  });

  it("lists the mapping as snarkOS answers it: { data: [[key, value]…], height }, behind the node's JWT", async () => {
    w = await world({ jwt: JWT });
    const l = await listMapping(listingOf(w.node, JWT), VERU2, SGX);
    expect(l.height).toBe(LATEST);
    const keys = new Set(l.entries.map((e) => e.key));
    for (const x of [...w.writes.seen!, ...w.writes.unseen!]) expect(keys.has(x.key)).toBe(true);
    for (const x of w.writes.deleted!) expect(keys.has(x.key)).toBe(false);
    // The listing's only request carried the JWT; the block scanner's carry none.
    const listing = w.node.requests.filter((r) => r.path.includes('/mapping/'));
    expect(listing.map((r) => r.path)).toEqual([`/v1/mainnet/program/${VERU2}/mapping/${SGX}?all=true&metadata=true`]);
  });

  it('places a time in the chain by binary search over block headers', async () => {
    w = await world();
    const client = scannerOf(w.node).client;
    expect(await firstHeightAtOrAfter(client, ts(130), 0, LATEST)).toBe(130);
    expect(await firstHeightAtOrAfter(client, ts(130) - 1, 0, LATEST)).toBe(130);
    expect(await firstHeightAtOrAfter(client, ts(130) + 1, 0, LATEST)).toBe(131);
    expect(await firstHeightAtOrAfter(client, ts(LATEST) + 10, 0, LATEST)).toBe(LATEST + 1);
    expect(w.node.requests.filter((r) => r.path.includes('/header')).length).toBeLessThanOrEqual(4 * 10);
  });

  it('finds a write the scan never saw (window placed, rescan finds it), explains the unattested overwrite, reports the deleted write', async () => {
    w = await world({ jwt: JWT });
    const r = await checkCompleteness({
      listing: listingOf(w.node, JWT),
      scanner: scannerOf(w.node),
      store: w.store,
      programs: [VERU2],
      registry: PROGRAMS,
      windowSeconds: 120,
      slackSeconds: 60,
    });
    expect(r.status).toBe('incomplete');
    expect(r.mappings).toEqual([
      { program: VERU2, mapping: SGX, keys: 4, height: LATEST },
      { program: VERU2, mapping: 'nitro_attested_data', keys: 0, height: LATEST },
    ]);
    // seen: its historic key (its latest key holds the overwrite's value); overwrite: the latest key.
    expect(r.keys).toBe(4);
    expect(r.explained).toBe(2);
    expect(r.explainedByUnattested).toBe(1);
    // unseen: both its keys, with their value, their window and the write the rescan found.
    expect(r.unexplainedCount).toBe(2);
    expect(r.unexplained.map((k) => k.key).sort()).toEqual(w.writes.unseen!.map((x) => x.key).sort());
    for (const k of r.unexplained) {
      expect(k.attestationTimestamp).toBe(String(ts(130) - 20));
      expect(k.value).toMatch(/^\{ data: \d+u128, attestation_timestamp: \d+u128 \}$/);
      expect(k.window).toEqual({ fromHeight: 104, toHeight: 164, fromTimestamp: ts(130) - 80, toTimestamp: ts(130) + 100 });
      expect(k.rescan).toEqual({ status: 'found', found: [expect.objectContaining({ blockHeight: 130, transactionId: w.tx.unseen!.transactionId, program: VERU2, function: 'set_data_sgx' })] });
    }
    // deleted: both its keys are stored but absent on chain.
    expect(r.missingCount).toBe(2);
    expect(r.missing.map((k) => k.key).sort()).toEqual(w.writes.deleted!.map((x) => x.key).sort());
    expect(r.missing[0]!.lastWrite).toMatchObject({ transactionId: w.tx.deleted!.transactionId, blockHeight: 120 });
    expect(r.reason).toBe('2 keys on chain that no stored write explains; 2 stored keys missing on chain');
  });

  it('complete when every key is explained and none is missing (the unattested overwrite explains its key)', async () => {
    w = await world({ jwt: JWT });
    // The scan sees `unseen` after all, and the deleted write was never made.
    w.store.commit(storedUpdates(await verifyUpdates(writesAt(w.chain, 130).items, valid)));
    for (const x of w.writes.deleted!) w.node.setMapping(x.program, x.mapping, x.key, `{ data: ${x.data}u128, attestation_timestamp: ${x.attestationTimestamp}u128 }`);
    const r = await checkCompleteness({ listing: listingOf(w.node, JWT), scanner: scannerOf(w.node), store: w.store, programs: [VERU2], registry: PROGRAMS });
    expect(r).toMatchObject({ status: 'complete', keys: 6, explained: 6, explainedByUnattested: 1, unexplainedCount: 0, missingCount: 0, unexplained: [], missing: [] });
    // Nothing unexplained: no block was read again.
    expect(w.node.requests.filter((r) => r.path.includes('/blocks') || r.path.includes('/header'))).toEqual([]);
  });

  it('not checked, with the reason, when no JWT is configured, the node refuses it (v1 and v2), or the node is down', async () => {
    w = await world({ jwt: JWT });
    const base = { scanner: scannerOf(w.node), store: w.store, programs: [VERU2], registry: PROGRAMS };
    const none = await checkCompleteness(base);
    expect(none).toMatchObject({ status: 'not_checked', errorCode: 'LEDGER_LISTING_NOT_CONFIGURED', keys: 0 });
    expect(none.reason).toMatch(/LEDGER_NODE_JWT is not set/);

    const wrong = await checkCompleteness({ ...base, listing: listingOf(w.node, 'not-the-node-jwt') });
    expect(wrong).toMatchObject({ status: 'not_checked', errorCode: 'LEDGER_NODE_LISTING_REFUSED' });
    expect(wrong.reason).toMatch(/Failed to convert error \(HTTP 401\)/);
    expect(wrong.reason).not.toContain('not-the-node-jwt');

    const v2 = await startLedgerNode({ prefix: '/v2/mainnet', jwt: JWT });
    try {
      const r = await checkCompleteness({ ...base, listing: listingOf(v2, 'wrong') });
      expect(r).toMatchObject({ status: 'not_checked', errorCode: 'LEDGER_NODE_LISTING_REFUSED' });
      expect(r.reason).toMatch(/status 401/);
    } finally {
      await v2.close();
    }

    const url = w.node.url;
    await w.node.close();
    const down = await checkCompleteness({ ...base, listing: createLedgerNodeClient({ baseUrl: url, timeoutMs: 2000, retries: 0, headers: { authorization: `Bearer ${JWT}` } }) });
    expect(down).toMatchObject({ status: 'not_checked', errorCode: 'LEDGER_NODE_UNREACHABLE' });
    w.node = await startLedgerNode(); // closed again by afterEach
  });

  it('a node that echoes the refused token: the reason shows what it said, the token cut out', async () => {
    w = await world({ jwt: JWT });
    const echoed = 'aaaa.bbbbbbbb.cccccccc';
    w.node.script(`/program/${VERU2}/mapping/${SGX}`, [reply.text(500, `Invalid token ${echoed} (HTTP 401)`)]);
    const r = await checkCompleteness({ listing: listingOf(w.node, echoed), scanner: scannerOf(w.node), store: w.store, programs: [VERU2], registry: PROGRAMS });
    expect(r).toMatchObject({ status: 'not_checked', errorCode: 'LEDGER_NODE_LISTING_REFUSED' });
    expect(r.reason).toContain('Invalid token [redacted] (HTTP 401)');
    expect(JSON.stringify(r)).not.toContain(echoed);
  });

  it('the watcher checks once the scan reaches the tip, again at the next poll when the node could not answer, then once completeness.intervalMs passed', async () => {
    w = await world({ jwt: JWT });
    const node = w.node;
    const store = openUpdateStore(':memory:');
    // The listing's first answer: the connection dropped (the node is down for it).
    node.script(`/program/${VERU2}/mapping/${SGX}`, [reply.hangUp()]);
    const results: CompletenessResult[] = [];
    let onResult: () => void = () => undefined;
    const resultNumber = (n: number) => new Promise<void>((r) => (onResult = () => results.length === n && r()));
    const twice = resultNumber(2);
    let clock = Date.parse('2026-11-28T08:00:00Z');
    const watcher = new LedgerWatcher({
      scanner: scannerOf(node),
      store,
      programs: [VERU2],
      registry: PROGRAMS,
      verify: valid,
      fromHeight: 0,
      pollIntervalMs: 10,
      batchBlocks: 50,
      concurrency: 2,
      log: { info: () => undefined, warn: () => undefined },
      completeness: { listing: listingOf(node, JWT), windowSeconds: 120, slackSeconds: 60, intervalMs: 60_000, now: () => clock },
      onCompleteness: (r) => {
        results.push(r);
        onResult();
      },
    });
    watcher.start();
    try {
      await twice;
      expect(results[0]).toMatchObject({ status: 'not_checked', errorCode: 'LEDGER_NODE_UNREACHABLE', scannedHeight: LATEST });
      // The whole chain scanned: every key explained; only the deleted write is missing.
      expect(results[1]).toMatchObject({ status: 'incomplete', keys: 4, explained: 4, explainedByUnattested: 1, unexplainedCount: 0, missingCount: 2 });
      expect(store.completeness()).toEqual(results[1]);
      // Three polls more within the interval (the clock still): no other check.
      const polls = node.requestsTo('/block/height/latest').length;
      await new Promise<void>((resolve) => {
        const off = node.onRequest(() => {
          if (node.requestsTo('/block/height/latest').length >= polls + 3) {
            off();
            resolve();
          }
        });
      });
      expect(results).toHaveLength(2);
      // The interval passed: the next poll at the tip checks again, the store keeping that result.
      const third = resultNumber(3);
      clock += 60_000;
      await third;
      expect(results[2]).toMatchObject({ status: 'incomplete', missingCount: 2, checkedAt: new Date(clock).toISOString() });
      expect(store.completeness()).toEqual(results[2]);
    } finally {
      await watcher.stop();
      store.close();
    }
  });

  it('a key of a program whose key scheme is not established, with no stored write of it, is explained by a write of the same value', () => {
    const write: MappingWriteRef = { transactionId: 'at1x', transitionId: 'au1x', blockHeight: 5, program: 'veru_oracle_interface_v3.aleo', function: 'set_single_data_sgx', outcome: 'valid', role: 'latest', data: '7', attestationTimestamp: '9' };
    expect(explainKey({ data: '7', attestationTimestamp: '9' }, [], () => [write])).toEqual({ by: write, byValue: true });
    expect(explainKey({ data: '7', attestationTimestamp: '9' }, [])).toBeUndefined();
    expect(explainKey({ data: '7', attestationTimestamp: '10' }, [write], () => [write])).toBeUndefined();
    expect(explainKey({ data: '7', attestationTimestamp: '9' }, [write])).toEqual({ by: write });
    // A key with stored writes is judged by them alone, even when another key's write has the value.
    const other = { ...write, transitionId: 'au1y', data: '8' };
    expect(explainKey({ data: '7', attestationTimestamp: '9' }, [other], () => [write])).toBeUndefined();
  });

  it('a key is explained only by the write the chain holds last: the last in block order, a request-hash write only when newer', () => {
    const w = (n: number, role: MappingWriteRef['role'], data: string, ts: string): MappingWriteRef => ({ transactionId: `at1${n}`, transitionId: `au1${n}`, blockHeight: 10 + n, program: VERU2, function: 'set_data_sgx', outcome: 'valid', role, data, attestationTimestamp: ts });
    const first = w(1, 'historic', '1', '100');
    const overwrite = w(2, 'unattested', '2', '100');
    // A timestamped key overwritten: the earlier value no longer explains it (a stale listing).
    expect(heldWrite([first, overwrite])).toBe(overwrite);
    expect(explainKey({ data: '1', attestationTimestamp: '100' }, [first, overwrite])).toBeUndefined();
    expect(explainKey({ data: '2', attestationTimestamp: '100' }, [first, overwrite])).toEqual({ by: overwrite });
    // A request-hash key: a later write of an older or equal attestation leaves the value there.
    const newer = w(3, 'latest', '3', '200');
    const older = w(4, 'latest', '4', '150');
    const same = w(5, 'latest', '5', '200');
    expect(heldWrite([newer, older, same])).toBe(newer);
    expect(explainKey({ data: '3', attestationTimestamp: '200' }, [newer, older, same])).toEqual({ by: newer });
    expect(explainKey({ data: '4', attestationTimestamp: '150' }, [newer, older, same])).toBeUndefined();
    const newest = w(6, 'latest', '6', '300');
    expect(explainKey({ data: '3', attestationTimestamp: '200' }, [newer, older, newest])).toBeUndefined();
    expect(heldWrite([])).toBeUndefined();
  });

  it('never complete when no listed mapping exists on the node (every one "does not exist"): not checked, with why', () => {
    const gone = [
      { program: VERU2, mapping: SGX, keys: 0, uninitialized: true as const },
      { program: VERU2, mapping: 'nitro_attested_data', keys: 0, uninitialized: true as const },
    ];
    expect(completenessStatus({ unexplained: [], missing: [], mappings: gone })).toEqual({
      status: 'not_checked',
      errorCode: 'LEDGER_NODE_NO_ORACLE_MAPPING',
      reason: expect.stringMatching(/^none of the 2 oracle data mappings of the followed programs exists on the node .*nothing is proven$/),
    });
    expect(completenessStatus({ unexplained: [], missing: [], mappings: [] }).status).toBe('not_checked');
    // One existing mapping, even empty, is a listing: complete.
    expect(completenessStatus({ unexplained: [], missing: [], mappings: [...gone, { program: 'official_oracle.aleo', mapping: SGX, keys: 0 }] })).toEqual({ status: 'complete' });
  });

  it('the store keeps the last result; a version 5 store gets the table on open, with no result yet', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'completeness-store-'));
    try {
      const file = join(dir, 'v5.db');
      const s = openUpdateStore(file);
      s.close();
      const db = new Database(file);
      db.exec('DROP TABLE completeness; DROP INDEX mapping_writes_value;');
      db.pragma('user_version = 5');
      db.close();
      const again = openUpdateStore(file);
      expect(again.completeness()).toBeUndefined();
      const r: CompletenessResult = { status: 'complete', checkedAt: '2026-11-28T08:00:00.000Z', scannedHeight: 9, source: 'snarkos', mappings: [{ program: VERU2, mapping: SGX, keys: 0, height: 9 }], keys: 0, explained: 0, explainedByUnattested: 0, explainedByValue: 0, afterScan: 0, unexplainedCount: 0, missingCount: 0, unexplained: [], missing: [] };
      again.saveCompleteness(r);
      again.saveCompleteness({ ...r, status: 'not_checked', reason: 'node down' });
      expect(again.completeness()).toEqual({ ...r, status: 'not_checked', reason: 'node down' });
      again.close();
      const raw = new Database(file, { readonly: true });
      expect(raw.pragma('user_version', { simple: true })).toBe(6);
      raw.close();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('lists the data mappings the followed programs store into, each once', () => {
    const m = dataMappings(['veru_oracle_interface_v5.aleo', 'veru_oracle_data_v5.aleo', VERU2], PROGRAMS);
    expect(m).toEqual([
      { program: 'veru_oracle_data_v5.aleo', mapping: SGX },
      { program: VERU2, mapping: SGX },
      { program: VERU2, mapping: 'nitro_attested_data' },
    ]);
    expect(dataMappings(['veru_oracle_interface_v3.aleo'], PROGRAMS)[0]!.uncertain).toMatch(/not established/);
  });
});
