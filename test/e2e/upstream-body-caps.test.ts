/**
 * Upstream bodies are read as streams and abandoned at their cap (issue 32, item 3), through the
 * real server over real sockets. A PCCS stand-in answers /tcb with 200 MB (declared) or without end
 * (chunked): a typeA /decodeReport is unverifiable PCCS_BAD_RESPONSE and the stand-in's socket
 * took no more than the 4 MiB cap plus the sockets' buffers before the verifier closed it. A ledger
 * node answers a lookup without end: 502 LEDGER_NODE_BAD_RESPONSE, stopped near the 4 MiB cap of a
 * transaction; thirty lookups answered 31 MB each at once: none read whole (not 30 × 31 MB). The
 * node client's byte budget over bodies read at once: what has no room fails LEDGER_NODE_BODY_BUDGET.
 * The notarizer client stops reading a notarizer's endless /info at its 8 MiB cap.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fakeId } from '../support/ledger-chain.js';
import { reply, startLedgerNode, type LedgerNode } from '../support/ledger-node.js';
import { mintSgx, type MintedSgx } from '../support/minted-sgx.js';
import { startPccsServer, type PccsServer } from '../support/pccs-server.js';
import { postJson, startServer, type RunningServer } from '../support/server.js';
import { until } from '../support/wait.js';
import { streamBody, type StreamedBody } from '../support/stream-body.js';
import { NotarizerClient } from '../../src/client/index.js';
import { createLedgerNodeClient } from '../../src/ledger/node/client.js';
import { ByteBudget } from '../../src/upstream/body.js';

const MiB = 1024 * 1024;
/** What the sockets between the stand-in and the verifier may hold beyond what the verifier read (kernel and stream buffers). */
const SLACK = 8 * MiB;

let dir: string;
let sgx: MintedSgx;
let pccs: PccsServer;
let node: LedgerNode;
let srv: RunningServer;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'upstream-caps-'));
  sgx = mintSgx(dir);
  pccs = await startPccsServer(sgx.bundle);
  node = await startLedgerNode();
  srv = await startServer({ ...sgx.config, pccsUrl: pccs.url, liveCheck: { skip: true, apiBaseUrl: node.url, timeoutMs: 120_000 } });
}, 120_000);

