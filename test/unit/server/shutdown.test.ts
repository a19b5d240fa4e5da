/**
 * Draining the HTTP server's connections at shutdown (src/server/shutdown.ts), on a real
 * http.Server and real sockets: idle keep-alive connections and connections whose request line and
 * headers are still coming are closed at once (Node no longer times them out once the server is
 * closing); the answer of a request in flight is sent with `Connection: close`; a request whose
 * body is still coming is cut when its time limit is over; destroyAll() ends the rest.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import { connect, type AddressInfo, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { Connections } from '../../../src/server/shutdown.js';
import { until } from '../../support/wait.js';

let server: Server | undefined;
afterEach(async () => {
  server?.closeAllConnections();
  await new Promise((r) => server?.close(r) ?? r(undefined));
  server = undefined;
});

/** A server whose /slow answers only when `release` is called; no time limits of Node's own. */
async function serve(): Promise<{ port: number; conns: Connections; release: () => void; arrived: Promise<void> }> {
  let release!: () => void;
  const released = new Promise<void>((r) => (release = r));
  let arrivedNow!: () => void;
  const arrived = new Promise<void>((r) => (arrivedNow = r));
  server = createServer({ headersTimeout: 0, requestTimeout: 0 }, (req: IncomingMessage, res: ServerResponse) => {
    if (req.url === '/slow') {
      arrivedNow();
      void released.then(() => res.end('done'));
      return;
    }
    req.resume();
    req.on('end', () => res.end('ok'));
  });
  const conns = new Connections(server, false);
  await new Promise<void>((r) => server!.listen(0, '127.0.0.1', () => r()));
  return { port: (server.address() as AddressInfo).port, conns, release, arrived };
}

function raw(port: number, text: string): { socket: Socket; data: () => string; closed: Promise<void> } {
  const socket = connect(port, '127.0.0.1');
  let data = '';
  socket.on('data', (d) => (data += d));
  socket.on('error', () => undefined);
  socket.write(text);
  return { socket, data: () => data, closed: new Promise((r) => socket.once('close', () => r())) };
}

/** Resolves once `socket` has read something (the server answered). */
const answered = (c: ReturnType<typeof raw>) => new Promise<void>((r) => (c.data() ? r() : c.socket.once('data', () => r())));

describe('connection drain', () => {
  it('closes idle and half-sent connections at once and answers the request in flight with Connection: close', async () => {
    const { port, conns, release, arrived } = await serve();
    const idle = raw(port, 'GET /fast HTTP/1.1\r\nHost: x\r\n\r\n');
    await answered(idle);
    const halfHeaders = raw(port, 'GET /fast HTTP/1.1\r\nHost: x\r\n');
    const busy = raw(port, 'GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await arrived;
    // The server has accepted all three connections.
    await until('three connections', async () => (await new Promise<number>((r) => server!.getConnections((_e, n) => r(n)))) === 3);
    server!.close();
    expect(conns.drain(60_000)).toEqual({ closed: 2, inFlight: 1 });
    await idle.closed;
    await halfHeaders.closed;
    expect(halfHeaders.data()).toBe('');
    release();
    await busy.closed;
    expect(busy.data()).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
    expect(busy.data().toLowerCase()).toContain('connection: close');
    expect(busy.data()).toMatch(/done$/);
  });

  it('cuts a request whose body is still coming when its time limit is over', async () => {
    const { port, conns } = await serve();
    const slowBody = raw(port, 'POST /upload HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\n0123456789');
    await until('the upload to arrive', () => conns.inFlight === 1);
    server!.close();
    expect(conns.drain(200)).toEqual({ closed: 0, inFlight: 1 });
    await slowBody.closed;
    expect(slowBody.data()).toBe('');
  });

  it('destroyAll ends what is left and counts the requests cut', async () => {
    const { port, conns, arrived } = await serve();
    const busy = raw(port, 'GET /slow HTTP/1.1\r\nHost: x\r\n\r\n');
    await arrived;
    server!.close();
    conns.drain(60_000);
    expect(conns.destroyAll()).toBe(1);
    await busy.closed;
  });
});
