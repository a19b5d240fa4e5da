/**
 * The two block sources on the ledger-node simulator (test/support/ledger-chain.ts): the
 * `/blocks/transactions` route of newer snarkOS and `/blocks` read by the structural reader give
 * the same records for the same range (updates of every era, calls through an interface program,
 * rejected and aborted transactions, writes of other programs); the source is detected once (404, 405 and
 * their v1 500 text mean "not served"; a 5xx is an error, asked again); each lie of a node is a
 * named error with the height; reverify (resume across sources included) and the watcher both go
 * through it.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { LedgerChain, t } from '../support/ledger-chain.js';
import { reply, startLedgerNode, type LedgerNode } from '../support/ledger-node.js';
import { realResponses } from '../support/era-vectors.js';
import { readVectorJson } from '../support/paths.js';
import { createBlockScanner, type BlockSourceChoice } from '../../src/ledger/node/blocks/fetchBlocks.js';
import { itemsOfTransaction } from '../../src/ledger/records/transitions.js';
import { reverifyCommand } from '../../src/cli/reverify.js';
import { LedgerWatcher } from '../../src/ledger/watch/watcher.js';
import { openUpdateStore } from '../../src/ledger/store/updateStore.js';
import type { VerifyOutcome } from '../../src/verify/types.js';

const P = 'official_oracle.aleo';
const FIRST = 1000;
const LATEST = 1419; // 420 blocks: 3 calls of 160 on one route, 9 of 50 on the other
const examples = readVectorJson<any>('aleo/e2e/readme-decodeReport-examples.json');
let dir: string;
let chain: LedgerChain;
/** Serves /blocks/transactions under /v1/mainnet (v1 errors). */
let withRoute: LedgerNode;
/** Serves it under /v2/mainnet (statuses kept). */
let v2: LedgerNode;
/** An older node: /blocks only. */
let old: LedgerNode;
/** Transactions that wrote nothing: a rejected execution and an aborted one. */
let notWritten: string[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'block-sources-'));
  chain = new LedgerChain(FIRST, LATEST);
  let h = FIRST + 3;
  for (const r of realResponses()) {
    chain.add(h, [t.setDataSgx(P, r.userData, 'report')]);
    chain.add(h + 1, [t.setDataNitro(P, r.userData, 'report')]);
    h += 37; // spread over the range, across call boundaries of both routes
  }
  const rejected = chain.add(1159, [t.setDataSgx(P, examples.sgx.request.userData, examples.sgx.request.report)], { rejected: true });
  const aborted = chain.add(1162, [t.setDataNitro(P, examples.nitro.request.userData, examples.nitro.request.report)], { aborted: true });
  notWritten = [rejected.transactionId, aborted.transactionId];
  chain.add(1160, [t.other('veru_oracle_interface_v5.aleo', 'set_single_data_sgx', ['1u8']), t.setDataNitro(P, examples.nitro.request.userData, examples.nitro.request.report)]);
  chain.add(1161, [t.transfer(), t.other('other_oracle.aleo', 'set_data_sgx', [examples.sgx.request.userData, 'r']), t.setKey(P)]);
  chain.add(1319, [t.setUniqueId(P, '{ a: 1u8 }'), t.setDataSgx(P, 'ud-at-boundary', 'r')]);
  chain.add(LATEST, [t.setDataNitro(P, 'ud-last', 'r')]);
  withRoute = await startLedgerNode();
  v2 = await startLedgerNode({ prefix: '/v2/mainnet' });
  old = await startLedgerNode();
  chain.install(withRoute, { transactionsRoute: true });
  chain.install(v2, { transactionsRoute: true });
  chain.install(old);
});

