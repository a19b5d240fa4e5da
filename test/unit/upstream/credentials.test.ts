/**
 * Credentials of the upstream services (issue 25, item 1): a configured URL with userinfo is refused
 * at config load naming the key and the supported way (an environment variable sent as a header),
 * without showing the credential; a URL's query is sent to its own service with every request and
 * never shown; the API keys of PCCS_API_KEY and LEDGER_NODE_API_KEY go to their own service only.
 */
import { getEventListeners } from 'node:events';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resolveConfig } from '../../../src/config/load.js';
import { createLedgerNodeClient } from '../../../src/ledger/node/client.js';
import { ledgerNodeHeaders, pccsHeaders } from '../../../src/upstream/credentials.js';
import { serviceFetch, shutdownReason } from '../../../src/upstream/serviceFetch.js';
import { reply, startLedgerNode, type LedgerNode } from '../../support/ledger-node.js';
import { rejection } from '../../support/errors.js';

const SECRET = 's3cr3t-XYZ';
const base = { port: 0, liveCheck: { skip: true } };

function problems(raw: Record<string, unknown>): string[] {
  try {
    resolveConfig({ ...base, ...raw }, '/etc/verifier');
  } catch (e) {
    return (e as Error).message.split('\n');
  }
  return [];
}

describe('configured URLs', () => {
  it('refuses userinfo in every URL key, naming the key and how to pass the credential, never the credential', () => {
    const lines = problems({
      pccsUrl: `https://user:${SECRET}@pccs.example/sgx/certification/v4/?k=${SECRET}`,
      liveCheck: { skip: true, apiBaseUrl: `https://${SECRET}@node.example/v1/mainnet` },
    });
    expect(lines.sort()).toEqual([
      'config: liveCheck.apiBaseUrl = "https://node.example/v1/mainnet" (credentials and query not shown): a URL must not hold credentials (user:password@); pass the ledger node\'s API key in the environment variable LEDGER_NODE_API_KEY (sent in the header named by liveCheck.apiKeyHeader, default X-API-Key)',
      'config: pccsUrl = "https://pccs.example/sgx/certification/v4/" (credentials and query not shown): a URL must not hold credentials (user:password@); pass an Intel PCS subscription key in the environment variable PCCS_API_KEY (sent as the Ocp-Apim-Subscription-Key header)',
    ]);
    expect(lines.join('\n')).not.toContain(SECRET);
  });

  it('shows no query or userinfo in a schema error of a URL key either', () => {
    const lines = problems({ pccsUrl: `ftp://pccs.example/v4/?key=${SECRET}`, liveCheck: { skip: true, apiBaseUrl: `${SECRET}@node.example?k=${SECRET}` } });
    expect(lines.length).toBeGreaterThan(0);
    expect(lines.join('\n')).not.toContain(SECRET);
    expect(lines.some((l) => l.startsWith('config: pccsUrl = "ftp://pccs.example/v4/" (credentials and query not shown)'))).toBe(true);
  });

  it('accepts a query (sent, never shown) and keeps it when the path gets its trailing slash', () => {
    const c = resolveConfig({ ...base, pccsUrl: `https://pccs.example/sgx/certification/v4?key=${SECRET}`, liveCheck: { skip: true, apiBaseUrl: `https://node.example/v1/mainnet?key=${SECRET}` } }, '/');
    expect(c.pccsUrl).toBe(`https://pccs.example/sgx/certification/v4/?key=${SECRET}`);
    expect(c.liveCheck.apiKeyHeader).toBe('X-API-Key');
  });

  it('names a header name that is not a token', () => {
    expect(problems({ liveCheck: { skip: true, apiKeyHeader: 'X Key' } })).toEqual(["config: liveCheck.apiKeyHeader = \"X Key\": expected a value matching ^[A-Za-z0-9!#$%&'*+.^_`|~-]+$"]);
  });
});

