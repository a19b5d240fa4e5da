/**
 * POST /verify (real route plugin, in-process verification core) with the real Nitro attestation
 * of the documentation (verified at its own time against the bundled AWS root) and its tampered
 * variants, and with fresh typeA/typeB attestations of the notarizer simulator.
 */
import Fastify from 'fastify';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { verifyRoute, type ReportCheck } from '../../src/server/routes/verify.js';
import { AJV_OPTIONS } from '../../src/server/app.js';
import { httpErrorHandler } from '../../src/server/errorResponses.js';
import { VerifierError } from '../../src/errors.js';
import type { ErrorCode } from '../../src/errorCodes.js';
import { readVectorJson } from '../support/paths.js';
import { postJson } from '../support/server.js';
import { createTypeBPki } from '../support/typeb-pki.js';
import { mintTypeAPki } from '../support/typea-pki.js';
import { startNotarizerSim, startVerificationBackend, type NotarizerSim, type VerificationBackend } from '../support/notarizer-sim.js';

const real = readVectorJson<any>('aleo/e2e/docs-example_btc_usdc_attestation_nitro.json');
const manifest = readVectorJson<any>('nitro/manifest.json');
const doc = manifest.vectors.find((v: any) => v.file === 'oracle-nitro-report.hex');
const hex = (s: string) => Uint8Array.from(Buffer.from(s, 'hex'));
const clone = <T>(v: T): T => structuredClone(v);

let realBackend: VerificationBackend;
let sims: VerificationBackend;
let simA: NotarizerSim;
let simB: NotarizerSim;
let typeA: ReturnType<typeof mintTypeAPki>;
let typeB: ReturnType<typeof createTypeBPki>;

async function fresh(sim: NotarizerSim): Promise<any> {
  const r = await postJson(`${sim.url}/notarize`, {
    url: 'api.example.com/p',
    requestMethod: 'GET',
    selector: 'p',
    responseFormat: 'json',
    encodingOptions: { value: 'int' },
    debugRequest: false,
  });
  expect(r.status).toBe(200);
  return r.body;
}

beforeAll(async () => {
  realBackend = await startVerificationBackend({ targets: { typeB: [hex(doc.pcr0), hex(doc.pcr1), hex(doc.pcr2)] } });
  typeA = mintTypeAPki({ pckTcb: { components: [21, 21, 2, 4, 1, 128, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0], pceSvn: 13, fmspc: '00906ED50000', pceId: '0000' } });
  typeB = createTypeBPki();
  const targets = { 'api.example.com/p': { body: '{"p":"42"}' } };
  simA = await startNotarizerSim({ kind: 'typeA', typeA, whitelist: ['api.example.com'], targets });
  simB = await startNotarizerSim({ kind: 'typeB', typeB, whitelist: ['api.example.com'], targets });
  sims = await startVerificationBackend({ typeA, typeB });
});
afterAll(async () => {
  await Promise.all([realBackend?.close(), sims?.close(), simA?.close(), simB?.close()]);
});

