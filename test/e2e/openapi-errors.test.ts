/**
 * The OpenAPI description tells the truth: /docs/json lists every route with its error statuses,
 * and the real server (buildApp with the real routes and the real verification core, over a real
 * socket) answers those statuses with bodies that validate against the documented schema. A body
 * that is not a JSON object gets a 400 saying so on every POST route, in the route's body shape.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Ajv } from 'ajv';
import addFormatsModule from 'ajv-formats';
import type { FastifyInstance } from 'fastify';
import { buildApp } from '../../src/server/app.js';
import { buildInfoRecord, liveCheckProgramName } from '../../src/server/info.js';
import { createInProcessService } from '../../src/verify/service.js';
import { loadTrustRoot } from '../../src/attestation/trustRoots.js';
import { reportKind, WIRE_REPORT_TYPES } from '../../src/verify/kinds/index.js';
import { DEFAULT_TRUST_ROOTS } from '../../src/config/defaultTrustRoots.js';
import { createMetrics } from '../../src/observability/metrics.js';
import { VerifierError } from '../../src/errors.js';
import type { VerifierService } from '../../src/verify/types.js';
import type { Policy } from '../../src/verify/types.js';
import { readVectorJson } from '../support/paths.js';
import { startServer } from '../support/server.js';

const addFormats = addFormatsModule as unknown as (ajv: Ajv) => Ajv;

const decodeReq = readVectorJson<any>('aleo/decode-example.request.json');
const targets = readVectorJson<any>('production-targets.json');
// The formats the schemas use (date-time) are checked, as Fastify's own Ajv does; a warning (an
// unknown format would be ignored with one) fails the test instead of being printed.
const ajv = addFormats(new Ajv({ strict: false, allErrors: true, logger: { log: console.log, error: console.error, warn: (...m: unknown[]) => { throw new Error(`ajv: ${m.join(' ')}`); } } }));

const POST_ROUTES = ['/decode', '/decodeReport', '/verify'] as const;
const GET_ROUTES = ['/info', '/healthz', '/readyz', '/docs/json', '/metrics', '/status/pccs', '/.well-known/jwks.json'] as const;
/** The /ledger routes and the statuses each documents (README "Ledger"). */
const LEDGER_ROUTES: Record<string, string[]> = {
  '/ledger/transactions/{id}': ['200', '400', '404', '405', '500', '502', '503'],
  '/ledger/status': ['200', '405', '500', '503'],
  '/ledger/updates': ['200', '400', '405', '500', '503'],
  '/ledger/consistency': ['200', '400', '405', '500', '503'],
  '/ledger/completeness': ['200', '405', '500', '503'],
};
const MESSAGE_KEY: Record<string, string> = { '/decode': 'errorString', '/decodeReport': 'errorString', '/verify': 'errorMessage' };

async function listen(app: FastifyInstance): Promise<string> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const addr = app.server.address();
  if (!addr || typeof addr === 'string') throw new Error('no address');
  return `http://127.0.0.1:${addr.port}`;
}

let app: FastifyInstance;
let broken: FastifyInstance;
let url: string;
let brokenUrl: string;
let doc: any;
let ready = false;

