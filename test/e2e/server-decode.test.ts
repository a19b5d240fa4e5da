/**
 * The real Fastify server over a real socket: GET /info, POST /decode with the README example,
 * the documented status codes and hostile inputs that must never crash or hang the server.
 */
import { KNOWN_PROGRAM_IDS } from '../../src/ledger/programs.js';
import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { postJson, startServer, type RunningServer } from '../support/server.js';
import { readVectorJson, vectorPath } from '../support/paths.js';

const targets = readVectorJson<any>('production-targets.json');
let srv: RunningServer;

beforeAll(async () => {
  srv = await startServer({
    uniqueIdTarget: targets.uniqueIdTarget,
    pcrValuesTarget: targets.pcrValuesTarget,
    liveCheck: { skip: true, apiBaseUrl: 'https://example.invalid/v1/mainnet', contractName: 'official_oracle' },
  });
});
afterAll(async () => srv?.close());

describe('GET /info', () => {
  it('returns the verifier info record with hex, base64 and ledger encodings', async () => {
    const r = await fetch(`${srv.url}/info`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    const info: any = await r.json();
    // The spec's record, then the programs the ledger side follows (a ledger node is configured)
    // and whether this verifier runs the ledger watcher (the ledger page reads it).
    expect(Object.keys(info)).toEqual(['targetUniqueId', 'targetPcrValues', 'liveCheckProgram', 'startTimeUTC', 'ledgerPrograms', 'ledgerWatcher']);
    expect(info.ledgerPrograms).toEqual([...KNOWN_PROGRAM_IDS]);
    expect(info.ledgerWatcher).toBe(false);
    expect(info.targetUniqueId).toEqual({
      hexEncoded: targets.uniqueIdTargetHex,
      base64Encoded: targets.uniqueIdTarget,
      ledgerEncoded: targets.ledgerEncoded.uniqueId,
    });
    expect(info.targetPcrValues).toEqual({
      hexEncoded: targets.pcrValuesTargetHex,
      base64Encoded: targets.pcrValuesTarget,
      ledgerEncoded: targets.ledgerEncoded.pcrs,
    });
    expect(info.liveCheckProgram).toBe('official_oracle.aleo');
    expect(info.startTimeUTC).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/);
    expect(Math.abs(Date.parse(`${info.startTimeUTC.replace(' ', 'T')}Z`) - Date.now())).toBeLessThan(120_000);
  });
});