describe('POST /verify with the real Nitro attestation', () => {
  it('is valid with its oracleData, and by re-encoding (legacy era) without it', async () => {
    const r = await postJson(`${realBackend.url}/verify`, { reports: [real] });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, validReports: [0] });
    const { oracleData: _o, ...bare } = clone(real);
    const r2 = await postJson(`${realBackend.url}/verify`, { reports: [bare] });
    expect(r2.body).toEqual({ success: true, validReports: [0] });
  });

  it('checks every report and names each failure', async () => {
    const data = clone(real);
    data.attestationData = '59408.02000000';
    const bareData = clone(data);
    delete bareData.oracleData;
    const kind = clone(real);
    kind.reportType = 'sgx';
    const nonce = clone(real);
    nonce.nonce = '00'.repeat(32);
    const report = clone(real);
    report.oracleData.report = report.oracleData.report.replace(/f3: (\d+)u128/, (_: string, n: string) => `f3: ${BigInt(n) ^ 1n}u128`);
    const r = await postJson(`${realBackend.url}/verify`, { reports: [data, real, bareData, kind, nonce, report] });
    expect(r.status).toBe(200);
    expect(r.body.success).toBe(false);
    expect(r.body.validReports).toEqual([1]);
    expect(r.body.reportErrors.map((e: any) => [e.index, e.errorCode])).toEqual([
      [0, 'RESPONSE_FIELDS_MISMATCH'],
      [2, 'USERDATA_HASH_MISMATCH'],
      [3, 'REPORT_TYPE_MISMATCH'],
      [4, 'TYPEB_NONCE_MISMATCH'],
      [5, 'REPORT_MISMATCH'],
    ]);
    expect(r.body.errorMessage).toMatch(/^report 0: .*; report 2: /);
    // Each is a verdict on the evidence: invalid, none unverifiable.
    expect(r.body.reportErrors.map((e: any) => e.outcome)).toEqual(['invalid', 'invalid', 'invalid', 'invalid', 'invalid']);
    expect(r.body.unverifiableReports).toBeUndefined();
  });

  it('refuses the whole request, naming the entry, when an entry has the wrong shape (nothing is verified)', async () => {
    const calls = realBackend.calls();
    const refused = async (reports: unknown[]) => {
      const r = await postJson(`${realBackend.url}/verify`, { reports });
      expect(r.status).toBe(400);
      expect(r.body.success).toBe(false);
      expect(r.body.validReports).toEqual([]);
      expect(r.body.errorCode).toBe('HTTP_INVALID_BODY');
      return r.body.errorMessage as string;
    };
    const six = Array.from({ length: 6 }, () => clone(real));
    expect(await refused([...six, 'x'])).toBe('field "reports/6" must be an object, got a string');
    expect(await refused([{ ...clone(real), reportType: 'foo' }])).toBe('field "reports/0/reportType" must be "sgx" or "nitro", got "foo"');
    const { reportType: _t, ...untyped } = clone(real);
    expect(await refused([clone(real), untyped])).toBe('missing field "reports/1/reportType"');
    const numeric = clone(real);
    numeric.oracleData.userData = 42;
    expect(await refused([clone(real), numeric])).toBe('field "reports/1/oracleData/userData" must be a string, got a number');
    const header = clone(real);
    header.attestationRequest.requestHeaders = { Accept: 1 };
    expect(await refused([header])).toBe('field "reports/0/attestationRequest/requestHeaders/Accept" must be a string, got a number');
    const results = clone(real);
    results.attestationResults = [{ attestationData: '1', responseStatusCode: 200, timestamp: 1 }];
    expect(await refused([results])).toBe('missing field "reports/0/attestationResults/0/attestationRequest"');
    expect(realBackend.calls()).toBe(calls);
  });

  it('reads null objects of a Go client (oracleData, attestationResults, requestHeaders) as absent', async () => {
    const nulls = clone(real);
    nulls.oracleData = null;
    nulls.attestationResults = null;
    nulls.attestationRequest.requestHeaders = null;
    const r = await postJson(`${realBackend.url}/verify`, { reports: [nulls] });
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ success: true, validReports: [0] });
  });

  it('answers HTTP_NO_REPORTS and HTTP_TOO_MANY_REPORTS (before looking at the entries)', async () => {
    const none = await postJson(`${realBackend.url}/verify`, { reports: [] });
    expect(none.status).toBe(400);
    expect(none.body).toEqual({ success: false, validReports: [], errorMessage: 'no reports to verify', errorCode: 'HTTP_NO_REPORTS' });
    const many = await postJson(`${realBackend.url}/verify`, { reports: Array.from({ length: 17 }, () => 'x') });
    expect(many.status).toBe(400);
    expect(many.body).toEqual({ success: false, validReports: [], errorMessage: 'at most 16 reports per request, got 17', errorCode: 'HTTP_TOO_MANY_REPORTS' });
    const sixteen = await postJson(`${realBackend.url}/verify`, { reports: Array.from({ length: 16 }, () => clone(real)) });
    expect(sixteen.body).toEqual({ success: true, validReports: [...Array(16).keys()] });
  });

  it('does not re-encode a value longer than the userData (a price-feed float the encoder would accept)', async () => {
    const huge = clone(real);
    delete huge.oracleData;
    huge.attestationRequest.url = 'price_feed: btc';
    huge.attestationRequest.encodingOptions = { value: 'float', precision: 0 };
    huge.attestationData = (1n << 200_000n).toString(); // 60,206 digits, exactly a 64-bit-mantissa float
    const r = await postJson(`${realBackend.url}/verify`, { reports: [huge] });
    expect(r.status).toBe(200);
    expect(r.body.reportErrors.map((e: any) => e.errorCode)).toEqual(['RESPONSE_FIELDS_NOT_ENCODABLE']);
  });

  it('answers 400 without reports or with an unreadable body', async () => {
    for (const body of [{}, { reports: [] }, { reports: 'x' }, '{"reports": [', '']) {
      const r = await postJson(`${realBackend.url}/verify`, body);
      expect(r.status, JSON.stringify(body)).toBe(400);
      expect(r.body).toMatchObject({ success: false, validReports: [] });
      expect(typeof r.body.errorMessage).toBe('string');
    }
  });
});