beforeAll(async () => {
  const roots = {
    typeA: loadTrustRoot('typeA', DEFAULT_TRUST_ROOTS.typeA, { pinnedSha256: reportKind('typeA').bundledRoot.sha256 }),
    typeB: loadTrustRoot('typeB', DEFAULT_TRUST_ROOTS.typeB, { pinnedSha256: reportKind('typeB').bundledRoot.sha256 }),
  };
  const uniqueId = Uint8Array.from(Buffer.from(targets.uniqueIdTarget, 'base64'));
  const pcrs = targets.pcrValuesTarget.map((b: string) => Uint8Array.from(Buffer.from(b, 'base64')));
  const policy: Policy = { targets: { typeA: uniqueId, typeB: pcrs }, acceptedTcbStatuses: ['UpToDate', 'SWHardeningNeeded'], allowDebugEnclaves: false };
  const service = createInProcessService(policy, { roots });
  const info = buildInfoRecord({ typeA: uniqueId, typeB: pcrs }, liveCheckProgramName(undefined), Date.now());
  app = await buildApp({ service, info, bodyLimit: 16_384, metrics: createMetrics(), isReady: () => ready });
  url = await listen(app);
  doc = await (await fetch(`${url}/docs/json`)).json();

  // The same routes over a service that fails the way a broken build or a full pool does.
  const failing: VerifierService = {
    ...service,
    decode: () => {
      throw new TypeError('a bug');
    },
    decodeReport: async () => {
      throw new VerifierError('POOL_OVERLOADED', 'the verifier is overloaded');
    },
    // POST /decodeReport asks the service for its answer's bytes (the pool's worker makes them).
    decodeReportAnswer: async () => {
      throw new VerifierError('POOL_OVERLOADED', 'the verifier is overloaded');
    },
    checkResponse: async () => {
      throw new VerifierError('POOL_OVERLOADED', 'the verifier is overloaded');
    },
  };
  broken = await buildApp({ service: failing, info });
  brokenUrl = await listen(broken);
});
afterAll(async () => {
  await app?.close();
  await broken?.close();
});

/** The documented JSON schema of one answer. */
function documented(path: string, method: string, status: number): object {
  const res = doc.paths[path]?.[method.toLowerCase()]?.responses?.[String(status)];
  expect(res, `${method} ${path} ${status} is documented`).toBeDefined();
  const schema = res.content?.['application/json']?.schema;
  expect(schema, `${method} ${path} ${status} has a JSON body schema`).toBeDefined();
  return schema;
}

/** Sends a request, checks the status and that the body validates against the documented schema. */
async function answer(base: string, docPath: string, init: RequestInit & { path?: string; docMethod?: string }, status: number): Promise<any> {
  const r = await fetch(`${base}${init.path ?? docPath}`, init);
  const text = await r.text();
  expect(r.status, `${init.method} ${docPath}: ${text}`).toBe(status);
  const body = JSON.parse(text);
  const validate = ajv.compile(documented(docPath, init.docMethod ?? init.method ?? 'GET', status));
  expect(validate(body), `${init.method} ${docPath} ${status}: ${JSON.stringify(validate.errors)} for ${text}`).toBe(true);
  return body;
}

const post = (body: string, contentType = 'application/json'): RequestInit => ({ method: 'POST', headers: { 'content-type': contentType }, body });

describe('/docs/json lists every route with its statuses', () => {
  it('POST routes: 200, 400, 405, 413, 415, 500, 503 (/decodeReport also 406: an EAR without a key); GET routes: 200, 405, 500, 503; /ledger routes: their own', () => {
    for (const p of POST_ROUTES) expect(Object.keys(doc.paths[p].post.responses).sort(), p).toEqual(['200', '400', ...(p === '/decodeReport' ? ['406'] : []), '405', '413', '415', '500', '503'].sort());
    for (const p of GET_ROUTES) expect(Object.keys(doc.paths[p].get.responses).sort(), p).toEqual(['200', '405', '500', '503']);
    for (const [p, statuses] of Object.entries(LEDGER_ROUTES)) expect(Object.keys(doc.paths[p].get.responses).sort(), p).toEqual(statuses);
    expect(Object.keys(doc.paths).sort()).toEqual([...POST_ROUTES, ...GET_ROUTES, ...Object.keys(LEDGER_ROUTES)].sort());
  });

  it('describes /metrics as Prometheus text and 404 as ErrorBody', () => {
    expect(doc.paths['/metrics'].get.responses['200'].content['text/plain'].schema).toEqual({ type: 'string' });
    expect(doc.info.description).toMatch(/404/);
    expect(doc.components.schemas.ErrorBody.required).toEqual(['errorString', 'errorCode']);
  });
});