describe('API keys from the environment', () => {
  it('become the service header, nothing when unset or empty', () => {
    expect(pccsHeaders({ PCCS_API_KEY: 'k1' })).toEqual({ 'Ocp-Apim-Subscription-Key': 'k1' });
    expect(pccsHeaders({ PCCS_API_KEY: '' })).toEqual({});
    expect(ledgerNodeHeaders('Authorization', { LEDGER_NODE_API_KEY: 'Bearer k2' })).toEqual({ Authorization: 'Bearer k2' });
    expect(ledgerNodeHeaders('X-API-Key', {})).toEqual({});
  });
});

describe('serviceFetch (the PCCS)', () => {
  const calls: { url: string; headers: Record<string, string> }[] = [];
  const inner = (async (url: string, init: RequestInit = {}) => {
    calls.push({ url, headers: Object.fromEntries(new Headers(init.headers)) });
    return new Response('ok');
  }) as unknown as typeof fetch;

  it('sends the base query and the key to the service only, never to another host', async () => {
    calls.length = 0;
    const f = serviceFetch(`https://pccs.example/sgx/certification/v4/?key=${SECRET}`, { headers: { 'Ocp-Apim-Subscription-Key': 'k1' } }, inner);
    await f('https://pccs.example/sgx/certification/v4/tcb?fmspc=00906ed50000', { headers: { accept: 'x' } });
    await f('https://certificates.trustedservices.intel.com/IntelSGXRootCA.der');
    expect(calls).toEqual([
      { url: `https://pccs.example/sgx/certification/v4/tcb?fmspc=00906ed50000&key=${SECRET}`, headers: { accept: 'x', 'ocp-apim-subscription-key': 'k1' } },
      { url: 'https://certificates.trustedservices.intel.com/IntelSGXRootCA.der', headers: {} },
    ]);
  });

  it('ends a request in progress and refuses later ones when its signal aborts', async () => {
    const ac = new AbortController();
    const hanging = ((_: string, init: RequestInit = {}) =>
      new Promise((_r, rej) => init.signal!.addEventListener('abort', () => rej(init.signal!.reason)))) as unknown as typeof fetch;
    const f = serviceFetch('http://pccs.example/v4/', { signal: ac.signal }, hanging);
    const inFlight = f('http://pccs.example/v4/qe/identity', { signal: AbortSignal.timeout(600_000) });
    ac.abort(shutdownReason());
    await expect(inFlight).rejects.toThrow('the verifier is shutting down');
    await expect(f('http://pccs.example/v4/qe/identity')).rejects.toThrow('the verifier is shutting down');
  });
});