afterAll(async () => {
  await srv?.close();
  await node?.close();
  await pccs?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('upstream bodies are abandoned at their cap', { timeout: 300_000 }, () => {
  it('a PCCS answering /tcb with 200 MB, declared or endless: unverifiable, the read stops at the 4 MiB cap', async () => {
    for (const [i, declareLength] of [true, false].entries()) {
      pccs.inject('tcb', { status: 200, stream: { bytes: declareLength ? 200_000_000 : Infinity, declareLength } });
      const r = await postJson(`${srv.url}/decodeReport`, sgx.request(`${i + 5}.00000001`));
      expect(r.status).toBe(200);
      expect(r.body, JSON.stringify(r.body)).toMatchObject({ reportValid: false, outcome: 'unverifiable', errorCode: 'PCCS_BAD_RESPONSE', errorString: expect.stringContaining('abandoned at the limit') });
      const sent = await pccs.streamed[i]!.ended;
      expect(sent, `declared ${declareLength}`).toBeLessThan(4 * MiB + SLACK);
    }
    // The PCCS answers again: the next verification gets its collateral.
    const ok = await postJson(`${srv.url}/decodeReport`, sgx.request('7.00000001'));
    expect(ok.body).toMatchObject({ reportValid: true, outcome: 'valid' });
  });

  it('a node answering a lookup without end: 502 LEDGER_NODE_BAD_RESPONSE, the read stops at the 4 MiB cap of a transaction', async () => {
    const id = fakeId('at', 'endless');
    node.script(`/transaction/${id}`, [reply.stream(Infinity, false)]);
    const r = await fetch(`${srv.url}/ledger/transactions/${id}`);
    const body = (await r.json()) as { errorCode: string; errorString: string };
    expect([r.status, body.errorCode]).toEqual([502, 'LEDGER_NODE_BAD_RESPONSE']);
    expect(body.errorString).toContain('larger than 4194304 bytes');
    const sent = await node.streamed.at(-1)!.ended;
    expect(sent).toBeGreaterThanOrEqual(4 * MiB);
    expect(sent).toBeLessThan(4 * MiB + SLACK);
  });

  it('thirty lookups answered 31 MB each at once: each abandoned at its cap, the node sent a bounded total, not 30 × 31 MB', async () => {
    const ids = Array.from({ length: 30 }, (_, i) => fakeId('at', `big${i}`));
    for (const [i, id] of ids.entries()) node.script(`/transaction/${id}`, Array.from({ length: 3 }, () => reply.stream(31_000_000, i % 2 === 0)));
    const first = node.streamed.length;
    // Held until all thirty asked (the lookups' pacing sends them over some seconds), then answered at once.
    const release = node.hold((path) => path.startsWith('/transaction/at1'));
    const answers = ids.map(async (id) => {
      const r = await fetch(`${srv.url}/ledger/transactions/${id}`);
      return { status: r.status, body: (await r.json()) as { errorCode: string; errorString: string } };
    });
    await until('thirty lookups at the node', () => node.requests.filter((q) => q.path.includes('/transaction/at1')).length >= 30 + 1, 120_000);
    release();
    const got = await Promise.all(answers);
    // Over the cap (502), or no room in the node bodies' budget meanwhile (503, after the lookup's retries).
    const codes = got.map((a) => `${a.status} ${a.body.errorCode}`);
    expect(codes.filter((c) => c !== '502 LEDGER_NODE_BAD_RESPONSE' && c !== '503 LEDGER_NODE_BODY_BUDGET')).toEqual([]);
    expect(codes).toContain('502 LEDGER_NODE_BAD_RESPONSE');
    const sent = await Promise.all(node.streamed.slice(first).map((s) => s.ended));
    expect(sent.length).toBeGreaterThanOrEqual(30);
    // Declared 31 MB: refused before reading; not declared: read to the 4 MiB cap. Never a whole body.
    for (const n of sent) expect(n).toBeLessThan(4 * MiB + SLACK);
  });

  it('the node bodies held at once stay within the budget: a body without room fails LEDGER_NODE_BODY_BUDGET (retryable), unread', async () => {
    const budget = new ByteBudget(8 * MiB);
    const client = createLedgerNodeClient({ baseUrl: node.url, timeoutMs: 120_000, retries: 0, bodyBudget: budget });
    const ids = Array.from({ length: 30 }, (_, i) => fakeId('at', `budget${i}`));
    for (const [i, id] of ids.entries()) node.script(`/transaction/${id}`, [reply.stream(3_000_000, i % 2 === 0)]);
    const first = node.streamed.length;
    const release = node.hold((path) => path.startsWith('/transaction/at1'));
    let peak = 0;
    const watch = setInterval(() => (peak = Math.max(peak, budget.inUse)), 1);
    const outcomes = ids.map((id) => client.getJson(`/transaction/${id}`).then(() => 'ok', (e: { code?: string }) => e.code ?? 'error'));
    await until('thirty requests held', () => ids.every((id) => node.requestsTo(`/transaction/${id}`).length === 1), 120_000);
    release();
    const codes = await Promise.all(outcomes);
    clearInterval(watch);
    // Whitespace is no JSON: a body read whole is LEDGER_NODE_BAD_RESPONSE; one without room LEDGER_NODE_BODY_BUDGET.
    expect(new Set(codes)).toEqual(new Set(['LEDGER_NODE_BAD_RESPONSE', 'LEDGER_NODE_BODY_BUDGET']));
    expect(peak).toBeLessThanOrEqual(8 * MiB);
    expect(budget.inUse).toBe(0);
    await Promise.all(node.streamed.slice(first).map((s) => s.ended));
  });

  it('the notarizer client: a notarizer answering /info without end fails BAD_ANSWER at the 8 MiB cap', async () => {
    const streams: StreamedBody[] = [];
    const notarizer = createServer((_req, res) => void streams.push(streamBody(res, 200, Infinity, false)));
    await new Promise<void>((r) => notarizer.listen(0, '127.0.0.1', r));
    try {
      const base = `http://127.0.0.1:${(notarizer.address() as AddressInfo).port}`;
      const client = new NotarizerClient({ notarizers: [base], verifier: srv.url, timeout: 120_000 });
      await expect(client.info()).rejects.toMatchObject({ failures: [expect.objectContaining({ code: 'BAD_ANSWER', message: expect.stringContaining('larger than 8388608 bytes') })] });
      const sent = await streams[0]!.ended;
      expect(sent).toBeLessThan(8 * MiB + SLACK);
    } finally {
      notarizer.closeAllConnections();
      await new Promise((r) => notarizer.close(r));
    }
  });
});