describe('the server answers what /docs/json documents', () => {
  it.each(POST_ROUTES)('%s: a body that is not a JSON object is a 400 saying so, in the route shape', async (p) => {
    for (const [body, kind] of [['[1,2]', 'an array'], ['null', 'null'], ['"x"', 'a string'], ['1', 'a number']]) {
      const b = await answer(url, p, post(body!), 400);
      expect(b.errorCode).toBe('HTTP_INVALID_BODY');
      expect(b[MESSAGE_KEY[p]!]).toBe(`request body must be a JSON object, got ${kind}`);
    }
  });

  it.each(POST_ROUTES)('%s: invalid JSON 400, wrong field type 400 with grammar, 413, 415, 405', async (p) => {
    expect((await answer(url, p, post('{"x": '), 400)).errorCode).toBe('HTTP_INVALID_JSON');
    const field = p === '/verify' ? 'reports' : 'userData';
    const wrong = await answer(url, p, post(JSON.stringify({ userData: p === '/verify' ? 'x' : ['x'], report: 'r', reports: {} })), 400);
    expect(wrong[MESSAGE_KEY[p]!]).toBe(`field "${field}" must be ${p === '/verify' ? 'an array, got an object' : 'a string, got an array'}`);
    expect((await answer(url, p, post(JSON.stringify({ userData: 'x'.repeat(20_000) })), 413)).errorCode).toBe('HTTP_BODY_TOO_LARGE');
    expect((await answer(url, p, post('{}', 'text/plain'), 415)).errorCode).toBe('HTTP_UNSUPPORTED_MEDIA_TYPE');
    expect((await answer(url, p, { method: 'GET', docMethod: 'POST' }, 405)).errorCode).toBe('HTTP_METHOD_NOT_ALLOWED');
  });

  it('POST 200 answers validate too', async () => {
    expect((await answer(url, '/decode', post(JSON.stringify(decodeReq)), 200)).success).toBe(true);
    expect(await answer(url, '/decodeReport', post(JSON.stringify({ userData: decodeReq.userData, report: decodeReq.userData })), 200)).toMatchObject({ reportValid: false, outcome: 'invalid' });
    expect(doc.paths['/decodeReport'].post.responses['200'].content['application/json'].schema.properties.outcome.enum).toEqual(['valid', 'invalid', 'unverifiable']);
    // An unreadable request is no verdict on a report: outcome invalid (the input), as its code's traits say.
    expect(await answer(url, '/decodeReport', post('{"x": '), 400)).toMatchObject({ reportValid: false, outcome: 'invalid', errorCode: 'HTTP_INVALID_JSON' });
    const missing = await answer(url, '/verify', post(JSON.stringify({ reports: [{ reportType: 'nitro' }] })), 200);
    expect(missing.reportErrors).toEqual([{ index: 0, errorCode: 'REPORT_MISSING', errorMessage: expect.any(String), outcome: 'invalid' }]);
    const verify200 = doc.paths['/verify'].post.responses['200'].content['application/json'].schema;
    expect(verify200.properties.reportErrors.items.properties.outcome.enum).toEqual(['invalid', 'unverifiable']);
    expect(verify200.properties.unverifiableReports.type).toBe('array');
    expect(doc.paths['/verify'].post.description).toMatch(/503 with Retry-After/);
  });

  it('/verify documents its report entries and answers an entry of the wrong shape with the documented 400', async () => {
    const body = doc.paths['/verify'].post.requestBody.content['application/json'].schema;
    const reports = body.properties.reports;
    expect([reports.minItems, reports.maxItems]).toEqual([1, 16]);
    expect(reports.items.title).toBe('AttestationResponse');
    expect(reports.items.properties.reportType.enum).toEqual([...WIRE_REPORT_TYPES]);
    expect(Object.keys(reports.items.properties.oracleData.properties)).toEqual(expect.arrayContaining(['userData', 'report']));
    expect(reports.items.properties.attestationResults.items.required).toContain('attestationRequest');
    const b = await answer(url, '/verify', post(JSON.stringify({ reports: [{ reportType: 'tdx' }] })), 400);
    expect(b).toEqual({ success: false, validReports: [], errorMessage: 'field "reports/0/reportType" must be "sgx" or "nitro", got "tdx"', errorCode: 'HTTP_INVALID_BODY' });
    expect((await answer(url, '/verify', post(JSON.stringify({ reports: [] })), 400)).errorCode).toBe('HTTP_NO_REPORTS');
  });

  it('500 for an internal error and 503 for a full pool, in the route shape', async () => {
    expect(await answer(brokenUrl, '/decode', post(JSON.stringify(decodeReq)), 500)).toEqual({ success: false, errorString: 'internal error', errorCode: 'INTERNAL_ERROR' });
    const r = await fetch(`${brokenUrl}/decodeReport`, post(JSON.stringify({ userData: 'u', report: 'r' })));
    expect(r.headers.get('retry-after')).toBe('1');
    expect(await answer(brokenUrl, '/decodeReport', post(JSON.stringify({ userData: 'u', report: 'r' })), 503)).toEqual({
      reportValid: false,
      outcome: 'unverifiable',
      errorString: 'the verifier is overloaded',
      errorCode: 'POOL_OVERLOADED',
    });
    // POST /verify: a report the pool refused is no verdict: the whole batch is a 503, in the route shape.
    const v = await fetch(`${brokenUrl}/verify`, post(JSON.stringify({ reports: [{ reportType: 'nitro' }] })));
    expect(v.headers.get('retry-after')).toBe('1');
    expect(await answer(brokenUrl, '/verify', post(JSON.stringify({ reports: [{ reportType: 'nitro' }] })), 503)).toEqual({
      success: false,
      validReports: [],
      errorMessage: 'the verifier is overloaded',
      errorCode: 'POOL_OVERLOADED',
    });
    expect(doc.paths['/verify'].post.responses['503'].description).toMatch(/POOL_OVERLOADED/);
  });

  it.each(GET_ROUTES)('GET %s: 200 validates, another method is a documented 405', async (p) => {
    ready = true;
    if (p !== '/metrics') await answer(url, p, { method: 'GET' }, 200);
    expect((await answer(url, p, { method: 'DELETE', docMethod: 'GET' }, 405)).errorCode).toBe('HTTP_METHOD_NOT_ALLOWED');
  });

  it('GET /metrics answers the documented text', async () => {
    const r = await fetch(`${url}/metrics`);
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/^text\/plain/);
    expect(typeof (await r.text())).toBe('string');
  });

  it('GET /readyz before startup is done: the documented 503', async () => {
    ready = false;
    expect(await answer(url, '/readyz', { method: 'GET' }, 503)).toEqual({ status: 'starting' });
    ready = true;
  });

  it('an unknown path: 404 with the ErrorBody schema', async () => {
    const r = await fetch(`${url}/nope`);
    expect(r.status).toBe(404);
    expect(ajv.validate(doc.components.schemas.ErrorBody, await r.json())).toBe(true);
  });
});