describe('POST /decode', () => {
  it('decodes the README example to its documented response', async () => {
    const req = JSON.parse(readFileSync(vectorPath('aleo/decode-example.request.json'), 'utf8'));
    const want = JSON.parse(readFileSync(vectorPath('aleo/decode-example.response.json'), 'utf8'));
    const r = await postJson(`${srv.url}/decode`, req);
    expect(r.status).toBe(200);
    const { decodedRequests, ...seed } = r.body;
    expect(seed).toEqual(want);
    expect(Object.keys(r.body.decodedData)).toEqual(Object.keys(want.decodedData));
    // 8-chunk data: one request, the decodedData (no token id: not a price feed)
    expect(decodedRequests).toEqual([want.decodedData]);
  });

  it('answers 200 with success false for a struct that does not parse, naming the position', async () => {
    const r = await postJson(`${srv.url}/decode`, { userData: '{ c0: { f0: 340282366920938463463374607431768211456u128 } }' });
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(false);
    expect(r.body.decodedData).toBeUndefined();
    expect(r.body.errorCode).toBe('STRUCT_VALUE_OUT_OF_RANGE');
    expect(r.body.errorString).toMatch(/offset \d+/);
  });

  it('answers 200 with success false for bytes that do not decode', async () => {
    const zeros = `{ ${Array.from({ length: 8 }, (_, c) => `c${c}: { ${Array.from({ length: 32 }, (_, f) => `f${f}: ${c === 0 && f === 0 ? 5 : 0}u128`).join(', ')} }`).join(', ')} }`;
    const r = await postJson(`${srv.url}/decode`, { userData: zeros });
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(false);
    expect(r.body.errorCode).toMatch(/^PROOF_DATA_/);
  });

  it('415 for a non-JSON content type', async () => {
    const r = await fetch(`${srv.url}/decode`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'userData' });
    expect(r.status).toBe(415);
    const body = await r.json();
    expect(body).toMatchObject({ success: false, errorCode: 'HTTP_UNSUPPORTED_MEDIA_TYPE' });
  });

  it('400 for malformed JSON, empty body, missing or non-string userData', async () => {
    for (const [body, code] of [
      ['{"userData": ', 'HTTP_INVALID_JSON'],
      ['', 'HTTP_EMPTY_BODY'],
      ['{}', 'HTTP_INVALID_BODY'],
      ['{"userData": 5}', 'HTTP_INVALID_BODY'],
      ['{"userData": ["x"]}', 'HTTP_INVALID_BODY'],
      ['{"userData": null}', 'HTTP_INVALID_BODY'],
      ['[]', 'HTTP_INVALID_BODY'],
    ] as const) {
      const r = await postJson(`${srv.url}/decode`, body);
      expect(r.status, body).toBe(400);
      expect(r.body.success, body).toBe(false);
      expect(r.body.errorCode, body).toBe(code);
      expect(typeof r.body.errorString).toBe('string');
      // Said once, not followed by Fastify's own "Body is not valid JSON …".
      if (code === 'HTTP_INVALID_JSON') expect(r.body.errorString).toBe('request body is not valid JSON');
    }
  });

  it('405 with Allow for other methods on known routes, 404 elsewhere', async () => {
    const r = await fetch(`${srv.url}/decode`);
    expect(r.status).toBe(405);
    expect(r.headers.get('allow')).toBe('POST');
    const r2 = await fetch(`${srv.url}/info`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(r2.status).toBe(405);
    expect(r2.headers.get('allow')).toBe('GET, HEAD');
    const r3 = await fetch(`${srv.url}/nope`);
    expect(r3.status).toBe(404);
  });

  it('413 for a 10 MB body, and the server keeps serving', async () => {
    const big = JSON.stringify({ userData: 'x'.repeat(10 * 1024 * 1024) });
    const r = await postJson(`${srv.url}/decode`, big);
    expect(r.status).toBe(413);
    expect(r.body.errorCode).toBe('HTTP_BODY_TOO_LARGE');
    const ok = await fetch(`${srv.url}/info`);
    expect(ok.status).toBe(200);
  });

  it('hostile strings never crash or hang the server', async () => {
    const hostile = [
      '\u0000'.repeat(1000),
      '{'.repeat(100_000),
      '{ c0: { f0: ' + '9'.repeat(100_000) + 'u128 } }',
      '{ c0: { f0: １u128 } }',
      '𝟘'.repeat(5000),
      '{ c0: { f0: 0u128, f0: 0u128 } }',
      JSON.stringify({ nested: Array(1000).fill('[').join('') }),
    ];
    for (const h of hostile) {
      const r = await postJson(`${srv.url}/decode`, { userData: h });
      expect(r.status).toBe(200);
      expect(r.body.success).toBe(false);
    }
    const deep = '{"userData":' + '['.repeat(50_000) + ']'.repeat(50_000) + '}';
    const r = await postJson(`${srv.url}/decode`, deep);
    expect([400, 413]).toContain(r.status);
    expect((await fetch(`${srv.url}/info`)).status).toBe(200);
  });

  it('serves the OpenAPI description at /docs/json with every route', async () => {
    const r = await fetch(`${srv.url}/docs/json`);
    expect(r.status).toBe(200);
    const doc: any = await r.json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/info', '/decode', '/decodeReport', '/healthz', '/readyz']));
    expect(doc.paths['/decodeReport'].post.requestBody.content['application/json'].schema.required).toEqual(['userData', 'report']);
    // decodedRequests (every request of 8- or 10-chunk userData) is described on both decoding routes
    for (const path of ['/decode', '/decodeReport']) {
      const props = doc.paths[path].post.responses['200'].content['application/json'].schema.properties;
      expect(Object.keys(props.decodedRequests.items.properties)).toEqual(expect.arrayContaining(['url', 'attestationData', 'tokenId', 'requestHash', 'timestampedRequestHash', 'truncated']));
      expect(doc.paths[path].post.requestBody.content['application/json'].schema.properties.userData.description).toMatch(/8 or 10 chunks/);
    }
  });
});
