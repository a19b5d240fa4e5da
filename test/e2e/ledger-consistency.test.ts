/**
 * The mapping cross-check (issue 24, item 8) in the server against the ledger-node simulator: the
 * watcher scans the chain of every era to the tip, then reads the value of every key of the oracle
 * data mapping the stored transitions wrote. While the node cannot give the values, every key read
 * is "not checked" (never consistent). Once the simulator serves the mapping as the chain holds it
 * (every write applied in ledger order: a request-hash key only by a newer attestation, a
 * timestamped key always, an owner overwrite always), the keys whose value a valid update set are
 * consistent, and the one an owner's update_historic_data overwrote after a valid update is
 * reported inconsistent with the expected update and the overwrite that set it; so is the value an
 * invalid update left, and the key only an overwrite wrote. Metric, /ledger/status and
 * /ledger/consistency say the same.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mintedUpdates, startLedgerFixture, VERU2, type LedgerFixture } from '../support/ledger-fixture.js';
import { startLedgerServer, type LedgerServer, type LogLine } from '../support/ledger-server.js';
import { t } from '../support/ledger-chain.js';
import { parseChunkedStruct } from '../../src/aleo/struct.js';
import { hashReportDataU128 } from '../../src/hash/index.js';
import { readVectorJson } from '../support/paths.js';

let dir: string;
let fx: LedgerFixture;
const LATEST = 760;
/** The request hash of an 8-chunk update (official_oracle…veru_oracle_v2): Poseidon8 of the userData with c0.f2 and c0.f3 zeroed. */
const requestHash8 = (userData: string): string => {
  const b = parseChunkedStruct(userData, 8, 'userData').slice();
  b.fill(0, 32, 64);
  return `${hashReportDataU128(b)}u128`;
};

let newer: { transactionId: string; transitionIds: string[] };
let overwrite: { transactionId: string; transitionIds: string[] };
let keyA: string;
const OVERWRITTEN = { data: '999', attestationTimestamp: '1725009000' };

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-consistency-'));
  fx = await startLedgerFixture(dir, { first: 700, latest: LATEST });
  // A valid update of veru_oracle_v2 newer than the fixture's, then the owner overwrites its request-hash key.
  const a = mintedUpdates(fx.env).sgx('8.50000001', { timestamp: 1725009000 });
  keyA = requestHash8(a.userData);
  newer = fx.chain.add(730, [t.update(VERU2, 'set_data_sgx', a.userData, a.report)]);
  overwrite = fx.chain.add(735, [t.other(VERU2, 'update_historic_data', ['true', keyA, `{ data: ${OVERWRITTEN.data}u128, attestation_timestamp: ${OVERWRITTEN.attestationTimestamp}u128 }`])]);
}, 300_000);

