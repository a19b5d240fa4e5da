/**
 * The watcher with watch.proveInclusion: every stored update proven committed in its block
 * (docs/inclusion.md), over real HTTP servers serving a chain whose blocks commit to what they hold
 * (test/support/sealed-chain.ts). An honest node: each update proven, its hash confirmed by the
 * node or by a second API (watch.confirmWith), the proof in GET /ledger/updates. A node that lies
 * about an update's values: stored invalid with the link that broke. A block the node serves
 * without its header: stored unverifiable, retried, and proven once the node serves it whole.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startLedgerNode, type LedgerNode } from '../support/ledger-node.js';
import { LedgerChain, t } from '../support/ledger-chain.js';
import { startMintedCliEnv, type MintedCliEnv } from '../support/minted-cli.js';
import { makeUserData, reportText } from '../support/ledger-reports.js';
import { sealChain, type SealedChain } from '../support/sealed-chain.js';
import { startLedgerServer, type LedgerServer } from '../support/ledger-server.js';
import type { LedgerFixture } from '../support/ledger-fixture.js';

const PROGRAM = 'official_oracle.aleo';
const FIRST = 500;
const LATEST = 520;
let dir: string;
let env: MintedCliEnv;
let node: LedgerNode;
let second: LedgerNode;
let sealed: SealedChain;
let pairB: { userData: string; report: string };
let srv: LedgerServer | undefined;
let runs = 0;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'watch-inclusion-'));
  env = await startMintedCliEnv(dir, new Uint8Array(32).fill(0x5a));
  const chain = new LedgerChain(FIRST, LATEST);
  const udA = makeUserData({ attestationData: '100.00000001' });
  chain.add(503, [t.setDataNitro(PROGRAM, udA.text, reportText(env.typeB.mintDocument({ userData: udA.hash })))]);
  const udB = makeUserData({ attestationData: '200.00000002' });
  pairB = { userData: udB.text, report: reportText(env.typeB.mintDocument({ userData: udB.hash })) };
  chain.add(507, [t.setDataNitro(PROGRAM, pairB.userData, pairB.report)]);
  chain.add(511, [t.transfer()]);
  sealed = sealChain(chain);
  node = await startLedgerNode();
  sealed.install(node);
  second = await startLedgerNode();
  sealChain(chain).install(second);
}, 120_000);

afterEach(async () => {
  await srv?.close();
  srv = undefined;
  for (let h = FIRST; h <= LATEST; h++) sealed.lie(h, () => undefined); // every block served as sealed again
});

afterAll(async () => {
  await Promise.all([node?.close(), second?.close(), env?.pccs.close()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

/** A server whose watcher follows `node` with proofs, on a fresh store; resolves once it stored the whole chain. */
async function watch(extra: Record<string, unknown> = {}): Promise<LedgerServer> {
  const fx = { env, node } as unknown as LedgerFixture;
  srv = await startLedgerServer(fx, dir, {
    watch: {
      enabled: true,
      fromHeight: FIRST,
      pollIntervalMs: 100,
      database: join(dir, `watch-${runs++}.db`),
      blockSource: 'blocks',
      rps: 500,
      retryIntervalMs: 100,
      mappingKeysPerPoll: 0,
      completeness: false,
      proveInclusion: true,
      ...extra,
    },
  });
  await srv.waitFor((l) => l.msg === 'ledger range stored' && l.obj.scannedHeight === LATEST);
  return srv;
}

async function updates(s: LedgerServer): Promise<any[]> {
  const r = await s.get('/ledger/updates?limit=100');
  expect(r.status).toBe(200);
  return r.body.updates;
}
const at = (list: any[], h: number) => list.find((u) => u.blockHeight === h);

describe('ledger watcher, watch.proveInclusion', { timeout: 180_000 }, () => {
  it('an honest node: both updates stored valid and proven, the hash confirmed by the node itself', async () => {
    const s = await watch();
    const list = await updates(s);
    expect(list.map((u) => u.blockHeight)).toEqual([507, 503]);
    for (const u of list) {
      expect(u).toMatchObject({ outcome: 'valid', reportValid: true, inclusion: { status: 'proven', blockHash: sealed.block(u.blockHeight).block_hash, confirmedBy: `${node.url} (the node read)` } });
    }
    // Each block holding an update was read again whole, once.
    expect(node.requestsTo('/block/503')).toHaveLength(1);
    expect(node.requestsTo('/block/507')).toHaveLength(1);
  });

  it('watch.confirmWith: the block hashes confirmed by the second API, which is asked for exactly those blocks', async () => {
    second.reset();
    const s = await watch({ confirmWith: second.url });
    const list = await updates(s);
    expect(list.map((u) => u.inclusion)).toEqual([
      { status: 'proven', blockHash: sealed.block(507).block_hash, confirmedBy: second.url },
      { status: 'proven', blockHash: sealed.block(503).block_hash, confirmedBy: second.url },
    ]);
    expect(second.requestsTo('/block/503')).toHaveLength(1);
    expect(second.requestsTo('/block/507')).toHaveLength(1);
    expect(second.requests).toHaveLength(2);
  });

  it("a node that swaps an update's values for another genuine pair, ids kept: stored invalid, INCLUSION_INPUT_ID_MISMATCH", async () => {
    sealed.lie(503, (b) => {
      const tr = b.transactions[0].transaction.execution.transitions[0];
      tr.inputs[0].value = pairB.userData;
      tr.inputs[1].value = pairB.report;
    });
    const s = await watch();
    const list = await updates(s);
    // Without the proof the swapped pair verifies (a genuine report bound to its userData).
    expect(at(list, 503)).toMatchObject({
      outcome: 'invalid',
      reportValid: false,
      errorCode: 'INCLUSION_INPUT_ID_MISMATCH',
      decodedData: { attestationData: '200.00000002' },
      inclusion: { status: 'failed', link: 'input id', code: 'INCLUSION_INPUT_ID_MISMATCH' },
    });
    expect(at(list, 507)).toMatchObject({ outcome: 'valid', inclusion: { status: 'proven' } });
    expect((await s.get('/ledger/status')).body.updates).toMatchObject({ valid: 1, invalid: 1, unverifiable: 0 });
  });

  it('a block served without its header: stored unverifiable (INCLUSION_HEADER_MISSING), re-verified and proven once served whole, stored once', async () => {
    sealed.lie(507, (b) => delete b.header.transactions_root);
    const s = await watch();
    expect(at(await updates(s), 507)).toMatchObject({ outcome: 'unverifiable', errorCode: 'INCLUSION_HEADER_MISSING', inclusion: { status: 'failed', code: 'INCLUSION_HEADER_MISSING' } });
    // Retried while the node still serves it so: still unverifiable.
    await s.waitFor((l) => l.msg === 'ledger update re-verified' && l.obj.blockHeight === 507 && l.obj.outcome === 'unverifiable');
    sealed.lie(507, () => undefined);
    await s.waitFor((l) => l.msg === 'ledger update re-verified' && l.obj.blockHeight === 507 && l.obj.outcome === 'valid');
    const list = await updates(s);
    expect(list).toHaveLength(2);
    expect(at(list, 507)).toMatchObject({ outcome: 'valid', inclusion: { status: 'proven', blockHash: sealed.block(507).block_hash } });
    expect(at(list, 507).errorCode).toBeUndefined();
    expect((await s.get('/ledger/status')).body.updates).toMatchObject({ valid: 2, invalid: 0, unverifiable: 0 });
  });
});
