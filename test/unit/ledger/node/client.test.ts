import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLedgerNodeClient, ledgerPath, parseRetryAfter } from '../../../../src/ledger/node/client.js';
import { prettyLeo, reply, singleLineLeo, startLedgerNode, type LedgerNode } from '../../../support/ledger-node.js';
import { rejection } from '../../../support/errors.js';


describe('parseRetryAfter', () => {
  it('reads delta-seconds and HTTP dates', () => {
    expect(parseRetryAfter('3')).toBe(3000);
    expect(parseRetryAfter(' 0 ')).toBe(0);
    expect(parseRetryAfter('1.5')).toBe(1500);
    const now = Date.parse('2025-01-01T00:00:00Z');
    expect(parseRetryAfter('Wed, 01 Jan 2025 00:00:05 GMT', now)).toBe(5000);
    expect(parseRetryAfter('Tue, 31 Dec 2024 23:59:00 GMT', now)).toBe(0);
  });
  it('ignores absent or unreadable values', () => {
    expect(parseRetryAfter(null)).toBeUndefined();
    expect(parseRetryAfter('soon')).toBeUndefined();
    expect(parseRetryAfter('-1')).toBeUndefined();
  });
});

describe('ledgerPath', () => {
  it('URL-encodes each segment', () => {
    expect(ledgerPath('program', 'a b/c.aleo', 'mapping', 'm', '0u8')).toBe('/program/a%20b%2Fc.aleo/mapping/m/0u8');
  });
});

describe('createLedgerNodeClient', () => {
  let node: LedgerNode;
  beforeAll(async () => {
    node = await startLedgerNode({ prefix: '/v2/testnet' });
    node.addRoute('GET', /^\/block\/height\/latest$/, () => ({ status: 200, body: '12345' }));
    node.addRoute('GET', /^\/blocks$/, ({ query }) => ({
      status: 200,
      body: JSON.stringify({ start: query.get('start'), end: query.get('end') }),
    }));
  });
  afterAll(async () => {
    await node.close();
  });

  it('rejects a base URL that is not http(s)', () => {
    for (const bad of ['not a url', 'ftp://node.example/v1/mainnet']) {
      expect(() => createLedgerNodeClient({ baseUrl: bad, timeoutMs: 100 })).toThrowError(
        expect.objectContaining({ code: 'LEDGER_NODE_BAD_URL' }),
      );
    }
  });

  it('GETs routes added to the simulator, with queries', async () => {
    const client = createLedgerNodeClient({ baseUrl: `${node.url}/`, timeoutMs: 30_000 });
    expect(client.baseUrl).toBe(node.url);
    expect(await client.getJson('/block/height/latest')).toBe(12345);
    expect(await client.getJson('blocks?start=10&end=60')).toEqual({ start: '10', end: '60' });
  });

  it('does not retry a 200 whose body is neither JSON nor a rate-limit text', async () => {
    node.reset();
    node.script('/block/height/latest', [reply.text(200, '<html>maintenance</html>')]);
    const client = createLedgerNodeClient({ baseUrl: node.url, timeoutMs: 30_000, retries: 3, backoffMs: 1 });
    const e = await rejection(client.getJson('/block/height/latest'));
    expect(e.code).toBe('LEDGER_NODE_BAD_RESPONSE');
    expect(e.message).toContain('maintenance');
    expect(node.requests).toHaveLength(1);
  });

  it('refuses a body larger than maxBodyBytes', async () => {
    node.reset();
    node.script('/blocks', [reply.json('x'.repeat(5000))]);
    const client = createLedgerNodeClient({ baseUrl: node.url, timeoutMs: 30_000, maxBodyBytes: 1024 });
    const e = await rejection(client.getJson('/blocks?start=0&end=1'));
    expect(e.code).toBe('LEDGER_NODE_BAD_RESPONSE');
    expect(e.message).toContain('larger than 1024 bytes');
  });

  it('reports an unreachable node after the retries', async () => {
    const closed = await startLedgerNode();
    const url = closed.url;
    await closed.close();
    const client = createLedgerNodeClient({ baseUrl: url, timeoutMs: 30_000, retries: 1, backoffMs: 1 });
    const e = await rejection(client.getJson('/block/height/latest'));
    expect(e.code).toBe('LEDGER_NODE_UNREACHABLE');
    expect(e.message).toContain('after 2 attempts');
    expect(e.message).toContain('ECONNREFUSED');
  });
});

describe('ledger-node simulator Leo formatting', () => {
  it('pretty-prints like snarkOS and flattens to one line', () => {
    const text = '{ a: 1u128, b: { c: 2u128, d: 3u128 } }';
    expect(prettyLeo(text)).toBe('{\n  a: 1u128,\n  b: {\n    c: 2u128,\n    d: 3u128\n  }\n}');
    expect(singleLineLeo(prettyLeo(text))).toBe(text);
  });
});