describe('POST /verify with fresh simulator attestations', () => {
  it('accepts typeA (Open Enclave report + quote) and typeB documents and filters a tampered one', async () => {
    const a = await fresh(simA);
    const b = await fresh(simB);
    expect(a.attestationData).toBe('42');
    const bad = clone(b);
    const raw = Buffer.from(bad.attestationReport, 'base64');
    raw[100]! ^= 1;
    bad.attestationReport = raw.toString('base64');
    delete bad.oracleData;
    const r = await postJson(`${sims.url}/verify`, { reports: [a, bad, b] });
    expect(r.body.validReports).toEqual([0, 2]);
    expect(r.body.reportErrors).toHaveLength(1);
    expect(r.body.reportErrors[0].index).toBe(1);
  });

  it('refuses a typeA report whose MRENCLAVE is not the target, and a typeB document of an untrusted root', async () => {
    const other = await startVerificationBackend({ typeA, targets: { typeA: new Uint8Array(32).fill(1) } });
    try {
      const r = await postJson(`${other.url}/verify`, { reports: [await fresh(simA), await fresh(simB)] });
      expect(r.body.validReports).toEqual([]);
      expect(r.body.reportErrors[0].errorCode).toBe('TYPEA_UNIQUE_ID_MISMATCH');
      expect(r.body.reportErrors[1].index).toBe(1); // bundled AWS root, test-PKI document
    } finally {
      await other.close();
    }
  });
});

