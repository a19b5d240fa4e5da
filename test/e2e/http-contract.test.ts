/**
 * Every answer on the error contract, including those no route gives: the HTTP parser's (431),
 * Fastify's framework errors (a URL that does not decode, a path parameter over its length), a
 * charset or content coding the JSON parser does not read (415); and the security headers on
 * every answer (nosniff, no framing, no referrer; the pages' CSP restricts form targets).
 */
import { readFileSync } from 'node:fs';
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isErrorCode, traitsOf } from '../../src/errorCodes.js';
import { startServer, type RunningServer } from '../support/server.js';

let s: RunningServer;
let port: number;
beforeAll(async () => {
  s = await startServer(JSON.parse(readFileSync('config.json', 'utf8')));
  port = Number(new URL(s.url).port);
});
afterAll(async () => s?.close());

/** One raw request on its own connection; resolves with the whole answer when the server closes it. */
function raw(request: string): Promise<{ status: number; headers: Record<string, string>; body: any }> {
  return new Promise((resolve, reject) => {
    const c = connect(port, '127.0.0.1');
    let text = '';
    c.setEncoding('latin1');
    c.on('data', (d) => (text += d));
    c.on('error', reject);
    c.on('close', () => {
      const [head = '', rest = ''] = text.split('\r\n\r\n', 2);
      const [line = '', ...fields] = head.split('\r\n');
      const headers = Object.fromEntries(fields.map((f) => [f.slice(0, f.indexOf(':')).toLowerCase(), f.slice(f.indexOf(':') + 1).trim()]));
      let body: any = rest;
      try {
        body = JSON.parse(rest);
      } catch {
        /* keep the text */
      }
      resolve({ status: Number(line.split(' ')[1]), headers, body });
    });
    c.write(request);
  });
}

const get = (target: string, extra = '') => raw(`GET ${target} HTTP/1.1\r\nHost: x\r\n${extra}Connection: close\r\n\r\n`);
const post = (path: string, headers: string, body: string) =>
  raw(`POST ${path} HTTP/1.1\r\nHost: x\r\n${headers}Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`);

function onContract(r: { status: number; headers: Record<string, string>; body: any }, status: number, code: string): void {
  expect(r.status).toBe(status);
  expect(r.headers['content-type']).toMatch(/^application\/json/);
  expect(r.body.errorCode).toBe(code);
  expect(isErrorCode(r.body.errorCode)).toBe(true);
  expect(traitsOf(r.body.errorCode).status).toBe(status);
  expect(typeof (r.body.errorString ?? r.body.errorMessage)).toBe('string');
  expect(r.body.error).toBeUndefined();
  expect(r.body.statusCode).toBeUndefined();
  expect(r.headers['x-content-type-options']).toBe('nosniff');
}

describe('answers no route gives are on the error contract', () => {
  it('431: request line or headers over the parser limit', async () => {
    onContract(await get(`/${'a'.repeat(20_000)}`), 431, 'HTTP_HEADERS_TOO_LARGE');
    onContract(await get('/info', `X-Big: ${'a'.repeat(20_000)}\r\n`), 431, 'HTTP_HEADERS_TOO_LARGE');
  });

  it('400: a request target whose percent-escapes do not decode', async () => {
    onContract(await get('/%zz'), 400, 'HTTP_BAD_URL');
    onContract(await get('/info/%E0%A4%A'), 400, 'HTTP_BAD_URL');
  });

  it('414: a path parameter longer than any identifier, without echoing it whole', async () => {
    const r = await get(`/ledger/transactions/${'a'.repeat(5000)}`);
    onContract(r, 414, 'HTTP_URI_TOO_LONG');
    expect(r.body.errorString.length).toBeLessThan(300);
  });

  it('415: a charset other than utf-8, a content coding other than identity', async () => {
    const latin1 = await post('/decode', 'Content-Type: application/json; charset=latin1\r\n', '{}');
    onContract(latin1, 415, 'HTTP_UNSUPPORTED_MEDIA_TYPE');
    expect(latin1.body.success).toBe(false);
    onContract(await post('/decodeReport', 'Content-Type: application/json\r\nContent-Encoding: gzip\r\n', '{}'), 415, 'HTTP_UNSUPPORTED_ENCODING');
    const ok = await post('/decode', 'Content-Type: application/json; charset=UTF-8\r\nContent-Encoding: identity\r\n', '{}');
    expect(ok.status).toBe(400);
    expect(ok.body.errorCode).toBe('HTTP_INVALID_BODY');
  });

  it('404 and 405 keep the contract', async () => {
    onContract(await get('/nope'), 404, 'HTTP_NOT_FOUND');
    onContract(await post('/info', 'Content-Type: application/json\r\n', '{}'), 405, 'HTTP_METHOD_NOT_ALLOWED');
  });
});

