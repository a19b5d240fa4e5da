/**
 * One hidden class for what every request's path shares (issue 35), on the real app over real
 * sockets. Functions that see objects of two classes turn polymorphic and slower for good: one
 * GET /metrics among the POST /decodeReport load deoptimised 47 of Node's, Fastify's and the
 * app's functions (36 for a wrong map), and the HTTP thread then took 45–110 µs more a request
 * (BENCHMARKS.md, issue 35). Checked:
 * - the cause found: a connection that served only a GET kept a socket without the cached peer
 *   address, which the app reads for a request with a body (socketShape.ts); every socket now ends
 *   with the same own properties in the same order, whatever its connection served, over HTTP and
 *   over HTTPS (the TLS sockets);
 * - a cause that is not there and must not come: Fastify gives each encapsulated plugin its own
 *   Request and Reply classes but, while no plugin decorates them, builds every route's objects
 *   from the root's (route.js walks an undecorated class up to its parent); a decorator in a route
 *   plugin would split them.
 */
import http from 'node:http';
import https from 'node:https';
import type { Socket } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/server/app.js';
import { createMetrics } from '../../src/observability/metrics.js';
import type { VerifierService } from '../../src/verify/types.js';
import { selfSignedTls } from '../support/selfSignedTls.js';

const outcome = { reportValid: false, outcome: 'invalid', error: { code: 'STRUCT_SYNTAX', message: 'stub' }, checks: [] };
const service = {
  decode: () => ({ success: false }),
  decodeReport: async () => outcome,
  verifyBytes: async () => outcome,
  checkResponse: async () => ({ valid: true }),
} as unknown as VerifierService;

const REQUESTS: [method: string, path: string, body?: string][] = [
  ['POST', '/decodeReport', JSON.stringify({ userData: 'x', report: 'y' })],
  ['GET', '/metrics'],
  ['GET', '/healthz'],
  ['POST', '/decode', JSON.stringify({ userData: 'x' })],
  ['GET', '/info'],
];

// Over HTTP, and over HTTPS, where a request's socket is the TLS socket.
describe.each([false, true])('the hot path sees one class of each object (TLS: %s)', (useTls) => {
  let app: FastifyInstance;
  /** The CA a client trusts (HTTPS) and the server's port. */
  let ca: string | undefined;
  let port: number;
  /** Each request's socket, by `METHOD path`, as the server saw it. */
  const sockets = new Map<string, Socket>();
  /** The prototypes of each route's Fastify request and reply objects, by `METHOD path`. */
  const classes = new Map<string, { request: object; reply: object }>();

  /** One request on a connection of its own (no agent), answered in full. */
  function request(method: string, path: string, body?: string): Promise<number> {
    return new Promise((resolve, reject) => {
      const headers: Record<string, string | number> = body === undefined ? {} : { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) };
      const opts = { host: '127.0.0.1', port, method, path, agent: false, headers, ...(ca ? { ca } : {}) };
      const req = (useTls ? https : http).request(opts, (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode!));
      });
      req.on('error', reject);
      req.end(body);
    });
  }

  beforeAll(async () => {
    const tls = useTls ? await selfSignedTls() : undefined;
    ca = tls?.certPem;
    app = await buildApp({ service, info: {} as never, metrics: createMetrics(), ...(tls ? { https: { key: Buffer.from(tls.keyPem), cert: Buffer.from(tls.certPem) } } : {}) });
    app.addHook('onRequest', (req, reply, done) => {
      classes.set(`${req.method} ${req.url}`, { request: Object.getPrototypeOf(req), reply: Object.getPrototypeOf(reply) });
      done();
    });
    app.server.on('request', (req: http.IncomingMessage) => sockets.set(`${req.method} ${req.url}`, req.socket as Socket));
    await app.listen({ port: 0, host: '127.0.0.1' });
    port = (app.server.address() as { port: number }).port;
    for (const [method, path, body] of REQUESTS) await request(method, path, body);
  });
  afterAll(async () => {
    await app?.close();
  });

  it('every route was reached', () => {
    expect([...sockets.keys()].sort()).toEqual(REQUESTS.map(([m, p]) => `${m} ${p}`).sort());
    expect([...classes.keys()].sort()).toEqual(REQUESTS.map(([m, p]) => `${m} ${p}`).sort());
  });

  it('a socket that served a GET has the same own properties, in the same order, as one that served a POST', () => {
    const keys = (s: Socket) => Reflect.ownKeys(s).map(String);
    const post = keys(sockets.get('POST /decodeReport')!);
    // The peer address cached on the socket: the property that told them apart.
    expect(post).toContain('_peername');
    for (const [name, socket] of sockets) expect(keys(socket), name).toEqual(post);
  });

  it("every route's requests and replies are of the root instance's classes", () => {
    const first = classes.get('POST /decodeReport')!;
    for (const [name, c] of classes) {
      expect(c.request, name).toBe(first.request);
      expect(c.reply, name).toBe(first.reply);
    }
  });
});