afterAll(async () => {
  await fx?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

interface Write {
  program: string;
  mapping: string;
  key: string;
  role: 'latest' | 'historic' | 'unattested';
  data?: string;
  attestationTimestamp?: string;
}
interface Rec {
  transactionId: string;
  blockHeight: number;
  outcome: string;
  mappingWrites?: Write[];
}

/** The chain's mapping after these records' writes (ledger order), with the record whose write each key holds. */
function chainState(records: readonly Rec[]): Map<string, { w: Write; by: Rec }> {
  const state = new Map<string, { w: Write; by: Rec }>();
  for (const r of [...records].sort((x, y) => x.blockHeight - y.blockHeight)) {
    for (const w of r.mappingWrites ?? []) {
      const id = `${w.program}|${w.mapping}|${w.key}`;
      const cur = state.get(id);
      if (w.role === 'latest' && cur && BigInt(w.attestationTimestamp!) <= BigInt(cur.w.attestationTimestamp!)) continue;
      state.set(id, { w, by: r });
    }
  }
  return state;
}

describe('mapping cross-check', { timeout: 300_000 }, () => {
  let srv: LedgerServer;
  afterAll(async () => srv?.close());

  const after = (mark: number, pred: (l: LogLine) => boolean) => srv.waitFor((l) => srv.lines.indexOf(l) >= mark && pred(l));
  const isRound = (l: LogLine) => l.msg === 'ledger mapping checked' || l.msg.startsWith('ledger mapping check:');

  it('reports the overwritten key inconsistent, the keys valid updates set consistent, and nothing consistent while the node cannot answer', async () => {
    fx.node.reset();
    srv = await startLedgerServer(fx, dir, {
      watch: { enabled: true, fromHeight: 700, pollIntervalMs: 100, database: join(dir, 'watch.db'), batchBlocks: 50, rps: 1000, mappingKeysPerPoll: 500 },
      liveCheck: { skip: true, apiBaseUrl: fx.node.url, timeoutMs: 2000 },
    });
    await srv.waitFor((l) => l.msg === 'ledger range stored' && l.obj.scannedHeight === LATEST);

    // The node serves no mapping of these programs yet (it answers 500): the keys read are not checked, with the node's error.
    const failed = await srv.waitFor((l) => l.msg.startsWith('ledger mapping check:'));
    expect(failed.obj.code).toBe('LEDGER_NODE_HTTP_ERROR');
    const before = await srv.get('/ledger/status');
    expect(before.body.mapping.consistent).toBe(0);
    expect(before.body.mapping.inconsistent).toBe(0);
    const unread = await srv.get('/ledger/consistency?status=not_checked');
    expect(unread.body.keys.length).toBeGreaterThan(0);
    for (const k of unread.body.keys) expect(k).toMatchObject({ status: 'not_checked', errorCode: 'LEDGER_NODE_HTTP_ERROR' });

    // What the stored records say each transition wrote.
    const records = (await srv.get('/ledger/updates?limit=500')).body.updates as Rec[];
    const recA = records.find((r) => r.transactionId === newer.transactionId)!;
    expect(recA.outcome).toBe('valid');
    // The request-hash key of the 8-chunk update is Poseidon8 of its userData with c0.f2, c0.f3 zeroed.
    expect(recA.mappingWrites!.filter((w) => w.role === 'latest')).toEqual([
      { program: VERU2, mapping: 'sgx_attested_data', key: keyA, role: 'latest', data: expect.stringMatching(/^[0-9]+$/), attestationTimestamp: '1725009000' },
    ]);
    // The era-4 updates write their data program's keys: per request, the notarizer's requestHash.
    const multi = readVectorJson<any>('aleo/venture23/multi-token-2026-01-14.response.json');
    const era4 = records.find((r) => r.transactionId === fx.tx.ifaceSingle!.transactionId)!;
    const vectorHashes: string[] = multi.attestationResults.map((q: any) => q.requestHash);
    expect(vectorHashes).toHaveLength(3);
    const era4Latest = era4.mappingWrites!.filter((w) => w.role === 'latest');
    expect(era4Latest.every((w) => w.program === 'veru_oracle_data_v5.aleo' && w.mapping === 'sgx_attested_data')).toBe(true);
    expect(era4Latest.length).toBe(1); // set_single_data_sgx stores c0 only
    expect(era4Latest[0]!.key).toBe(vectorHashes[0]);
    const five = records.find((r) => r.transactionId === fx.tx.ifaceFive!.transactionId)!;
    // set_five_data_sgx stores c0..c4; c3 and c4 are empty (f1 = 0): three keys.
    expect(five.mappingWrites!.filter((w) => w.role === 'latest').map((w) => w.key)).toEqual(vectorHashes);

    // The simulator now holds the mapping as the chain does after these writes.
    const state = chainState(records);
    const mark = srv.lines.length;
    for (const { w } of state.values()) fx.node.setMapping(w.program, w.mapping, w.key, w.data === undefined ? null : `{ data: ${w.data}u128, attestation_timestamp: ${w.attestationTimestamp}u128 }`);
    // The round in progress may have read some keys before; the next one starts after the mapping is served.
    await after(mark, isRound);
    const mark2 = srv.lines.length;
    const round = await after(mark2, isRound);
    expect(round.msg).toBe('ledger mapping checked');
    expect(round.obj.checked).toBe(state.size);

    const heldValid = [...state.values()].filter(({ w, by }) => w.role !== 'unattested' && by.outcome === 'valid').length;
    const status = await srv.get('/ledger/status');
    expect(status.body.mapping).toEqual({ keys: state.size, consistent: heldValid, inconsistent: state.size - heldValid, notChecked: 0 });

    const listed = (await srv.get('/ledger/consistency')).body;
    expect(listed.counts).toEqual(status.body.mapping);
    const byKey = new Map<string, any>(listed.keys.map((k: any) => [`${k.program}|${k.mapping}|${k.key}`, k]));
    // The key a valid update set and the owner overwrote: inconsistent, with the update it must hold and the overwrite that set it.
    expect(byKey.get(`${VERU2}|sgx_attested_data|${keyA}`)).toMatchObject({
      role: 'latest',
      status: 'inconsistent',
      value: OVERWRITTEN,
      expected: { transactionId: newer.transactionId, program: VERU2, function: 'set_data_sgx', outcome: 'valid', attestationTimestamp: '1725009000' },
      setBy: { transactionId: overwrite.transactionId, function: 'update_historic_data', outcome: 'unattested' },
      lastWrite: { transactionId: overwrite.transactionId },
      checkedHeight: LATEST,
    });
    // Only an overwrite wrote 77u128 (its attested write predates the scan): it holds unattested data.
    expect(byKey.get(`${VERU2}|sgx_attested_data|77u128`)).toMatchObject({ role: 'unattested', status: 'inconsistent', setBy: { transactionId: fx.tx.overwrite!.transactionId } });
    // Every inconsistent key holds what no valid attested update set.
    for (const k of listed.keys) {
      const held = state.get(`${k.program}|${k.mapping}|${k.key}`)!;
      expect(held.w.role === 'unattested' || held.by.outcome !== 'valid', k.key).toBe(true);
      expect(k.setBy.transactionId).toBe(held.by.transactionId);
    }
    // The era-4 keys are consistent.
    const consistent = (await srv.get('/ledger/consistency?status=consistent&limit=500')).body.keys as any[];
    expect(consistent.length).toBe(heldValid);
    for (const w of era4Latest) expect(consistent.some((k) => k.key === w.key && k.program === w.program)).toBe(true);

    const metrics = (await srv.get('/metrics')).body as string;
    expect(metrics).toMatch(new RegExp(`^verifier_ledger_mapping_keys\\{status="inconsistent"\\} ${state.size - heldValid}$`, 'm'));
    expect(metrics).toMatch(new RegExp(`^verifier_ledger_mapping_keys\\{status="consistent"\\} ${heldValid}$`, 'm'));
  });

  it('refuses bad parameters', async () => {
    for (const [q, code] of [
      ['status=maybe', 'LEDGER_BAD_REQUEST'],
      ['limit=0', 'LEDGER_BAD_REQUEST'],
      ['colour=red', 'LEDGER_BAD_REQUEST'],
      ['cursor=bm90LW91cnM', 'LEDGER_BAD_CURSOR'],
    ]) {
      const r = await srv.get(`/ledger/consistency?${q}`);
      expect([q, r.status, r.body.errorCode]).toEqual([q, 400, code]);
    }
  });
});