describe('security headers', () => {
  it('on every answer: JSON, pages, errors', async () => {
    for (const r of [await get('/info'), await get('/'), await get('/ledger'), await get('/nope'), await get('/healthz')]) {
      expect(r.headers['x-content-type-options']).toBe('nosniff');
      expect(r.headers['x-frame-options']).toBe('DENY');
      expect(r.headers['referrer-policy']).toBe('no-referrer');
    }
  });

  it("the pages' CSP allows forms to post only to the service", async () => {
    const csp = (await get('/')).headers['content-security-policy'] ?? '';
    expect(csp).toContain("form-action 'self'");
    expect(csp).toContain("frame-ancestors 'none'");
  });
});

describe('the contract corners (issue 32 item 7)', () => {
  it('every route answers another method 405 with Allow, parametric routes included', async () => {
    const doc = (await (await fetch(`${s.url}/docs/json`)).json()) as { paths: Record<string, Record<string, unknown>> };
    const { PAGE_PATHS } = await import('../../src/server/routes/page.js');
    const routes: [string, string[]][] = [...Object.entries(doc.paths).map(([p, ops]) => [p, Object.keys(ops).map((m) => m.toUpperCase())] as [string, string[]]), ...PAGE_PATHS.map((p) => [p, ['GET']] as [string, string[]])];
    expect(routes.some(([p]) => p === '/ledger/transactions/{id}')).toBe(true);
    let checked = 0;
    for (const [template, methods] of routes) {
      const path = template.replace(/\{[^}]+\}/g, 'at1abc');
      const allow = methods.includes('GET') ? 'GET, HEAD' : methods.join(', ');
      for (const m of ['GET', 'POST', 'PUT', 'DELETE', 'PATCH'].filter((x) => !methods.includes(x))) {
        // A body that is not JSON: the method is refused before the body is read.
        const r = await raw(`${m} ${path} HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 8\r\nConnection: close\r\n\r\nnot json`);
        expect([template, m, r.status, r.headers['allow']]).toEqual([template, m, 405, allow]);
        expect(r.body.errorCode ?? r.body).toBe('HTTP_METHOD_NOT_ALLOWED');
        expect(r.headers['x-content-type-options']).toBe('nosniff');
        checked++;
      }
    }
    expect(checked).toBeGreaterThan(40);
  });

  it('routing comes before the body: a body that is not JSON to an unknown path is 404, to POST /info 405', async () => {
    onContract(await post('/nope', 'Content-Type: application/json\r\n', 'not json'), 404, 'HTTP_NOT_FOUND');
    onContract(await post('/ledger/nope/deeper', 'Content-Type: text/plain; charset=latin1\r\n', 'x'), 404, 'HTTP_NOT_FOUND');
    const info = await post('/info', 'Content-Type: application/json\r\n', 'not json');
    onContract(info, 405, 'HTTP_METHOD_NOT_ALLOWED');
    expect(info.headers['allow']).toBe('GET, HEAD');
  });

  it('Expect other than 100-continue: 417 on the contract', async () => {
    onContract(await raw('POST /decode HTTP/1.1\r\nHost: x\r\nExpect: 200-bogus\r\nContent-Type: application/json\r\nContent-Length: 2\r\nConnection: close\r\n\r\n{}'), 417, 'HTTP_EXPECTATION_FAILED');
  });

  it('HTTP/1.1 without Host: 400 on the contract; HTTP/1.0 needs none', async () => {
    const r = await raw('GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n');
    onContract(r, 400, 'HTTP_BAD_REQUEST');
    expect(r.body.errorString).toMatch(/Host/);
    expect((await raw('GET /healthz HTTP/1.0\r\n\r\n')).status).toBe(200);
  });

  it('CONNECT: 405 on the contract, not a silent close', async () => {
    onContract(await raw('CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n'), 405, 'HTTP_METHOD_NOT_ALLOWED');
  });

  it('a "__proto__" key is refused on purpose, and said so (not "not valid JSON")', async () => {
    const r = await post('/decode', 'Content-Type: application/json\r\n', '{"userData":"x","__proto__":{"polluted":true}}');
    onContract(r, 400, 'HTTP_INVALID_BODY');
    expect(r.body.errorString).toMatch(/"__proto__" key .*valid JSON, but refused on purpose/);
  });
});
