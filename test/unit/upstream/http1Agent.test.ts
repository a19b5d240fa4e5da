import { webcrypto } from 'node:crypto';
import net, { type AddressInfo, type Server, type Socket } from 'node:net';
import tls from 'node:tls';
import 'reflect-metadata';
import * as x509 from '@peculiar/x509';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createLedgerNodeClient } from '../../../src/ledger/node/client.js';
import { Http1Agent, type Http1Answer } from '../../../src/upstream/http1Agent.js';
import { BodyDecoder, Http1Error, NEED_MORE, type Framing } from '../../../src/upstream/http1Framing.js';
import { BufferPool, ByteBudget, CappedBuffer, type CappedBody } from '../../../src/upstream/body.js';

/**
 * The ledger node's own HTTP/1.1 reader (src/upstream/http1Agent.ts) against real loopback
 * sockets: servers that write raw HTTP bytes, split where the test says.
 */

interface RawServer {
  url: string;
  /** Connections accepted so far. */
  connections: number;
  /** Requests received so far (their heads, as text). */
  requests: string[];
  /** Server-side sockets, in accept order. */
  sockets: Socket[];
  close(): Promise<void>;
}

/** `answer(socket, request, n)` for each request head received (n counts from 0, over all connections). */
function rawServer(answer: (socket: Socket, request: string, n: number) => void, secure?: { key: string; cert: string }): Promise<RawServer> {
  const s: RawServer = { url: '', connections: 0, requests: [], sockets: [], close: async () => undefined };
  const onSocket = (socket: Socket): void => {
    s.connections++;
    s.sockets.push(socket);
    socket.setNoDelay(true);
    socket.on('error', () => undefined);
    let buf = '';
    socket.on('data', (d: Buffer) => {
      buf += d.toString('latin1');
      for (let i = buf.indexOf('\r\n\r\n'); i >= 0; i = buf.indexOf('\r\n\r\n')) {
        const request = buf.slice(0, i + 4);
        buf = buf.slice(i + 4);
        s.requests.push(request);
        answer(socket, request, s.requests.length - 1);
      }
    });
  };
  const server: Server = secure ? tls.createServer(secure, onSocket) : net.createServer(onSocket);
  s.close = () =>
    new Promise<void>((r) => {
      for (const k of s.sockets) k.destroy();
      server.close(() => r());
    });
  servers.push(s);
  return new Promise((r) =>
    server.listen(0, '127.0.0.1', () => {
      s.url = `${secure ? 'https' : 'http'}://127.0.0.1:${(server.address() as AddressInfo).port}`;
      r(s);
    }),
  );
}

const servers: RawServer[] = [];
const agents: Http1Agent[] = [];
afterEach(async () => {
  for (const a of agents.splice(0)) a.close();
  for (const s of servers.splice(0)) await s.close();
});

function newAgent(opts: ConstructorParameters<typeof Http1Agent>[0] = {}): Http1Agent {
  const a = new Http1Agent(opts);
  agents.push(a);
  return a;
}

const never = (): AbortSignal => new AbortController().signal;

/** GET and read the whole body (limit 1 MB); the body's text, or the failure's reason. */
async function fetchText(agent: Http1Agent, url: string, signal = never(), limit = 1_000_000): Promise<{ answer: Http1Answer; body: CappedBody; text: string }> {
  const answer = await agent.get(url, { accept: 'application/json' }, signal);
  const body = await answer.read(limit);
  return { answer, body, text: body.ok ? body.bytes.toString('latin1') : `<${body.reason}>` };
}

/** The error a promise rejects with (one that resolves fails the test). */
const failure = (p: Promise<unknown>): Promise<Error & { code?: string; failure?: string }> =>
  p.then(
    () => {
      throw new Error('expected a failure');
    },
    (e: unknown) => e as Error & { code?: string; failure?: string },
  );

/** Resolves when the server-side socket `s` has closed (the client let go of the connection). */
const closed = (s: Socket): Promise<void> => new Promise((r) => (s.destroyed ? r() : s.once('close', () => r())));

/** Writes `parts` in turn, each after the previous one went out and an event-loop turn passed. */
function writeParts(socket: Socket, parts: (string | Buffer)[]): void {
  const next = (i: number): void => {
    if (i >= parts.length || socket.destroyed) return;
    socket.write(parts[i]!, 'latin1', () => setImmediate(() => next(i + 1)));
  };
  next(0);
}

