/**
 * GET /ledger/transactions/{id} under concurrency, against the ledger-node simulator: lookups
 * waiting for a slot of the node's rate limit (5 requests/s) longer than the node request's
 * timeout do not time out (the timeout starts when the request is sent), and none is retried;
 * beyond `ledgerLookupQueue` lookups waiting for the node, a lookup is answered 503 at once with
 * LEDGER_LOOKUP_QUEUE_FULL and a Retry-After (the node's held answers keep the others waiting).
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLedgerFixture, type LedgerFixture } from '../support/ledger-fixture.js';
import { startLedgerServer, type LedgerServer } from '../support/ledger-server.js';

let dir: string;
let fx: LedgerFixture;
const servers: LedgerServer[] = [];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'ledger-lookup-queue-'));
  fx = await startLedgerFixture(dir);
}, 300_000);

afterAll(async () => {
  for (const s of servers) await s.close();
  await fx?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function lookup(s: LedgerServer, id: string): Promise<{ status: number; retryAfter: string | null; body: any }> {
  const r = await fetch(`${s.url}/ledger/transactions/${id}`);
  return { status: r.status, retryAfter: r.headers.get('retry-after'), body: await r.json() };
}

describe('GET /ledger/transactions/{id} under concurrency', { timeout: 300_000 }, () => {
  it('waiting for a rate-limit slot does not count against the node request’s timeout', async () => {
    // No watcher: lookups are paced at 5 node requests/s; 60 lookups take ≈ 12 s of slots, more
    // than the 2 s timeout of one node request and its 2 retries together. The node answers at once.
    const s = await startLedgerServer(fx, dir, { liveCheck: { skip: true, apiBaseUrl: fx.node.url, timeoutMs: 2000 } });
    servers.push(s);
    const t = fx.tx.officialNitro!;
    fx.node.reset();
    const answers = await Promise.all(Array.from({ length: 60 }, () => lookup(s, t.transactionId)));
    const byStatus = answers.reduce<Record<string, number>>((a, r) => ({ ...a, [`${r.status} ${r.body.errorCode ?? ''}`.trim()]: (a[`${r.status} ${r.body.errorCode ?? ''}`.trim()] ?? 0) + 1 }), {});
    expect(byStatus).toEqual({ 200: 60 });
    expect(answers.every((r) => r.body.updates[0]?.outcome === 'valid')).toBe(true);
    // One node request per lookup: none timed out and was sent again.
    expect(fx.node.requestsTo(`/transaction/${t.transactionId}`)).toHaveLength(60);
  });

  it('beyond ledgerLookupQueue waiting lookups: 503 LEDGER_LOOKUP_QUEUE_FULL with Retry-After at once', async () => {
    const s = await startLedgerServer(fx, dir, { ledgerLookupQueue: 4, liveCheck: { skip: true, apiBaseUrl: fx.node.url, timeoutMs: 60_000 } });
    servers.push(s);
    const t = fx.tx.officialNitro!;
    fx.node.reset();
    // The node holds its answers: the 4 admitted lookups keep waiting for it.
    const release = fx.node.hold((path) => path === `/transaction/${t.transactionId}`);
    let answered = 0;
    let sixAnswered!: () => void;
    const six = new Promise<void>((r) => (sixAnswered = r));
    const all = Array.from({ length: 10 }, () =>
      lookup(s, t.transactionId).then((r) => {
        if (++answered === 6) sixAnswered();
        return r;
      }),
    );
    try {
      await six;
      expect(answered).toBe(6);
    } finally {
      release();
    }
    const answers = await Promise.all(all);
    const refused = answers.filter((r) => r.status === 503);
    expect(refused).toHaveLength(6);
    for (const r of refused) {
      expect(r.body).toEqual({ errorCode: 'LEDGER_LOOKUP_QUEUE_FULL', errorString: '4 transaction lookups are waiting for the ledger node (ledgerLookupQueue 4, 5 requests/s); retry in 1 s' });
      expect(r.retryAfter).toBe('1');
    }
    const served = answers.filter((r) => r.status !== 503);
    expect(served.map((r) => r.status)).toEqual([200, 200, 200, 200]);
    expect(fx.node.requestsTo(`/transaction/${t.transactionId}`)).toHaveLength(4);
    // The room is free again.
    expect((await lookup(s, t.transactionId)).status).toBe(200);
  });
});
