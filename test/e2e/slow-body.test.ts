/**
 * Slow bodies cannot keep others out (issue 32 item 1), on the real service over real sockets,
 * with the bundled config (maxInflightBytes 2 MiB, bodyLimit 256 KiB):
 * - 8 clients that declare `Content-Length: 262144` on POST /verify and send one byte hold one
 *   byte each, not 2 MiB: legitimate /decodeReport requests are answered meanwhile; the slow
 *   ones are answered 408 HTTP_REQUEST_TIMEOUT on the error contract and closed at requestTimeoutMs;
 * - one address that sends 8 bodies to their last byte and stalls holds at most its share
 *   (maxInflightBytesPerClient, half the bound): its bodies past the share are refused 503
 *   HTTP_INFLIGHT_LIMIT, and another address's requests are answered.
 * Nothing waits on a clock: each step waits for an event (the server's 'request', an answer, a close).
 */
import { readFileSync } from 'node:fs';
import { connect, type Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startServer, type RunningServer } from '../support/server.js';

let s: RunningServer;
let port: number;
const open: Socket[] = [];
beforeAll(async () => {
  // requestTimeoutMs well above the 1 s a request waits for room before a 503.
  s = await startServer({ ...JSON.parse(readFileSync('config.json', 'utf8')), headersTimeoutMs: 5000, requestTimeoutMs: 6000, shutdownGraceMs: 7000 });
  port = Number(new URL(s.url).port);
});
afterAll(async () => {
  for (const c of open) c.destroy();
  await s?.close();
});

interface Slow {
  socket: Socket;
  /** The first answer's status line and body, once the server answered or closed. */
  answer: Promise<{ status: number; headers: string; body: any; closed: Promise<void> }>;
}

/** A raw POST whose head and the first `sent` bytes of its body are written; the rest never comes. */
function slowPost(tag: string, path: string, declared: number, sent: string, localAddress = '127.0.0.1'): Slow {
  const socket = connect({ port, host: '127.0.0.1', localAddress });
  open.push(socket);
  let text = '';
  const closed = new Promise<void>((r) => socket.once('close', () => r()));
  socket.setEncoding('latin1');
  socket.on('error', () => undefined);
  const answer = new Promise<{ status: number; headers: string; body: any; closed: Promise<void> }>((resolve) => {
    const done = () => {
      const [head = '', rest = ''] = text.split('\r\n\r\n', 2);
      let body: any = rest;
      try {
        body = JSON.parse(rest);
      } catch {
        /* incomplete or none */
      }
      resolve({ status: Number(head.split(' ')[1] ?? 0), headers: head, body, closed });
    };
    socket.on('data', (d) => {
      text += d;
      const end = text.indexOf('\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(text)?.[1];
      if (end >= 0 && length !== undefined && text.length >= end + 4 + Number(length)) done();
    });
    socket.once('close', done);
  });
  socket.write(`POST ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nX-Test: ${tag}\r\nContent-Length: ${declared}\r\n\r\n${sent}`);
  return { socket, answer };
}

/** Resolves once the server has received the heads of `n` requests tagged `tag`. */
function requestsArrived(tag: string, n: number): Promise<void> {
  return new Promise((resolve) => {
    let seen = 0;
    const on = (req: { headers: Record<string, unknown> }) => {
      if (req.headers['x-test'] === tag && ++seen === n) {
        s.app.server.off('request', on);
        resolve();
      }
    };
    s.app.server.on('request', on);
  });
}

async function legitimate(n: number): Promise<number[]> {
  const body = JSON.stringify({ userData: 'A'.repeat(20_000), report: 'B'.repeat(20_000) });
  return Promise.all(
    Array.from({ length: n }, async () => {
      const r = await fetch(`${s.url}/decodeReport`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      await r.arrayBuffer();
      return r.status;
    }),
  );
}

describe('slow request bodies', () => {
  it('bodies promised but not sent hold nothing: others are answered; the slow ones get 408 and are closed', async () => {
    const arrived = requestsArrived('slow', 8);
    const slow = Array.from({ length: 8 }, () => slowPost('slow', '/verify', 262_144, '{'));
    await arrived;
    // Before the fix the 8 promises held the whole 2 MiB: these waited 1 s and got 503.
    expect(await legitimate(20)).toEqual(Array(20).fill(200));
    for (const c of slow) {
      const a = await c.answer;
      expect(a.status).toBe(408);
      expect(a.body.errorCode).toBe('HTTP_REQUEST_TIMEOUT');
      expect(a.headers).toMatch(/x-content-type-options: nosniff/i);
      await a.closed;
    }
  }, 60_000);

  it('one address that sends bodies to their last byte and stalls holds at most its share', async () => {
    const body = `{"userData":"${'x'.repeat(262_143 - 13)}`;
    expect(body.length).toBe(262_143);
    const stalled = Array.from({ length: 8 }, () => slowPost('stall', '/verify', 262_144, body, '127.0.0.2'));
    // Its share (1 MiB) holds 4 of them; a body past it waits 1 s for room of its own address, then is refused.
    const first = await Promise.race(stalled.map((c) => c.answer));
    expect([first.status, first.body.errorCode]).toEqual([503, 'HTTP_INFLIGHT_LIMIT']);
    expect(first.body.errorMessage).toMatch(/your address holds \d+ bytes of requests \(maxInflightBytesPerClient 1048576\)/);
    expect(first.headers).toMatch(/retry-after: 1/i);
    await first.closed;
    // Another address is answered meanwhile.
    expect(await legitimate(8)).toEqual(Array(8).fill(200));
    for (const c of stalled) c.socket.destroy();
  }, 60_000);
});