describe('/info liveCheckProgram', () => {
  it('is null when no program is configured, documented as nullable', async () => {
    const info = await answer(url, '/info', { method: 'GET' }, 200);
    expect(info.liveCheckProgram).toBeNull();
    expect(doc.paths['/info'].get.responses['200'].content['application/json'].schema.properties.liveCheckProgram.nullable).toBe(true);
  });

  it('the real service without liveCheck.contractName answers null', async () => {
    const srv = await startServer({ uniqueIdTarget: targets.uniqueIdTarget, pcrValuesTarget: targets.pcrValuesTarget });
    try {
      const info: any = await (await fetch(`${srv.url}/info`)).json();
      expect(info.liveCheckProgram).toBeNull();
      expect(Object.keys(info)).toEqual(['targetUniqueId', 'targetPcrValues', 'liveCheckProgram', 'startTimeUTC', 'ledgerWatcher']);
      expect(info.ledgerWatcher).toBe(false);
    } finally {
      await srv.close();
    }
  });

  it('is the full program name when configured', () => {
    expect(liveCheckProgramName('official_oracle')).toBe('official_oracle.aleo');
    expect(liveCheckProgramName('official_oracle.aleo')).toBe('official_oracle.aleo');
    expect(liveCheckProgramName('')).toBeNull();
  });
});
