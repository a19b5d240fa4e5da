/**
 * An upstream that answers a redirect (issue 48, item 2): no credential leaves for the other
 * origin, and the redirected answer is never taken as the service's. A PCCS and a ledger node
 * that answer every request 302 or 307 to another origin (`localhost` against `127.0.0.1`, a
 * real second server that records what reaches it), over the real service: the typeA verdict is
 * unverifiable naming the redirect, /status/pccs says not reachable, a transaction lookup fails
 * with the node's error, and the ledger client's raw-bytes path (its own HTTP/1.1 reader, used for
 * /blocks) refuses the redirect like its fetch path.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedgerNodeClient } from '../../src/ledger/node/client.js';
import { postJson, startServer, type RunningServer } from '../support/server.js';
import { examples, targets } from '../support/nitro-pair.js';
import { rejection } from '../support/errors.js';

const SGX_MRENCLAVE = '58e26caa30264d74ee496f370cdf0433a82808f13fb26b885d3f1e54dc7a34df';
const PCCS_KEY = 'pccs-key-5f1c';
const NODE_KEY = 'node-key-93ab';

interface Recorder {
  url: string;
  seen: { url: string; headers: http.IncomingHttpHeaders }[];
  close(): Promise<void>;
}

/** A server that records every request and answers `answer(url)`. */
async function recorder(answer: (url: string) => { status: number; headers?: Record<string, string>; body?: string }, host = '127.0.0.1'): Promise<Recorder> {
  const seen: Recorder['seen'] = [];
  const server = http.createServer((req, res) => {
    seen.push({ url: req.url ?? '', headers: req.headers });
    const a = answer(req.url ?? '');
    res.writeHead(a.status, { 'content-type': 'application/json', ...a.headers });
    res.end(a.body ?? '');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return { url: `http://${host}:${port}`, seen, close: () => new Promise((r) => server.close(() => r())) };
}

let other: Recorder;
let pccs: Recorder;
let node: Recorder;
let srv: RunningServer;
const saved = { pccs: process.env.PCCS_API_KEY, node: process.env.LEDGER_NODE_API_KEY };

beforeAll(async () => {
  // The other origin: it answers what a PCCS or a node would, as an attacker's host would.
  other = await recorder(() => ({ status: 200, body: '[]' }), 'localhost');
  let n = 0;
  pccs = await recorder((url) => ({ status: n++ % 2 === 0 ? 302 : 307, headers: { location: `${other.url}${url}` } }));
  node = await recorder((url) => ({ status: n++ % 2 === 0 ? 307 : 302, headers: { location: `${other.url}${url}` } }));
  process.env.PCCS_API_KEY = PCCS_KEY;
  process.env.LEDGER_NODE_API_KEY = NODE_KEY;
  srv = await startServer({
    verificationTime: '2026-09-23T00:00:00Z',
    uniqueIdTarget: SGX_MRENCLAVE,
    pcrValuesTarget: targets.pcrValuesTarget,
    pccsUrl: `${pccs.url}/sgx/certification/v4/`,
    liveCheck: { skip: true, apiBaseUrl: `${node.url}/v2/mainnet`, timeoutMs: 5000 },
  });
});

afterAll(async () => {
  await srv?.close();
  await Promise.all([other, pccs, node].map((r) => r?.close()));
  for (const [k, v] of [['PCCS_API_KEY', saved.pccs], ['LEDGER_NODE_API_KEY', saved.node]] as const) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

describe('a PCCS that redirects', () => {
  it('typeA is unverifiable naming the redirect, and nothing reaches the other origin', async () => {
    const r = await postJson(`${srv.url}/decodeReport`, examples.sgx.request);
    expect(r.status).toBe(200);
    expect(r.body.outcome).toBe('unverifiable');
    expect(r.body.errorCode).toBe('PCCS_HTTP_ERROR');
    expect(r.body.errorString).toMatch(/HTTP 30[27] .*a redirect to http:\/\/localhost:\d+\/? that is not followed/);
    expect(pccs.seen.length).toBeGreaterThan(0);
    expect(pccs.seen.every((s) => s.headers['ocp-apim-subscription-key'] === PCCS_KEY)).toBe(true);
    expect(other.seen).toEqual([]);
  });

  it('/status/pccs says not reachable', async () => {
    const s = (await (await fetch(`${srv.url}/status/pccs`)).json()) as { reachable: boolean; error?: string };
    expect(s.reachable).toBe(false);
    expect(s.error).toMatch(/redirect, not followed/);
    expect(other.seen).toEqual([]);
  });
});

describe('a ledger node that redirects', () => {
  it('a transaction lookup fails with the node error, and neither the key nor the request reaches the other origin', async () => {
    const r = await fetch(`${srv.url}/ledger/transactions/at1${'q'.repeat(58)}`);
    const body = (await r.json()) as { errorCode: string; errorString: string };
    expect(r.status).toBe(502);
    expect(body.errorCode).toBe('LEDGER_NODE_HTTP_ERROR');
    expect(body.errorString).toMatch(/status 30[27], a redirect to http:\/\/localhost:\d+\/? that is not followed/);
    expect(node.seen.length).toBeGreaterThan(0);
    expect(node.seen.every((s) => s.headers['x-api-key'] === NODE_KEY)).toBe(true);
    expect(other.seen).toEqual([]);
  });

  it('the raw-bytes reader (its own HTTP/1.1 client, the /blocks path) refuses the redirect as the fetch path does', async () => {
    const client = createLedgerNodeClient({ baseUrl: `${node.url}/v2/mainnet`, timeoutMs: 5000, retries: 0, headers: { 'X-API-Key': NODE_KEY } });
    const e = await rejection(client.getBytes('/blocks?start=0&end=1'));
    expect(e).toMatchObject({ code: 'LEDGER_NODE_HTTP_ERROR' });
    expect(e.message).toMatch(/a redirect to http:\/\/localhost:\d+\/? that is not followed/);
    const json = await rejection(client.getJson('/block/height/latest'));
    expect(json).toMatchObject({ code: 'LEDGER_NODE_HTTP_ERROR' });
    expect(other.seen).toEqual([]);
  });
});