describe('POST /verify outcomes: per report, or the whole request when the verifier refused the work', () => {
  /** The route over a checker scripted per entry (its `nonce` names what happens to it). */
  async function scripted(script: Record<string, () => Promise<ReportCheck>>, admit?: (n: number) => void) {
    const app = Fastify({ logger: false, ajv: AJV_OPTIONS });
    app.setErrorHandler(httpErrorHandler);
    await app.register(verifyRoute((entry) => script[entry.nonce ?? '']!(), admit ? { admit } : {}));
    await app.listen({ port: 0, host: '127.0.0.1' });
    const url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
    return { post: (names: string[]) => postJson(`${url}/verify`, { reports: names.map((nonce) => ({ reportType: 'nitro', nonce })) }), close: () => app.close() };
  }
  const fails = (code: ErrorCode) => async (): Promise<ReportCheck> => ({ valid: false, error: { code, message: `${code} happened` } });
  const throws = (code: ErrorCode) => async (): Promise<ReportCheck> => {
    throw new VerifierError(code, `${code} thrown`);
  };
  const script = {
    valid: async (): Promise<ReportCheck> => ({ valid: true }),
    forged: fails('TYPEB_SIGNATURE_INVALID'),
    pccsDown: fails('PCCS_UNAVAILABLE'),
    staleCollateral: fails('TYPEA_TCB_INFO_EXPIRED'),
    pccsThrown: throws('PCCS_HTTP_ERROR'),
    timedOut: throws('POOL_TASK_TIMEOUT'),
    closed: throws('POOL_CLOSED'),
    workerDied: throws('POOL_WORKER_FAILED'),
  };

  it('valid, invalid and unverifiable reports each get their outcome; success only when all are valid', async () => {
    const s = await scripted(script);
    try {
      const r = await s.post(['valid', 'forged', 'pccsDown', 'valid', 'staleCollateral', 'pccsThrown']);
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({ success: false, validReports: [0, 3], unverifiableReports: [2, 4, 5] });
      expect(r.body.reportErrors).toEqual([
        { index: 1, errorCode: 'TYPEB_SIGNATURE_INVALID', errorMessage: 'TYPEB_SIGNATURE_INVALID happened', outcome: 'invalid' },
        { index: 2, errorCode: 'PCCS_UNAVAILABLE', errorMessage: 'PCCS_UNAVAILABLE happened', outcome: 'unverifiable' },
        { index: 4, errorCode: 'TYPEA_TCB_INFO_EXPIRED', errorMessage: 'TYPEA_TCB_INFO_EXPIRED happened', outcome: 'unverifiable' },
        { index: 5, errorCode: 'PCCS_HTTP_ERROR', errorMessage: 'PCCS_HTTP_ERROR thrown', outcome: 'unverifiable' },
      ]);
      expect(r.body.errorMessage).toBe(
        'report 1: TYPEB_SIGNATURE_INVALID happened; report 2: could not verify: PCCS_UNAVAILABLE happened; report 4: could not verify: TYPEA_TCB_INFO_EXPIRED happened; report 5: could not verify: PCCS_HTTP_ERROR thrown',
      );
      // Only unverifiable reports: still not a success (the SDKs keep validReports only), nothing invalid.
      const u = await s.post(['pccsDown', 'valid']);
      expect(u.body).toMatchObject({ success: false, validReports: [1], unverifiableReports: [0] });
      expect(u.body.reportErrors.map((e: any) => e.outcome)).toEqual(['unverifiable']);
      expect((await s.post(['valid', 'valid'])).body).toEqual({ success: true, validReports: [0, 1] });
    } finally {
      await s.close();
    }
  });

  it('a report the pool timed out, refused or lost makes the whole request the pool\'s answer (503 + Retry-After, or 500)', async () => {
    const s = await scripted(script);
    try {
      for (const [name, status, code] of [['timedOut', 503, 'POOL_TASK_TIMEOUT'], ['closed', 503, 'POOL_CLOSED'], ['workerDied', 500, 'POOL_WORKER_FAILED']] as const) {
        const r = await s.post(['valid', 'forged', name, 'valid']);
        expect(r.status, name).toBe(status);
        expect(r.headers.get('retry-after'), name).toBe(status === 503 ? '1' : null);
        expect(r.body, name).toEqual({ success: false, validReports: [], errorMessage: `${code} thrown`, errorCode: code });
      }
    } finally {
      await s.close();
    }
  });

  it('a batch the pool has no room for is refused before any report is checked', async () => {
    let checked = 0;
    const counting = Object.fromEntries(Object.entries(script).map(([k, f]) => [k, () => (checked++, f())]));
    const s = await scripted(counting, (n) => {
      if (n > 2) throw new VerifierError('POOL_OVERLOADED', `no room for ${n}`);
    });
    try {
      const r = await s.post(['valid', 'valid', 'valid']);
      expect(r.status).toBe(503);
      expect(r.headers.get('retry-after')).toBe('1');
      expect(r.body).toEqual({ success: false, validReports: [], errorMessage: 'no room for 3', errorCode: 'POOL_OVERLOADED' });
      expect(checked).toBe(0);
      expect((await s.post(['valid', 'valid'])).body).toEqual({ success: true, validReports: [0, 1] });
      expect(checked).toBe(2);
    } finally {
      await s.close();
    }
  });
});
