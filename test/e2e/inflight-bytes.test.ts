/**
 * The bound on request bytes held at once (maxInflightBytes, counted as the body arrives), on the
 * real app over real sockets: a request whose body would pass the bound waits, the rest of its body
 * unread; it is taken as soon as an answer frees room, else after its wait (WAIT_MS) answered 503 with Retry-After: 1 and HTTP_INFLIGHT_LIMIT in
 * the route's failure shape (no verdict), while the requests already held are answered normally;
 * a request that fits is taken; requests without a body are not counted; one request is always
 * taken when none is held. The service holds a request in its handler until the test releases it;
 * the only time that passes is the refused request's own wait, whose length is not asserted.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/server/app.js';
import type { VerifierService } from '../../src/verify/types.js';

const MAX = 100_000;
let app: FastifyInstance;
let url: string;
/** Requests held in the service, by their userData marker, released by the test. */
const gates = new Map<string, { entered: Promise<void>; enter: () => void; release: () => void; released: Promise<void> }>();
function gate(name: string) {
  let enter!: () => void;
  let release!: () => void;
  const g = { entered: new Promise<void>((r) => (enter = r)), released: new Promise<void>((r) => (release = r)), enter: () => enter(), release: () => release() };
  gates.set(name, g);
  return g;
}

const outcome = { reportValid: false, outcome: 'invalid', error: { code: 'STRUCT_SYNTAX', message: 'stub' }, checks: [] };
const service = {
  decode: () => ({ success: false }),
  async decodeReport(userData: string) {
    const g = gates.get(userData.slice(0, 8));
    if (g) {
      g.enter();
      await g.released;
    }
    return outcome;
  },
  verifyBytes: async () => outcome,
  checkResponse: async () => ({ valid: true }),
} as unknown as VerifierService;

beforeAll(async () => {
  app = await buildApp({ service, info: {} as never, maxInflightBytes: MAX });
  await app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(app.server.address() as { port: number }).port}`;
});
afterAll(async () => {
  for (const g of gates.values()) g.release();
  await app?.close();
});

/** A /decodeReport body of about `size` bytes whose userData starts with `marker` (8 characters). */
const body = (marker: string, size: number) => JSON.stringify({ userData: marker.padEnd(size - 30, 'x'), report: 'r' });
async function post(path: string, text: string, headers: Record<string, string> = {}): Promise<{ status: number; retryAfter: string | null; connection: string | null; body: any }> {
  const r = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body: text });
  return { status: r.status, retryAfter: r.headers.get('retry-after'), connection: r.headers.get('connection'), body: await r.json() };
}

describe('maxInflightBytes', () => {
  it('a request that does not fit waits, unread, and is refused after its wait; one that fits is taken', async () => {
    const a = gate('holdAAAA');
    const held = post('/decodeReport', body('holdAAAA', 60_000));
    await a.entered;
    // 60 000 + 50 000 > 100 000: no room comes for its last bytes, refused after its wait, in /decodeReport's failure shape.
    const refused = await post('/decodeReport', body('otherBBB', 50_000));
    expect(refused.status).toBe(503);
    expect(refused.retryAfter).toBe('1');
    expect(refused.body).toEqual({
      reportValid: false,
      outcome: 'unverifiable',
      errorCode: 'HTTP_INFLIGHT_LIMIT',
      errorString: expect.stringMatching(/^the server holds \d+ bytes of requests \(maxInflightBytes 100000\); this request had \d+ bytes of its body in and waited 1000 ms for room: retry shortly$/),
    });
    // Its body was not read to its end: the connection was closed (fetch gives no access to it; the header says so).
    expect(refused.connection).toBe('close');
    // /verify answers in its own shape.
    const batch = JSON.stringify({ reports: [{ padding: 'x'.repeat(50_000) }] });
    const verify = await post('/verify', batch);
    expect([verify.status, verify.retryAfter, verify.body]).toEqual([503, '1', { success: false, validReports: [], errorMessage: expect.any(String), errorCode: 'HTTP_INFLIGHT_LIMIT' }]);
    // 60 000 + 30 000 fits: taken and answered.
    expect((await post('/decodeReport', body('otherCCC', 30_000))).status).toBe(200);
    // Requests without a body are not counted.
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    a.release();
    expect((await held).status).toBe(200);
    // The held bytes were freed with the answers: the refused request is taken now.
    expect((await post('/decodeReport', body('otherBBB', 50_000))).status).toBe(200);
  });

  it('a waiting request is taken as soon as an answer frees room, in arrival order', async () => {
    const a = gate('holdFFFF');
    const first = post('/decodeReport', body('holdFFFF', 60_000));
    await a.entered;
    const b = gate('holdGGGG');
    // Does not fit: waits. The server's 'request' listeners run after Fastify's, whose onRequest
    // hooks have queued it by then.
    const arrived = new Promise<void>((r) => app.server.on('request', (req: { headers: Record<string, unknown> }) => req.headers['x-test'] === 'waiting' && r()));
    const waiting = post('/decodeReport', body('holdGGGG', 50_000), { 'x-test': 'waiting' });
    await arrived;
    // The answer of the first frees room: the waiting one is taken (its handler runs).
    a.release();
    expect((await first).status).toBe(200);
    await b.entered;
    b.release();
    expect((await waiting).status).toBe(200);
  });

  it('takes one request larger than the bound when none is held', async () => {
    const g = gate('holdDDDD');
    const big = post('/decodeReport', body('holdDDDD', 150_000));
    await g.entered;
    expect((await post('/decodeReport', body('otherEEE', 20_000))).body.errorCode).toBe('HTTP_INFLIGHT_LIMIT');
    g.release();
    expect((await big).status).toBe(200);
  });
});