const CHUNKED =
  'HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n' +
  '5;ext=1;quoted="a;b"\r\n[{"a"\r\n' +
  '0007\r\n:1},{"b\r\n' +
  'A ; spaced-ext\r\n":"xyzxyz"\r\n' +
  '1\r\n}\r\n' +
  '1;last\r\n]\r\n' +
  '0;end=1\r\nx-trailer: one\r\nx-other: two\r\n\r\n';
const CHUNKED_BODY = '[{"a":1},{"b":"xyzxyz"}]';

describe('HTTP/1.1 reader: framing', () => {
  it('sends GET with the path and query, host, the caller headers and connection: keep-alive', async () => {
    const s = await rawServer((sock) => sock.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n[]'));
    const agent = newAgent();
    const a = await agent.get(`${s.url}/v2/mainnet/blocks?start=1&end=2&key=k%20v`, { accept: 'application/json', 'X-Api-Key': 'secret' }, never());
    expect((await a.read(100)).ok).toBe(true);
    const lines = s.requests[0]!.split('\r\n');
    expect(lines[0]).toBe('GET /v2/mainnet/blocks?start=1&end=2&key=k%20v HTTP/1.1');
    expect(lines).toContain(`host: ${new URL(s.url).host}`);
    expect(lines).toContain('accept: application/json');
    expect(lines).toContain('X-Api-Key: secret');
    expect(lines).toContain('connection: keep-alive');
    // a header value that would split the request is refused before anything is sent, without showing it
    const e = await failure(agent.get(`${s.url}/x`, { 'x-api-key': 'a\r\nevil: 1' }, never()));
    expect(e.message).toContain('x-api-key');
    expect(e.message).not.toContain('evil');
    expect(s.requests.length).toBe(1);
  });

  it('an idle connection is closed after the idle time, sooner when the node says it keeps it for less (Keep-Alive: timeout=N)', async () => {
    const closedOnServer = (s: RawServer) => new Promise<void>((r) => (s.sockets[0]!.destroyed ? r() : s.sockets[0]!.once('close', () => r())));
    // The agent's own idle time.
    const a = await rawServer((sock) => sock.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\n[]'));
    const agent = new Http1Agent({ idleMs: 50 });
    expect((await (await agent.get(`${a.url}/x`, {}, never())).read(100)).ok).toBe(true);
    expect(agent.idleCount).toBe(1);
    await closedOnServer(a);
    expect(agent.idleCount).toBe(0);
    // The node keeps it 1 s: kept for at most 0 s, so not kept at all.
    const b = await rawServer((sock) => sock.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nkeep-alive: timeout=1, max=100\r\n\r\n[]'));
    const other = new Http1Agent({ idleMs: 600_000 });
    expect((await (await other.get(`${b.url}/x`, {}, never())).read(100)).ok).toBe(true);
    expect(other.idleCount).toBe(0);
    await closedOnServer(b);
    // The node keeps it 2 s: kept, and closed by the agent before the node would (1 s under).
    const c = await rawServer((sock) => sock.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nKeep-Alive: timeout=2\r\n\r\n[]'));
    expect((await (await other.get(`${c.url}/x`, {}, never())).read(100)).ok).toBe(true);
    expect(other.idleCount).toBe(1);
    await closedOnServer(c);
    expect(other.idleCount).toBe(0);
    await Promise.all([a.close(), b.close(), c.close()]);
  });

  it('chunked with extensions and trailers, split at every byte boundary, on one kept connection', async () => {
    let split = 0;
    const s = await rawServer((sock) => {
      const k = split++;
      writeParts(sock, k === 0 ? [CHUNKED] : [CHUNKED.slice(0, k), CHUNKED.slice(k)]);
    });
    const agent = newAgent();
    for (let k = 0; k < CHUNKED.length; k++) {
      const { answer, text } = await fetchText(agent, `${s.url}/blocks?start=${k}`);
      expect(answer.status).toBe(200);
      expect(text).toBe(CHUNKED_BODY);
    }
    expect(s.connections).toBe(1);
    expect(agent.idleCount).toBe(1);
  });

  it('chunked: the decoder fed one byte at a time gives the body and the exact end', () => {
    const bytes = Buffer.from(CHUNKED.slice(CHUNKED.indexOf('\r\n\r\n') + 4) + 'NEXT', 'latin1');
    const d = new BodyDecoder({ kind: 'chunked' }, 1000, 1000);
    const got: number[] = [];
    let end = NEED_MORE;
    for (let i = 0; i < bytes.length && end === NEED_MORE; i++) {
      const one = bytes.subarray(i, i + 1);
      const r = d.feed(one, 0, (c, s, e) => (got.push(...c.subarray(s, e)), true));
      if (r >= 0) end = i + r;
    }
    expect(Buffer.from(got).toString('latin1')).toBe(CHUNKED_BODY);
    expect(bytes.subarray(end).toString('latin1')).toBe('NEXT');
  });

  it('Content-Length split arbitrarily (the head too), the body copied once into a pooled buffer', async () => {
    const body = Buffer.alloc(300_000);
    for (let i = 0; i < body.length; i++) body[i] = (i * 7 + 3) & 0xff;
    const head = `HTTP/1.1 200 OK\r\nContent-Length: ${body.length}\r\nX-Multi: a\r\nx-multi: b\r\n\r\n`;
    const whole = Buffer.concat([Buffer.from(head, 'latin1'), body]);
    const cuts = [
      [1],
      [17, 18, head.length - 2],
      [head.length, head.length + 1, head.length + 65_536],
      [5, 40_000, 40_001, 299_999],
    ];
    let n = 0;
    const s = await rawServer((sock) => {
      const at = [0, ...cuts[n++ % cuts.length]!, whole.length];
      writeParts(
        sock,
        at.slice(1).map((e, i) => whole.subarray(at[i]!, e)),
      );
    });
    const agent = newAgent();
    const pool = new BufferPool(1 << 20);
    const budget = new ByteBudget(1 << 20);
    for (let i = 0; i < cuts.length; i++) {
      const a = await agent.get(`${s.url}/b`, {}, never());
      expect(a.header('x-multi')).toBe('a, b');
      expect(a.header('CONTENT-LENGTH')).toBe(String(body.length));
      expect(a.header('absent')).toBeNull();
      const got = await a.read(1_000_000, budget, pool, true);
      if (!got.ok) throw new Error(got.reason);
      expect(got.bytes.equals(body)).toBe(true);
      expect(budget.inUse).toBe(body.length);
      got.release();
      expect(budget.inUse).toBe(0);
    }
    expect(s.connections).toBe(1);
  });

  it('a body without length is read until the connection closes (HTTP/1.1 and 1.0), and that connection is not kept', async () => {
    const s = await rawServer((sock, _req, n) => {
      sock.write(`HTTP/1.${n % 2} 200 OK\r\ncontent-type: text/plain\r\n\r\nall of `);
      setImmediate(() => sock.end('it'));
    });
    const agent = newAgent();
    expect((await fetchText(agent, `${s.url}/a`)).text).toBe('all of it');
    expect((await fetchText(agent, `${s.url}/b`)).text).toBe('all of it');
    expect(s.connections).toBe(2);
    expect(agent.idleCount).toBe(0);
  });

  it('interim 1xx answers are skipped; 204 has no body; the same length twice is one length', async () => {
    const answers = [
      'HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 103 Early Hints\r\nlink: </x>\r\n\r\nHTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok',
      'HTTP/1.1 204 No Content\r\n\r\n',
      'HTTP/1.1 200 OK\r\ncontent-length: 3, 3\r\n\r\nabc',
    ];
    const s = await rawServer((sock, _r, n) => sock.write(answers[n]!));
    const agent = newAgent();
    expect((await fetchText(agent, `${s.url}/a`)).text).toBe('ok');
    const nc = await fetchText(agent, `${s.url}/b`);
    expect([nc.answer.status, nc.text]).toEqual([204, '']);
    expect((await fetchText(agent, `${s.url}/c`)).text).toBe('abc');
    expect(s.connections).toBe(1);
  });

  it('a chunked body over the cap is refused at the chunk size that passes it, unread', async () => {
    const s = await rawServer((sock) => sock.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n4\r\nabcd\r\nFFFFFF\r\n'));
    const agent = newAgent();
    const budget = new ByteBudget(1000);
    const a = await agent.get(`${s.url}/a`, {}, never());
    const got = await a.read(100, budget);
    expect(got).toMatchObject({ ok: false, reason: 'tooLarge' });
    expect(got.ok === false && got.reason === 'tooLarge' && got.bytes.toString()).toBe('abcd');
    expect(budget.inUse).toBe(0);
    await closed(s.sockets[0]!);
  });
});

describe('HTTP/1.1 reader: named failures', () => {
  /** The failure reading `raw` (sent whole, then the connection held open) ends in. */
  async function failureOf(raw: string | Buffer, agent = newAgent()): Promise<Error & { failure?: string }> {
    const s = await rawServer((sock) => sock.write(raw));
    const e = await failure(fetchText(agent, `${s.url}/x`));
    await closed(s.sockets[0]!); // the connection is given up
    return e;
  }

  it('a head over the cap', async () => {
    const e = await failureOf(`HTTP/1.1 200 OK\r\nx-pad: ${'p'.repeat(70_000)}\r\ncontent-length: 0\r\n\r\n`);
    expect(e).toBeInstanceOf(Http1Error);
    expect(e.failure).toBe('head-too-large');
    expect(e.message).toContain('65536');
    // the cap holds over interim answers too
    const small = newAgent({ maxHeadBytes: 100 });
    expect((await failureOf('HTTP/1.1 103 Early Hints\r\n\r\n'.repeat(5), small)).failure).toBe('head-too-large');
  });

  it('a bad status line, a bad header line', async () => {
    expect((await failureOf('HTTP/2 200 OK\r\ncontent-length: 0\r\n\r\n')).failure).toBe('bad-status-line');
    expect((await failureOf('ICY 200 OK\r\n\r\n')).failure).toBe('bad-status-line');
    expect((await failureOf('HTTP/1.1 20 OK\r\n\r\n')).failure).toBe('bad-status-line');
    expect((await failureOf('HTTP/1.1 200 OK\r\ncontent-length : 0\r\n\r\n')).failure).toBe('bad-header');
    expect((await failureOf('HTTP/1.1 200 OK\r\nx-a: 1\r\n folded\r\ncontent-length: 0\r\n\r\n')).failure).toBe('bad-header');
  });

  it('bad chunk sizes: not hex, too long, no CRLF; chunk data without CRLF', async () => {
    const te = 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n';
    for (const bad of ['zz\r\n', '-1\r\n', '0x10\r\n', '0000000000001\r\nx\r\n', '5\nhello\r\n', '5 x\r\n', '3\r\nabcX\r\n', ';ext\r\n']) {
      const e = await failureOf(te + bad);
      expect([bad, e.failure]).toEqual([bad, 'bad-chunk']);
    }
  });

  it('framing that cannot be known for certain: CL with TE, conflicting or malformed CL, an unknown coding, 101', async () => {
    const cases = [
      'HTTP/1.1 200 OK\r\ncontent-length: 3\r\ntransfer-encoding: chunked\r\n\r\n3\r\nabc\r\n0\r\n\r\n',
      'HTTP/1.1 200 OK\r\ncontent-length: 3\r\ncontent-length: 4\r\n\r\nabcd',
      'HTTP/1.1 200 OK\r\ncontent-length: 3, 4\r\n\r\nabcd',
      'HTTP/1.1 200 OK\r\ncontent-length: +3\r\n\r\nabc',
      'HTTP/1.1 200 OK\r\ncontent-length: 0x3\r\n\r\nabc',
      'HTTP/1.1 200 OK\r\ntransfer-encoding: gzip, chunked\r\n\r\n0\r\n\r\n',
      'HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\n\r\n',
    ];
    for (const c of cases) expect([c, (await failureOf(c)).failure]).toEqual([c, 'bad-framing']);
  });

  it('a body cut short (declared length, chunked) fails naming it; so does a connection closed in the head', async () => {
    const answers = ['HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nshort', 'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nshort\r\n', 'HTTP/1.1 200 OK\r\ncontent-'];
    const s = await rawServer((sock, _r, n) => sock.end(answers[n]!));
    const agent = newAgent();
    const budget = new ByteBudget(1000);
    for (const expected of ['the connection closed before the end of the body', 'the connection closed before the end of the body', "the connection closed before the end of the answer's head"]) {
      const e = await failure(agent.get(`${s.url}/x`, {}, never()).then((a) => a.read(100, budget)));
      expect(e.message).toBe(expected);
      expect(budget.inUse).toBe(0);
    }
  });
});

describe('HTTP/1.1 reader: connections', () => {
  it('keeps one connection for sequential requests and one per concurrent request, each kept', async () => {
    const s = await rawServer((sock, req) => sock.write(`HTTP/1.1 200 OK\r\ncontent-length: ${req.length}\r\n\r\n${req}`));
    const agent = newAgent();
    for (let i = 0; i < 5; i++) expect((await fetchText(agent, `${s.url}/seq/${i}`)).text).toContain(`GET /seq/${i} HTTP/1.1`);
    expect(s.connections).toBe(1);
    await Promise.all([0, 1, 2].map((i) => fetchText(agent, `${s.url}/par/${i}`)));
    expect(s.connections).toBe(3);
    expect(agent.idleCount).toBe(3);
    await Promise.all([0, 1, 2].map((i) => fetchText(agent, `${s.url}/again/${i}`)));
    expect(s.connections).toBe(3);
    // at most maxIdlePerOrigin are kept
    const one = newAgent({ maxIdlePerOrigin: 1 });
    await Promise.all([0, 1].map((i) => fetchText(one, `${s.url}/one/${i}`)));
    expect(one.idleCount).toBe(1);
  });

  it('honours connection: close, and does not keep a connection on which more bytes followed the answer', async () => {
    const answers = [
      'HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: Keep-Alive, Close\r\n\r\nok',
      'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nokHTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nforge',
      'HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok',
    ];
    const s = await rawServer((sock, _r, n) => {
      sock.write(answers[n]!);
      // after the third answer, bytes no request asked for, while the connection is idle
      if (n === 2) setImmediate(() => sock.write('HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nforge'));
    });
    const agent = newAgent();
    expect((await fetchText(agent, `${s.url}/a`)).text).toBe('ok');
    await closed(s.sockets[0]!);
    expect((await fetchText(agent, `${s.url}/b`)).text).toBe('ok');
    await closed(s.sockets[1]!);
    expect((await fetchText(agent, `${s.url}/c`)).text).toBe('ok');
    await closed(s.sockets[2]!);
    expect(agent.idleCount).toBe(0);
    expect(s.connections).toBe(3);
  });

  it('a kept connection the node closes without answering is replaced by a fresh one, once', async () => {
    let closeKept = true;
    const s = await rawServer((sock, _r, n) => {
      // the second request arrives on the kept connection: closed unanswered (the node's idle close racing the request)
      if (n === 1 && closeKept) return sock.destroy();
      if (!closeKept && n >= 2) return sock.destroy();
      sock.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
    });
    const agent = newAgent();
    expect((await fetchText(agent, `${s.url}/a`)).text).toBe('ok');
    expect((await fetchText(agent, `${s.url}/b`)).text).toBe('ok');
    expect(s.connections).toBe(2);
    expect(s.requests.length).toBe(3);
    // kept, then fresh, both closed unanswered: the failure, after one retry only
    closeKept = false;
    const e = await failure(fetchText(agent, `${s.url}/c`));
    expect(e.message).toBe("the connection closed before the end of the answer's head");
    expect(s.connections).toBe(3);
    expect(s.requests.length).toBe(5);
  });

  it('abort mid-body destroys the connection and rejects with the reason; the budget is given back', async () => {
    const s = await rawServer((sock) => sock.write(`HTTP/1.1 200 OK\r\ncontent-length: 100000\r\n\r\n${'x'.repeat(5000)}`));
    const agent = newAgent();
    const budget = new ByteBudget(1_000_000);
    const ctrl = new AbortController();
    const a = await agent.get(`${s.url}/a`, {}, ctrl.signal);
    const reading = a.read(1_000_000, budget, undefined, true);
    const reason = new Error('shutting down');
    // once the body's first bytes are read (the declared length is held meanwhile)
    let heldWhileReading = -1;
    setImmediate(() => {
      heldWhileReading = budget.inUse;
      ctrl.abort(reason);
    });
    await expect(reading).rejects.toBe(reason);
    expect(heldWhileReading).toBe(100_000);
    expect(budget.inUse).toBe(0);
    await closed(s.sockets[0]!);
    expect(agent.idleCount).toBe(0);
  });

  it('a stalled node (no head; head but no body) waits for the signal, whose reason is the rejection', async () => {
    const s = await rawServer((sock, _r, n) => {
      if (n === 1) sock.write('HTTP/1.1 200 OK\r\ncontent-length: 10\r\n\r\nabc');
    });
    const agent = newAgent();
    const noHead = await failure(agent.get(`${s.url}/a`, {}, AbortSignal.timeout(50)));
    expect(noHead.name).toBe('TimeoutError');
    const signal = AbortSignal.timeout(200);
    const a = await agent.get(`${s.url}/b`, {}, signal);
    const noBody = await failure(a.read(100));
    expect(noBody.name).toBe('TimeoutError');
    await closed(s.sockets[0]!);
    await closed(s.sockets[1]!);
  });

  it('the client raw path: a head cut short is LEDGER_NODE_UNREACHABLE naming it, the retry answered; a stall is LEDGER_NODE_TIMEOUT', async () => {
    const s = await rawServer((sock, _r, n) => {
      if (n === 0) sock.end('HTTP/1.1 200');
      else if (n === 1) sock.write('HTTP/1.1 200 OK\r\ncontent-length: 7\r\n\r\n[1,2,3]');
    });
    const client = createLedgerNodeClient({ baseUrl: `${s.url}/v2/mainnet`, timeoutMs: 30_000, retries: 0 });
    const e = (await failure(client.getBytes('/blocks?start=0&end=1'))) as Error & { code: string };
    expect(e.code).toBe('LEDGER_NODE_UNREACHABLE');
    expect(e.message).toContain("request failed: the connection closed before the end of the answer's head");
    expect((await client.getBytes('/blocks?start=0&end=1')).toString()).toBe('[1,2,3]');
    const slow = createLedgerNodeClient({ baseUrl: `${s.url}/v2/mainnet`, timeoutMs: 100, retries: 0 });
    const t = (await failure(slow.getBytes('/blocks?start=1&end=2'))) as Error & { code: string };
    expect(t.code).toBe('LEDGER_NODE_TIMEOUT');
  });
});

/**
 * 'data' events of client sockets (those not accepted by `s`) during `run`: a plain connection of
 * the agent reads into the agent's one buffer and emits none (a read allocates no chunk).
 */
async function clientDataEvents<T>(s: RawServer, run: () => Promise<T>): Promise<{ events: number; result: T }> {
  let events = 0;
  const original = net.Socket.prototype.emit;
  const spy = vi.spyOn(net.Socket.prototype, 'emit').mockImplementation(function (this: Socket, event: string | symbol, ...args: unknown[]) {
    if (event === 'data' && !s.sockets.includes(this)) events++;
    return original.apply(this, [event, ...args] as Parameters<Socket['emit']>);
  });
  try {
    const result = await run();
    return { events, result };
  } finally {
    spy.mockRestore();
  }
}

/** Bytes 0..n-1 of a pattern that differs at every offset within 251 (so a misplaced or stale byte shows). */
const pattern = (n: number, seed: number): Buffer => {
  const b = Buffer.alloc(n);
  for (let i = 0; i < n; i++) b[i] = (i * 31 + seed) % 251;
  return b;
};

describe("HTTP/1.1 reader: plain connections read into the agent's one buffer", () => {
  it('a body of many reads arrives whole and no read makes a chunk of its own', async () => {
    const body = pattern(1_000_000, 7);
    const s = await rawServer((sock) => writeParts(sock, [`HTTP/1.1 200 OK\r\ncontent-length: ${body.length}\r\n\r\n`, ...Array.from({ length: 40 }, (_, i) => body.subarray(i * 25_000, (i + 1) * 25_000))]));
    const agent = newAgent();
    const pool = new BufferPool(1 << 21);
    const { events, result } = await clientDataEvents(s, async () => {
      const a = await agent.get(`${s.url}/b`, {}, never());
      return a.read(2_000_000, new ByteBudget(1 << 21), pool, true);
    });
    expect(result.ok && result.bytes.equals(body)).toBe(true);
    expect(events).toBe(0);
  });

  it('a declared length is read in place, into the body buffer, and the kept connection then reads elsewhere', async () => {
    const first = pattern(1_000_000, 8);
    const second = pattern(700_000, 9);
    const s = await rawServer((sock, _r, n) => {
      const body = n === 0 ? first : second;
      writeParts(sock, [`HTTP/1.1 200 OK\r\ncontent-length: ${body.length}\r\n\r\n`, ...Array.from({ length: 20 }, (_, i) => body.subarray((i * body.length) / 20, ((i + 1) * body.length) / 20))]);
    });
    const agent = newAgent();
    const pool = new BufferPool(1 << 22);
    const budget = new ByteBudget(1 << 22);
    let pushed = 0;
    const original = CappedBuffer.prototype.push;
    const spy = vi.spyOn(CappedBuffer.prototype, 'push').mockImplementation(function (this: CappedBuffer, value: Uint8Array, start = 0, end = value.length) {
      pushed += end - start;
      return original.call(this, value, start, end);
    });
    try {
      const a = await (await agent.get(`${s.url}/1`, {}, never())).read(2_000_000, budget, pool, true);
      expect(a.ok && a.bytes.equals(first)).toBe(true);
      // copied: at most what came with the head and the first read after it; the rest landed in place
      expect(pushed).toBeLessThanOrEqual(2 * 64 * 1024);
      expect(agent.idleCount).toBe(1);
      // the same connection, the first body still held: the second's bytes go to a buffer of their own
      const b = await (await agent.get(`${s.url}/2`, {}, never())).read(2_000_000, budget, pool, true);
      expect(b.ok && b.bytes.equals(second)).toBe(true);
      expect(a.ok && a.bytes.equals(first)).toBe(true);
      expect(s.connections).toBe(1);
    } finally {
      spy.mockRestore();
    }
  });

  it("the body's first bytes, read with the head, are kept while another connection's reads reuse the buffer", async () => {
    const a = pattern(200_000, 1);
    const b = pattern(200_000, 2);
    let restOfA: (() => void) | undefined;
    const s = await rawServer((sock, req) => {
      if (req.startsWith('GET /a ')) {
        // the head and the body's start in one write (one read, as a rule): the rest when the test says
        sock.write(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\ncontent-length: ${a.length}\r\n\r\n`, 'latin1'), a.subarray(0, 30_000)]));
        restOfA = () => sock.write(a.subarray(30_000));
      } else sock.write(Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\ncontent-length: ${b.length}\r\n\r\n`, 'latin1'), b]));
    });
    const agent = newAgent();
    const { events } = await clientDataEvents(s, async () => {
      const answerA = await agent.get(`${s.url}/a`, {}, never());
      // B on a second connection, read whole while A's body waits to be asked for
      const gotB = await (await agent.get(`${s.url}/b`, {}, never())).read(1_000_000);
      expect(gotB.ok && gotB.bytes.equals(b)).toBe(true);
      const reading = answerA.read(1_000_000);
      restOfA!();
      const gotA = await reading;
      expect(gotA.ok && gotA.bytes.equals(a)).toBe(true);
    });
    expect(s.connections).toBe(2);
    expect(events).toBe(0);
  });

  it('chunked framing across read boundaries, on a kept connection, then a Content-Length answer on it', async () => {
    // chunk sizes that put chunk-size lines and CRLFs across the 64 KiB reads, written at once
    const sizes = [65_530, 1, 65_536, 3, 65_537, 100_000, 7, 131_072];
    const body = pattern(sizes.reduce((n, k) => n + k, 0), 3);
    let at = 0;
    const parts: Buffer[] = [Buffer.from('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n', 'latin1')];
    for (const k of sizes) {
      parts.push(Buffer.from(`${k.toString(16)};x=1\r\n`, 'latin1'), body.subarray(at, at + k), Buffer.from('\r\n', 'latin1'));
      at += k;
    }
    parts.push(Buffer.from('0\r\nx-trailer: t\r\n\r\n', 'latin1'));
    const chunked = Buffer.concat(parts);
    const plain = pattern(150_000, 4);
    const s = await rawServer((sock, _r, n) =>
      sock.write(n < 2 ? chunked : Buffer.concat([Buffer.from(`HTTP/1.1 200 OK\r\ncontent-length: ${plain.length}\r\n\r\n`, 'latin1'), plain])),
    );
    const agent = newAgent();
    const { events } = await clientDataEvents(s, async () => {
      for (let i = 0; i < 2; i++) {
        const got = await (await agent.get(`${s.url}/c${i}`, {}, never())).read(1_000_000);
        expect(got.ok && got.bytes.equals(body)).toBe(true);
        expect(agent.idleCount).toBe(1);
      }
      const got = await (await agent.get(`${s.url}/plain`, {}, never())).read(1_000_000, new ByteBudget(1 << 20), new BufferPool(1 << 20), true);
      expect(got.ok && got.bytes.equals(plain)).toBe(true);
    });
    expect(s.connections).toBe(1);
    expect(agent.idleCount).toBe(1);
    expect(events).toBe(0);
  });

  it('a body over the cap is refused while it streams (chunked, close-delimited), its start kept as the excerpt', async () => {
    const big = pattern(600_000, 5);
    const chunks: Buffer[] = [];
    for (let i = 0; i < big.length; i += 50_000) chunks.push(Buffer.from('c350\r\n', 'latin1'), big.subarray(i, i + 50_000), Buffer.from('\r\n', 'latin1'));
    const s = await rawServer((sock, _r, n) =>
      n === 0
        ? sock.write(Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n', 'latin1'), ...chunks]))
        : sock.end(Buffer.concat([Buffer.from('HTTP/1.1 200 OK\r\n\r\n', 'latin1'), big])),
    );
    const agent = newAgent();
    const budget = new ByteBudget(1 << 20);
    const { events } = await clientDataEvents(s, async () => {
      for (const path of ['/chunked', '/close']) {
        const got = await (await agent.get(`${s.url}${path}`, {}, never())).read(200_000, budget);
        expect(got).toMatchObject({ ok: false, reason: 'tooLarge' });
        expect(got.ok === false && got.reason === 'tooLarge' && got.bytes.equals(big.subarray(0, 64 * 1024))).toBe(true);
        expect(budget.inUse).toBe(0);
      }
    });
    await closed(s.sockets[0]!);
    await closed(s.sockets[1]!);
    expect(agent.idleCount).toBe(0);
    expect(events).toBe(0);
  });
});

describe('HTTP/1.1 reader over TLS', () => {
  async function selfSigned(names: { type: 'ip' | 'dns'; value: string }[]): Promise<{ key: string; cert: string }> {
    const alg = { name: 'ECDSA', namedCurve: 'P-256', hash: 'SHA-256' } as const;
    x509.cryptoProvider.set(webcrypto as unknown as typeof globalThis.crypto);
    const keys = await webcrypto.subtle.generateKey(alg, true, ['sign', 'verify']);
    const cert = await x509.X509CertificateGenerator.createSelfSigned({
      serialNumber: '01',
      name: `CN=${names[0]!.value}`,
      notBefore: new Date(Date.now() - 60_000),
      notAfter: new Date(Date.now() + 3_600_000),
      keys,
      signingAlgorithm: alg,
      extensions: [new x509.SubjectAlternativeNameExtension(names)],
    });
    const pkcs8 = Buffer.from(await webcrypto.subtle.exportKey('pkcs8', keys.privateKey));
    return { key: `-----BEGIN PRIVATE KEY-----\n${pkcs8.toString('base64')}\n-----END PRIVATE KEY-----\n`, cert: cert.toString('pem') };
  }

  it('reads over https with the node certificate verified; a certificate not trusted, or for another name, fails', async () => {
    const pki = await selfSigned([{ type: 'ip', value: '127.0.0.1' }]);
    const s = await rawServer((sock) => sock.write('HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n2\r\nok\r\n0\r\n\r\n'), pki);
    const trusting = newAgent({ ca: pki.cert });
    expect((await fetchText(trusting, `${s.url}/a`)).text).toBe('ok');
    expect((await fetchText(trusting, `${s.url}/b`)).text).toBe('ok');
    expect(s.connections).toBe(1);
    // the default CA store does not know the node's certificate
    const e = await failure(fetchText(newAgent(), `${s.url}/c`));
    expect(e.code).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
    // another certificate trusted
    const other = await selfSigned([{ type: 'ip', value: '127.0.0.1' }]);
    expect((await failure(fetchText(newAgent({ ca: other.cert }), `${s.url}/d`))).code).toBe('DEPTH_ZERO_SELF_SIGNED_CERT');
    // the node's certificate trusted, but made out to another name
    const misnamed = await selfSigned([{ type: 'dns', value: 'node.example' }]);
    const s2 = await rawServer((sock) => sock.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'), misnamed);
    expect((await failure(fetchText(newAgent({ ca: misnamed.cert }), `${s2.url}/e`))).code).toBe('ERR_TLS_CERT_ALTNAME_INVALID');
    expect(s2.requests.length).toBe(0);
  });
});

describe('BodyDecoder', () => {
  it('Content-Length: the exact end, bytes after it left alone; close-delimited: only the end closes it', () => {
    const framing: Framing = { kind: 'length', length: 5 };
    const d = new BodyDecoder(framing, 100, 100);
    const got: string[] = [];
    const on = (c: Buffer, s: number, e: number): boolean => (got.push(c.toString('latin1', s, e)), true);
    expect(d.feed(Buffer.from('xxab'), 2, on)).toBe(NEED_MORE);
    expect(d.feed(Buffer.from('cdeFG'), 0, on)).toBe(3);
    expect(got.join('')).toBe('abcde');
    expect(d.end()).toBe(false);
    const c = new BodyDecoder({ kind: 'close' }, 100, 100);
    expect(c.feed(Buffer.from('abc'), 0, on)).toBe(NEED_MORE);
    expect(c.end()).toBe(true);
  });
});