describe('ledger node client credentials', () => {
  let node: LedgerNode;
  beforeAll(async () => {
    node = await startLedgerNode();
    node.addRoute('GET', /^\/block\/height\/latest$/, () => ({ status: 200, body: '7' }));
  });
  afterAll(async () => {
    await node.close();
  });

  it('refuses userinfo in the base URL without showing it', () => {
    let message = '';
    try {
      createLedgerNodeClient({ baseUrl: `http://u:${SECRET}@127.0.0.1:1/v1/mainnet`, timeoutMs: 100 });
    } catch (e) {
      expect(e).toMatchObject({ code: 'LEDGER_NODE_BAD_URL' });
      message = (e as Error).message;
    }
    expect(message).toMatch(/must not hold credentials/);
    expect(message).not.toContain(SECRET);
  });

  it('a base URL without a scheme: the value echoed and the https:// form suggested', () => {
    expect(() => createLedgerNodeClient({ baseUrl: 'api.example.com', timeoutMs: 100 })).toThrow(
      expect.objectContaining({ code: 'LEDGER_NODE_BAD_URL', message: 'ledger node: base URL "api.example.com" has no scheme: give "https://api.example.com" (or http:// for a node without TLS)' }),
    );
    expect(() => createLedgerNodeClient({ baseUrl: 'localhost:3030/mainnet', timeoutMs: 100 })).toThrow(/"localhost:3030\/mainnet" has no scheme: give "https:\/\/localhost:3030\/mainnet"/);
  });

  it('a base URL without a scheme holding credentials or a query is echoed without them', () => {
    let message = '';
    try {
      createLedgerNodeClient({ baseUrl: `u:${SECRET}@api.example.com/v1?key=${SECRET}`, timeoutMs: 100 });
    } catch (e) {
      expect(e).toMatchObject({ code: 'LEDGER_NODE_BAD_URL' });
      message = (e as Error).message;
    }
    expect(message).toBe('ledger node: base URL "api.example.com/v1" (its query or credentials not shown) has no scheme: give "https://api.example.com/v1" (or http:// for a node without TLS)');
    expect(message).not.toContain(SECRET);
  });

  it('sends the base query with every request and the key header, and shows neither', async () => {
    node.reset();
    const seen: Record<string, string>[] = [];
    const capture = (async (url: string, init: RequestInit = {}) => {
      seen.push(Object.fromEntries(new Headers(init.headers)));
      return fetch(url, init);
    }) as unknown as typeof fetch;
    const client = createLedgerNodeClient({ baseUrl: `${node.url}/?key=${SECRET}`, timeoutMs: 30_000, headers: { 'X-API-Key': 'k2' }, fetchImpl: capture });
    expect(client.baseUrl).toBe(node.url);
    expect(await client.getJson('/block/height/latest')).toBe(7);
    expect(node.requests.map((r) => r.path)).toEqual([`/v1/mainnet/block/height/latest?key=${SECRET}`]);
    expect(seen[0]).toMatchObject({ 'x-api-key': 'k2', accept: 'application/json' });
    node.script('/block/height/latest', [reply.serverError('down')]);
    const e = await rejection(createLedgerNodeClient({ baseUrl: `${node.url}?key=${SECRET}`, timeoutMs: 30_000, retries: 0 }).getJson('/block/height/latest?x=1'));
    expect(e.message).toContain(`GET ${node.url}/block/height/latest?x=1 failed`);
    expect(e.message).not.toContain(SECRET);
    expect(node.requests.at(-1)!.path).toBe(`/v1/mainnet/block/height/latest?x=1&key=${SECRET}`);
  });

  it('30 concurrent calls waiting between retries hold one listener on the shared shutdown signal, and no MaxListenersExceededWarning (issue 48)', async () => {
    node.reset();
    const warnings: string[] = [];
    const onWarning = (w: Error) => warnings.push(w.name);
    process.on('warning', onWarning);
    try {
      const ac = new AbortController();
      // Each call's first answer is a 500 (retried after a pause), its second the height.
      let n = 0;
      node.addRoute('GET', /^\/block\/height\/slow$/, () => (n++ < 30 ? { status: 500, body: 'busy' } : { status: 200, body: '7' }));
      const client = createLedgerNodeClient({ baseUrl: node.url, timeoutMs: 30_000, retries: 2, backoffMs: 200, maxBackoffMs: 200, signal: ac.signal });
      const calls = Array.from({ length: 30 }, () => client.getJson('/block/height/slow'));
      let most = 0;
      const sample = setInterval(() => (most = Math.max(most, getEventListeners(ac.signal, 'abort').length)), 5);
      const values = await Promise.all(calls);
      clearInterval(sample);
      expect(values).toEqual(Array.from({ length: 30 }, () => 7));
      expect(most).toBeLessThanOrEqual(1);
      expect(getEventListeners(ac.signal, 'abort')).toHaveLength(0);
      await new Promise((r) => setImmediate(r));
      expect(warnings).not.toContain('MaxListenersExceededWarning');
    } finally {
      process.off('warning', onWarning);
    }
  });

  it('a shutdown signal abandons the call at once, without retries', async () => {
    node.reset();
    node.script('/block/height/latest', [reply.slow(600_000)]);
    const ac = new AbortController();
    const client = createLedgerNodeClient({ baseUrl: node.url, timeoutMs: 600_000, retries: 5, signal: ac.signal });
    const asked = new Promise<void>((r) => node.onRequest(() => r()));
    const call = rejection(client.getJson('/block/height/latest'));
    await asked;
    ac.abort(shutdownReason());
    const e = await call;
    expect(e).toMatchObject({ code: 'LEDGER_NODE_UNREACHABLE' });
    expect(e.message).toMatch(/failed after 1 attempt: abandoned: the verifier is shutting down$/);
    expect(node.requests).toHaveLength(1);
  });
});
