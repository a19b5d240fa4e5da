import { createServer, type Server } from 'node:http';
import { gzipSync } from 'node:zlib';
import { createServer as createNetServer, type AddressInfo, type Socket } from 'node:net';
import { BlocksArrival } from '../../../../src/ledger/node/blocks/blocksBody.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createBlockScanner } from '../../../../src/ledger/node/blocks/fetchBlocks.js';
import { createLedgerNodeClient, LEDGER_NODE_BODY_POOL } from '../../../../src/ledger/node/client.js';
import { ByteBudget } from '../../../../src/upstream/body.js';

/** The raw-bytes path (node:http, one buffer from Content-Length) against a loopback node. */
let server: Server | undefined;
afterEach(async () => {
  await new Promise<void>((r) => (server ? server.close(() => r()) : r()));
  server = undefined;
});

function serve(onRequest: (url: string) => { status: number; body: string; headers?: Record<string, string> }): Promise<string> {
  server = createServer((req, res) => {
    const a = onRequest(req.url ?? '');
    res.writeHead(a.status, { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(a.body)), ...a.headers });
    res.end(a.body);
  });
  return new Promise((r) => server!.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(server!.address() as AddressInfo).port}/v2/mainnet`)));
}

/** The error a call fails with (a call that succeeds fails the test). */
const failure = (p: Promise<unknown>): Promise<Error & { code: string }> =>
  p.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (e: unknown) => e as Error & { code: string },
  );

describe('ledger node raw bytes over node:http', () => {
  it('returns the exact body, and names status errors, 429s and the cap like the JSON path', async () => {
    const body = JSON.stringify([{ height: 1, pad: 'x'.repeat(300_000) }]);
    let n = 0;
    const url = await serve((u) => {
      n++;
      if (u.includes('start=9')) return { status: 404, body: 'Not found: secret-k' };
      if (n === 1) return { status: 429, body: 'slow down', headers: { 'retry-after': '0' } };
      if (n === 2) return { status: 500, body: 'Too Many Requests! Wait for 0s (HTTP 429)' };
      if (u.includes('big')) return { status: 200, body: 'y'.repeat(5000) };
      return { status: 200, body };
    });
    const client = createLedgerNodeClient({ baseUrl: `${url}?key=secret-k`, timeoutMs: 30_000, retries: 0, maxBodyBytes: 400_000 });
    const bytes = await client.getBytes('/blocks?start=1&end=2');
    expect(bytes.toString('utf8')).toBe(body);
    expect(n).toBe(3); // one 429 and one v1 "(HTTP 429)" waited out, then the answer
    const e404 = await failure(client.getBytes('/blocks?start=9&end=10'));
    expect(e404.code).toBe('LEDGER_NODE_HTTP_ERROR');
    expect(e404.message).toContain('status 404');
    expect(e404.message).not.toContain('secret-k');
    const small = createLedgerNodeClient({ baseUrl: url, timeoutMs: 30_000, retries: 0, maxBodyBytes: 1000 });
    const big = await failure(small.getBytes('/big'));
    expect(big.code).toBe('LEDGER_NODE_BAD_RESPONSE');
    expect(big.message).toContain('larger than 1000 bytes');
  });

  it('waits for room in the body budget instead of abandoning a 200 answer that fits it, and gives the bytes back', async () => {
    // Another body in flight holds 600 of 1000 bytes; it is read (given back) right after this
    // answer first finds no room for its ≈ 590 bytes.
    class Budget extends ByteBudget {
      refused = 0;
      override take(n: number): boolean {
        const ok = super.take(n);
        if (!ok && this.refused++ === 0) setImmediate(() => this.give(600));
        return ok;
      }
    }
    const budget = new Budget(1000);
    const url = await serve(() => ({ status: 200, body: JSON.stringify({ pad: 'z'.repeat(580) }) }));
    const client = createLedgerNodeClient({ baseUrl: url, timeoutMs: 30_000, retries: 0, bodyBudget: budget });
    expect(budget.take(600)).toBe(true);
    expect((await client.getBytes('/blocks?start=0&end=1')).length).toBeGreaterThan(580);
    expect(budget.refused).toBe(1);
    expect(budget.inUse).toBe(0);
  });

  it('an answer still waiting for room when the attempt times out fails LEDGER_NODE_TIMEOUT and holds nothing', async () => {
    const budget = new ByteBudget(1000);
    const url = await serve(() => ({ status: 200, body: JSON.stringify({ pad: 'z'.repeat(580) }) }));
    const client = createLedgerNodeClient({ baseUrl: url, timeoutMs: 300, retries: 0, bodyBudget: budget });
    expect(budget.take(600)).toBe(true); // never given back during the call
    const e = await failure(client.getBytes('/blocks?start=0&end=1'));
    expect(e.code).toBe('LEDGER_NODE_TIMEOUT');
    expect(budget.inUse).toBe(600);
  });

  it('readBytes: the body is read while held against the budget, then its buffer serves the next body; what read throws is thrown as is', async () => {
    const bodies = [JSON.stringify({ pad: 'a'.repeat(200_000) }), JSON.stringify({ pad: 'b'.repeat(190_000) })];
    let n = 0;
    const url = await serve(() => ({ status: 200, body: bodies[n++ % 2]! }));
    const budget = new ByteBudget(1_000_000);
    const client = createLedgerNodeClient({ baseUrl: url, timeoutMs: 30_000, retries: 0, bodyBudget: budget });
    const seen: { text: string; held: number; buffer: ArrayBufferLike }[] = [];
    const read = (bytes: Buffer) => seen.push({ text: bytes.toString('utf8'), held: budget.inUse, buffer: bytes.buffer });
    await client.readBytes!('/blocks?start=0&end=1', read);
    expect(budget.inUse).toBe(0);
    await client.readBytes!('/blocks?start=1&end=2', read);
    expect(seen.map((s) => s.text)).toEqual(bodies);
    expect(seen.map((s) => s.held)).toEqual(bodies.map((b) => b.length));
    // the second body was read into the first one's buffer, given back once read
    expect(seen[1]!.buffer).toBe(seen[0]!.buffer);
    expect(budget.inUse).toBe(0);
    const thrown = new Error('not blocks');
    await expect(
      client.readBytes!('/blocks?start=2&end=3', () => {
        throw thrown;
      }),
    ).rejects.toBe(thrown);
    expect(budget.inUse).toBe(0);
    // getBytes' bytes are the caller's to keep: never a pooled buffer
    const kept = await client.getBytes('/blocks?start=3&end=4');
    const next = await client.readBytes!('/blocks?start=4&end=5', (b) => b.buffer);
    expect(next).not.toBe(kept.buffer);
    expect(LEDGER_NODE_BODY_POOL.maxFreeBytes).toBeGreaterThan(0);
  });

  it('the /blocks/transactions scan parses each answer while its buffer is held, then gives the buffer back for the next answer', async () => {
    // Two ranges of one block each: a large transaction (a 150 kB answer), then a body that is not JSON.
    const tx = { type: 'execute', id: 'at1x', pad: 'p'.repeat(150_000) };
    const url = await serve((u) => ({ status: 200, body: u.includes('start=0') ? JSON.stringify([[{ status: 'accepted', transaction: tx }]]) : '[[{"status": oops' }));
    const scanner = createBlockScanner({ baseUrl: url, rps: 0, timeoutMs: 30_000, retries: 0, backoffMs: 0, blockSource: 'transactions' });
    const give = vi.spyOn(LEDGER_NODE_BODY_POOL, 'give');
    try {
      const [block] = await scanner.fetchRange(0, 1);
      expect(block!.height).toBe(0);
      expect((block!.transactions[0] as { transaction: typeof tx }).transaction).toEqual(tx);
      expect(give).toHaveBeenCalledTimes(1);
      await expect(scanner.fetchRange(1, 2)).rejects.toMatchObject({ code: 'LEDGER_NODE_MALFORMED_BLOCKS' });
      expect(give).toHaveBeenCalledTimes(2);
    } finally {
      give.mockRestore();
    }
  });

  it('the /blocks scan reads each body while it arrives, and a retry after a cut answer starts over: the records are the retry’s', async () => {
    // Two blocks of ≈ 200 kB each; the first answer is another body of the same length, cut after its first block.
    const pad = 'q'.repeat(200_000);
    const block = (h: number, id: string) => ({ header: { metadata: { height: h, timestamp: 1_700_000_000 + h } }, authority: { pad }, transactions: [{ id }] });
    const truth = Buffer.from(JSON.stringify([block(5, 'at5-the-answer'), block(6, 'at6-the-answer')], null, 2));
    const stale = Buffer.from(JSON.stringify([block(5, 'at5-cut-answer'), block(6, 'at6-cut-answer')], null, 2));
    expect(stale.length).toBe(truth.length);
    let answers = 0;
    const sockets = new Set<Socket>();
    const raw = createNetServer((socket) => {
      sockets.add(socket);
      socket.once('data', () => {
        const body = answers++ === 0 ? stale.subarray(0, stale.indexOf('"height": 6') + 2000) : truth;
        socket.write(`HTTP/1.1 200 OK\r\ncontent-type: application/json\r\ncontent-length: ${truth.length}\r\n\r\n`);
        // The cut answer ends with the connection (its bytes flushed first), the true one with its body.
        socket.write(body, () => (body === truth ? undefined : socket.destroy()));
      });
    });
    await new Promise<void>((r) => raw.listen(0, '127.0.0.1', () => r()));
    const read = vi.spyOn(BlocksArrival.prototype, 'arrived');
    try {
      const scanner = createBlockScanner({ baseUrl: `http://127.0.0.1:${(raw.address() as AddressInfo).port}/v2/mainnet`, rps: 0, timeoutMs: 30_000, retries: 1, backoffMs: 0, blockSource: 'blocks' });
      const blocks = await scanner.fetchRange(5, 7);
      expect(answers).toBe(2);
      expect(blocks.map((b) => [b.height, (b.transactions[0] as { id: string }).id])).toEqual([
        [5, 'at5-the-answer'],
        [6, 'at6-the-answer'],
      ]);
      // Both attempts' bytes were told to the reader as they landed.
      expect(new Set(read.mock.calls.map((c) => c[2])).size).toBe(2);
    } finally {
      read.mockRestore();
      // The client keeps the second connection for a next request: closed here, or the server would wait for it.
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((r) => raw.close(() => r()));
    }
  });

  it('asks for the body as is, and names an answer a proxy compressed anyway (issue 48)', async () => {
    const asked: (string | undefined)[] = [];
    server = createServer((req, res) => {
      asked.push(req.headers['accept-encoding']);
      const body = gzipSync(Buffer.from('[]'));
      res.writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip', 'content-length': String(body.length) });
      res.end(body);
    });
    const base = await new Promise<string>((r) => server!.listen(0, '127.0.0.1', () => r(`http://127.0.0.1:${(server!.address() as AddressInfo).port}/v2/mainnet`)));
    const client = createLedgerNodeClient({ baseUrl: base, timeoutMs: 5000, retries: 0 });
    const e = await failure(client.getBytes('/blocks?start=0&end=1'));
    expect(e.code).toBe('LEDGER_NODE_BAD_RESPONSE');
    expect(e.message).toContain('the answer is sent with Content-Encoding "gzip", though the request asked for identity (Accept-Encoding: identity): a proxy between here and the node compresses it');
    expect(asked).toEqual(['identity']);
  });

  it('keeps fetch as the path when fetchImpl is injected', async () => {
    const url = await serve(() => ({ status: 200, body: '[]' }));
    const seen: string[] = [];
    const client = createLedgerNodeClient({ baseUrl: url, timeoutMs: 30_000, fetchImpl: (u, i) => (seen.push(String(u)), fetch(u, i)) });
    expect((await client.getBytes('/blocks?start=0&end=0')).toString()).toBe('[]');
    expect(seen).toEqual([`${url}/blocks?start=0&end=0`]);
  });
});
