/**
 * Signed EARs from POST /decodeReport: each JWT verified with jose against the key of GET
 * /.well-known/jwks.json, its claims compared with the JSON verdict of the same request (valid:
 * the README's typeB example on the bundled config; invalid: the same report with one byte
 * changed); without EAR_SIGNING_KEY asking for an EAR is 406 EAR_NOT_CONFIGURED; the private key
 * appears in no answer.
 */
import { readFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createLocalJWKSet, exportPKCS8, generateKeyPair, jwtVerify, decodeProtectedHeader, type JSONWebKeySet } from 'jose';
import { startServer, postJson, type RunningServer } from '../support/server.js';

const root = process.cwd();
const bundled = JSON.parse(readFileSync(join(root, 'config.json'), 'utf8'));
const example = JSON.parse(readFileSync(join(root, 'examples/readme-request.json'), 'utf8'));
const P = 'org.aleo-oracle-verifier.';
const sha256 = (s: string): string => createHash('sha256').update(s, 'utf8').digest('hex');

/** The report with the last digit of a u128 in its middle changed (bytes of the signed document). */
function tampered(report: string): string {
  const at = report.indexOf('u128', Math.floor(report.length * 0.6)) - 1;
  const digit = report[at]!;
  return report.slice(0, at) + (digit === '1' ? '2' : '1') + report.slice(at + 1);
}

async function earOf(url: string, body: unknown, how: 'query' | 'accept'): Promise<{ status: number; type: string | null; text: string }> {
  const r = await fetch(`${url}/decodeReport${how === 'query' ? '?format=ear' : ''}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(how === 'accept' ? { accept: 'application/eat+jwt' } : {}) },
    body: JSON.stringify(body),
  });
  return { status: r.status, type: r.headers.get('content-type'), text: await r.text() };
}

describe('EAR from POST /decodeReport', () => {
  let srv: RunningServer;
  let pem: string;
  beforeAll(async () => {
    const { privateKey } = await generateKeyPair('ES256', { extractable: true });
    pem = await exportPKCS8(privateKey);
    process.env.EAR_SIGNING_KEY = pem;
    try {
      srv = await startServer(bundled, root);
    } finally {
      delete process.env.EAR_SIGNING_KEY;
    }
  });
  afterAll(async () => srv?.close());

  const verify = async (jwt: string) => {
    const jwks = (await (await fetch(`${srv.url}/.well-known/jwks.json`)).json()) as JSONWebKeySet;
    expect(jwks.keys).toHaveLength(1);
    expect(JSON.stringify(jwks)).not.toContain('"d"');
    return jwtVerify(jwt, createLocalJWKSet(jwks), { typ: 'eat+jwt' });
  };

  for (const [name, body] of [['valid', example], ['invalid', { ...example, report: tampered(example.report) }]] as const) {
    it(`${name}: the EAR is signed by the published key and says what the JSON verdict says`, async () => {
      const json = await postJson(`${srv.url}/decodeReport`, body);
      expect(json.status).toBe(200);
      expect(json.body.outcome).toBe(name);
      for (const how of ['query', 'accept'] as const) {
        const ear = await earOf(srv.url, body, how);
        expect(ear.status).toBe(200);
        expect(ear.type).toBe('application/eat+jwt; eat_profile="tag:github.com,2023:veraison/ear"');
        expect(decodeProtectedHeader(ear.text).alg).toBe('ES256');
        const { payload } = await verify(ear.text);
        expect(payload.eat_profile).toBe('tag:github.com,2023:veraison/ear');
        expect(Number.isInteger(payload.iat)).toBe(true);
        expect(payload['ear.verifier-id']).toMatchObject({ developer: 'oracle-report-verifier' });
        const submods = payload.submods as Record<string, any>;
        const kind = json.body.reportType ?? 'unknown';
        expect(Object.keys(submods)).toEqual([kind]);
        const a = submods[kind];
        expect(a['ear.status']).toBe(name === 'valid' ? 'affirming' : 'contraindicated');
        expect(a[`${P}outcome`]).toBe(json.body.outcome);
        expect(a[`${P}error-code`]).toBe(json.body.errorCode);
        expect(a['ear.appraisal-policy-id']).toMatch(/^sha256:[0-9a-f]{64}$/);
        expect(a[`${P}report-sha256`]).toBe(sha256(body.report));
        expect(a[`${P}user-data-sha256`]).toBe(sha256(body.userData));
        const binding = json.body.checks?.find((c: any) => c.id === 'binding')?.status;
        expect(a[`${P}binding`]).toBe(binding === 'passed' || binding === 'failed' ? binding : 'not_checked');
        if (name === 'valid') expect(a['ear.trustworthiness-vector']).toEqual({ hardware: 2, configuration: 2, executables: 2 });
        expect(ear.text).not.toContain(pem.split('\n')[1]!);
      }
    });
  }

  it('the tampered report fails its certificate chain: hardware 99, nothing claimed for what did not run', async () => {
    const body = { ...example, report: tampered(example.report) };
    const json = await postJson(`${srv.url}/decodeReport`, body);
    const { payload } = await verify((await earOf(srv.url, body, 'query')).text);
    const a = (payload.submods as any)[json.body.reportType ?? 'unknown'];
    expect(json.body.checks.find((c: any) => c.status === 'failed')?.id).toBe('typeB.chain');
    // The certificate chain failed: hardware is "cryptographic validation failed";
    // the PCR and debug checks never ran, so no claim is made for them.
    expect(a['ear.trustworthiness-vector']).toEqual({ hardware: 99, configuration: 2 });
  });

  it('the default answer is still the JSON verdict', async () => {
    const json = await postJson(`${srv.url}/decodeReport?format=json`, example);
    expect(json.headers.get('content-type')).toContain('application/json');
    expect(json.body.outcome).toBe('valid');
  });
});

describe('EAR without a signing key', () => {
  let srv: RunningServer;
  beforeAll(async () => {
    srv = await startServer(bundled, root);
  });
  afterAll(async () => srv?.close());

  it('asking for an EAR is 406 EAR_NOT_CONFIGURED; the key set is empty', async () => {
    const ear = await earOf(srv.url, example, 'query');
    expect(ear.status).toBe(406);
    expect(JSON.parse(ear.text).errorCode).toBe('EAR_NOT_CONFIGURED');
    expect(await (await fetch(`${srv.url}/.well-known/jwks.json`)).json()).toEqual({ keys: [] });
  });
});