afterAll(async () => {
  await Promise.all([withRoute?.close(), v2?.close(), old?.close()]);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const scanner = (node: LedgerNode, blockSource?: BlockSourceChoice) =>
  createBlockScanner({ baseUrl: node.url, rps: 0, timeoutMs: 30_000, retries: 2, backoffMs: 0, ...(blockSource ? { blockSource } : {}) });
const failure = async (p: Promise<unknown>): Promise<{ code: string; message: string }> => {
  try {
    await p;
  } catch (e) {
    return { code: (e as { code: string }).code, message: (e as Error).message };
  }
  throw new Error('expected a failure');
};

describe('block source', () => {
  it('reads the same blocks, transactions and ledger items from /blocks/transactions as from /blocks', async () => {
    const viaTx = scanner(withRoute);
    const viaBlocks = scanner(old);
    expect(await viaTx.blockSource()).toBe('transactions');
    expect(await viaBlocks.blockSource()).toBe('blocks');
    expect(await scanner(v2).blockSource()).toBe('transactions');
    withRoute.reset();
    const a = await viaTx.fetchRange(FIRST, LATEST + 1);
    const b = await viaBlocks.fetchRange(FIRST, LATEST + 1);
    expect(a.map((x) => x.height)).toEqual(b.map((x) => x.height));
    expect(a.map((x) => x.transactions)).toEqual(b.map((x) => x.transactions));
    // /blocks carries each block's timestamp, the transactions route none.
    expect(b.every((x, i) => x.timestamp === 1725000000 + (FIRST + i) * 3)).toBe(true);
    const items = (blocks: typeof a) => blocks.flatMap((x) => x.transactions.flatMap((tx) => itemsOfTransaction(tx, [P], x.height)));
    expect(items(a)).toEqual(items(b));
    expect(items(a).length).toBeGreaterThan(20);
    // Neither a rejected execution nor an aborted transaction wrote anything: no item on either route.
    const ids = (blocks: typeof a) => new Set(items(blocks).flatMap((it) => (it.type === 'update' ? [it.base.transactionId] : [])));
    for (const id of notWritten) {
      expect(ids(a).has(id)).toBe(false);
      expect(ids(b).has(id)).toBe(false);
    }
    expect(JSON.stringify(b.find((x) => x.height === 1162)?.transactions)).not.toContain(notWritten[1]);
    // 3 calls of ≤ 160 blocks on the transactions route, no /blocks call.
    const calls = withRoute.requestsTo('/blocks/transactions').map((r) => new URL(r.path, 'http://x').searchParams);
    expect(calls.map((q) => [q.get('start'), q.get('end')])).toEqual([['1000', '1160'], ['1160', '1320'], ['1320', '1420']]);
    expect(withRoute.requestsTo('/blocks')).toEqual([]);
  });

  it.each([
    ['a 404', reply.text(404, '')],
    ['a 405', reply.text(405, '')],
    ['the v1 500 naming a 404', reply.text(500, 'Failed to convert error (HTTP 404)')],
    ["an older node's v1 500", reply.text(500, 'Failed to convert error')],
  ])('takes %s to the probe as "not served" and reads /blocks', async (_name, answer) => {
    withRoute.reset();
    withRoute.script('/blocks/transactions', [answer]);
    const s = scanner(withRoute);
    expect(await s.blockSource()).toBe('blocks');
    expect((await s.fetchRange(1159, 1162)).map((x) => x.height)).toEqual([1159, 1160, 1161]);
    expect(withRoute.requestsTo('/blocks/transactions')).toHaveLength(1); // detected once
  });

  it('takes a 5xx to the probe as an error, not as "not served", and asks again on the next call', async () => {
    withRoute.reset();
    withRoute.script('/blocks/transactions', [reply.serverError('database busy'), reply.serverError('database busy'), reply.serverError('database busy')]);
    const s = scanner(withRoute);
    expect(await failure(s.fetchRange(1000, 1010))).toMatchObject({ code: 'LEDGER_NODE_HTTP_ERROR' });
    expect(s.knownBlockSource).toBeUndefined();
    expect(await s.blockSource()).toBe('transactions');
  });

  it('under auto, a route whose read fails is detected again: one wrong probe answer is not kept (issue 48, item 3)', async () => {
    old.reset();
    // The old node serves no /blocks/transactions; one probe answer of [] (from a proxy, a redirect
    // followed elsewhere, a node replaced behind the URL) made the scanner choose that route.
    old.script('/blocks/transactions', [reply.json([])]);
    const s = scanner(old);
    expect(await s.blockSource()).toBe('transactions');
    expect(await failure(s.fetchRange(1000, 1010))).toMatchObject({ code: 'LEDGER_NODE_HTTP_ERROR' });
    expect(s.knownBlockSource).toBeUndefined();
    // The next call probes again, finds the route not served, and reads /blocks.
    expect((await s.fetchRange(1159, 1162)).map((x) => x.height)).toEqual([1159, 1160, 1161]);
    expect(s.knownBlockSource).toBe('blocks');
    // A route chosen by configuration is kept whatever fails.
    const forced = scanner(old, 'transactions');
    expect(await failure(forced.fetchRange(1000, 1010))).toMatchObject({ code: 'LEDGER_NODE_HTTP_ERROR' });
    expect(forced.knownBlockSource).toBe('transactions');
  });

  it('follows the choice: blocks never probes, transactions never falls back', async () => {
    withRoute.reset();
    const forced = scanner(withRoute, 'blocks');
    expect((await forced.fetchRange(1000, 1003)).length).toBe(3);
    expect(withRoute.requestsTo('/blocks/transactions')).toEqual([]);
    expect(await failure(scanner(old, 'transactions').fetchRange(1000, 1003))).toMatchObject({ code: 'LEDGER_NODE_HTTP_ERROR' });
  });
});

describe('a node that lies is a named error with the height', () => {
  const blocksBody = (heights: number[]) => JSON.stringify(heights.map((h) => chain.block(h)), null, 2);
  it.each([
    ['a wrong height', [1000, 1001, 1007], 'LEDGER_NODE_BAD_BLOCKS', /height 1007, outside the range, at position 2, where height 1002 was expected/],
    ['a block missing', [1000, 1001], 'LEDGER_NODE_BAD_BLOCKS', /answered 2 blocks, block 1002 missing/],
    ['a block missing inside', [1000, 1002], 'LEDGER_NODE_BAD_BLOCKS', /height 1002 where 1001 belongs/],
    ['a duplicate', [1000, 1000, 1001], 'LEDGER_NODE_BAD_BLOCKS', /height 1000 a second time at position 1/],
    ['blocks out of order', [1001, 1000, 1002], 'LEDGER_NODE_BAD_BLOCKS', /height 1001 where 1000 belongs|out of order/],
    ['one block too many', [1000, 1001, 1002, 1003], 'LEDGER_NODE_BAD_BLOCKS', /4 blocks, 1 block\(s\) more than asked/],
  ])('/blocks answering %s', async (_name, heights, code, why) => {
    old.reset();
    old.script('/blocks', [reply.text(200, blocksBody(heights as number[]))]);
    const f = await failure(scanner(old).fetchRange(1000, 1003));
    expect(f.code).toBe(code);
    expect(f.message).toMatch(why as RegExp);
  });

  it.each([
    ['truncated', () => blocksBody([1000, 1001, 1002]).slice(0, -300), /not valid JSON: .* at the end of the body \(truncated\?\), in block #2 of the answer \(height 1002 expected\)/],
    ['not JSON', () => '<html>Bad Gateway</html>', /not valid JSON: expected a value at byte 0/],
  ])('/blocks answering a body that is %s', async (_name, body, why) => {
    old.reset();
    old.script('/blocks', [reply.text(200, body())]);
    const f = await failure(scanner(old).fetchRange(1000, 1003));
    expect(f).toMatchObject({ code: 'LEDGER_NODE_MALFORMED_BLOCKS' });
    expect(f.message).toMatch(why);
  });

  it.each([
    ['fewer blocks than the range', [[], []], 'LEDGER_NODE_BLOCK_COUNT', /transactions of 2 blocks for the 3 heights 1000\.\.1002 \(height 1002 and after missing\)/],
    ['more blocks than the range', [[], [], [], []], 'LEDGER_NODE_BLOCK_COUNT', /transactions of 4 blocks for the 3 heights/],
    ['an element that is no array', [[], {}, []], 'LEDGER_NODE_MALFORMED_BLOCKS', /the element for height 1001 is not an array/],
    ['no array', { transactions: [] }, 'LEDGER_NODE_MALFORMED_BLOCKS', /did not answer a JSON array/],
  ])('/blocks/transactions answering %s', async (_name, value, code, why) => {
    withRoute.reset();
    const s = scanner(withRoute);
    expect(await s.blockSource()).toBe('transactions');
    withRoute.script('/blocks/transactions', [reply.json(value)]);
    const f = await failure(s.fetchRange(1000, 1003));
    expect(f.code).toBe(code);
    expect(f.message).toMatch(why as RegExp);
  });

  it('/blocks/transactions: a body with text beyond ASCII is read as UTF-8 (an ASCII one byte for byte)', async () => {
    withRoute.reset();
    const s = scanner(withRoute);
    await s.blockSource();
    const value = [[{ status: 'accepted', note: 'prix €, 価格, 🦀' }], [], [{ status: 'accepted', note: 'plain' }]];
    withRoute.script('/blocks/transactions', [reply.json(value)]);
    expect((await s.fetchRange(1000, 1003)).map((b) => b.transactions)).toEqual(value);
  });

  it('/blocks/transactions answering a truncated body', async () => {
    withRoute.reset();
    const s = scanner(withRoute);
    await s.blockSource();
    withRoute.script('/blocks/transactions', [reply.text(200, '[\n  [],\n  [')]);
    const f = await failure(s.fetchRange(1000, 1003));
    expect(f).toMatchObject({ code: 'LEDGER_NODE_MALFORMED_BLOCKS' });
    expect(f.message).toMatch(/not JSON .*heights 1000\.\.1002/);
  });
});

describe('reverify and the watcher through either source', () => {
  const config = () => {
    const f = join(dir, 'config.json');
    const doc = readVectorJson<any>('nitro/manifest.json').vectors.find((v: any) => v.file === 'oracle-nitro-report.hex');
    const target = { uniqueIdTarget: '58e26caa30264d74ee496f370cdf0433a82808f13fb26b885d3f1e54dc7a34df', pcrValuesTarget: [doc.pcr0, doc.pcr1, doc.pcr2] };
    writeFileSync(f, JSON.stringify({ ...target, acceptedTcbStatuses: ['UpToDate'], pccsUrl: 'http://127.0.0.1:9/pccs/' }));
    return f;
  };
  const run = async (node: LedgerNode, out: string, extra: string[], stopAfter?: number) => {
    let stderr = '';
    let batches = 0;
    const code = await reverifyCommand(
      ['--node', node.url, '--program', P, '--from', String(FIRST), '--to', String(LATEST + 1), '--config', config(), '--workers', '0', '--out', out, '--progress-interval', '0', '--rps', '1000', ...extra],
      {
        stderr: (s) => {
          stderr += s;
        },
        tty: false,
        ...(stopAfter !== undefined ? { stopRequested: () => ++batches > stopAfter } : {}),
      },
    );
    return { code, stderr, text: readFileSync(out, 'utf8') };
  };

  it('gives byte-identical records on both routes, says which in the summary, and resumes a checkpoint on the other route', async () => {
    const a = await run(withRoute, join(dir, 'tx.jsonl'), []);
    const b = await run(old, join(dir, 'blocks.jsonl'), []);
    expect(a.stderr).toContain('block source: /blocks/transactions (detected; 160 blocks per request, batches of 160)');
    expect(b.stderr).toContain('block source: /blocks (detected; 50 blocks per request, batches of 50)');
    expect(a.text.split('\n').length).toBeGreaterThan(20);
    expect(a.text).toBe(b.text);
    const forced = await run(withRoute, join(dir, 'forced.jsonl'), ['--block-source', 'blocks']);
    expect(forced.stderr).toContain('block source: /blocks (--block-source; 50 blocks per request, batches of 50)');
    expect(forced.text).toBe(b.text);

    // Started on /blocks (batches of 50), stopped, resumed on /blocks/transactions: heights are heights.
    const out = join(dir, 'resumed.jsonl');
    const ckpt = join(dir, 'resumed.ckpt');
    const first = await run(withRoute, out, ['--checkpoint', ckpt, '--block-source', 'blocks'], 2);
    expect(first.code).toBe(2);
    const c = JSON.parse(readFileSync(ckpt, 'utf8'));
    expect(c).toMatchObject({ done: false, source: { batchSize: 50 } });
    expect(c.nextHeight).toBeLessThan(LATEST);
    const second = await run(withRoute, out, ['--checkpoint', ckpt, '--resume']);
    expect(second.stderr).toMatch(/resuming at height \d+/);
    expect(second.stderr).toContain('block source: /blocks/transactions (detected; 160 blocks per request, batches of 50)');
    expect(second.text).toBe(b.text);
    expect(JSON.parse(readFileSync(ckpt, 'utf8'))).toMatchObject({ done: true, nextHeight: LATEST + 1 });
  });

  it('the watcher stores the same updates from either route and says which in its status', async () => {
    const valid = { reportType: 'typeA', reportValid: true } as VerifyOutcome;
    const watch = async (node: LedgerNode, name: string) => {
      const store = openUpdateStore(join(dir, `${name}.db`));
      let resolveDone!: () => void;
      const done = new Promise<void>((r) => (resolveDone = r));
      const w = new LedgerWatcher({
        scanner: scanner(node),
        store,
        programs: [P],
        verify: async () => valid,
        fromHeight: FIRST,
        pollIntervalMs: 100,
        concurrency: 1,
        log: {
          info: (o: any, msg: string) => {
            if (msg === 'ledger range stored' && o.scannedHeight === LATEST) resolveDone();
          },
          warn: () => undefined,
        },
      });
      w.start();
      await done;
      await w.stop();
      const records = store.list({}, 1000).records.map((r) => [r.blockHeight, r.transitionId, r.outcome]);
      const status = w.status();
      store.close();
      return { records, status };
    };
    withRoute.reset();
    const a = await watch(withRoute, 'w-tx');
    const b = await watch(old, 'w-blocks');
    expect(a.status).toEqual({ running: false, blockSource: '/blocks/transactions' });
    expect(b.status).toEqual({ running: false, blockSource: '/blocks' });
    expect(a.records.length).toBeGreaterThan(20);
    expect(a.records).toEqual(b.records);
    // Ranges follow the source: 160 blocks a request.
    const sizes = withRoute.requestsTo('/blocks/transactions').map((r) => {
      const q = new URL(r.path, 'http://x').searchParams;
      return Number(q.get('end')) - Number(q.get('start'));
    });
    expect(sizes).toEqual([0, 160, 160, 100]);
  });
});
