/**
 * The official JS SDK (@zkportal/aleo-oracle-sdk 2.1.1) pointed at the notarizer simulator and
 * our /verify route: it notarizes, and it filters or rejects what our route refuses.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTypeBPki } from '../support/typeb-pki.js';
import { startNotarizerSim, startVerificationBackend, type NotarizerSim, type VerificationBackend } from '../support/notarizer-sim.js';

type Sdk = any;
let sdk: Sdk;
try {
  sdk = await import('@zkportal/aleo-oracle-sdk');
} catch {
  sdk = undefined;
}
const sdkInstalled = sdk !== undefined;
if (!sdkInstalled && process.env.CI !== 'true') console.warn('client-sdk.test.ts: @zkportal/aleo-oracle-sdk is not installed (a devDependency): SKIPPED. In CI (CI=true) it fails instead.');

const req = {
  url: 'api.example.com/ticker',
  requestMethod: 'GET',
  selector: 'data.[0].price',
  responseFormat: 'json',
  encodingOptions: { value: 'float', precision: 3 },
  requestHeaders: { 'X-Api-Key': 'k' },
};
const BODY = JSON.stringify({ data: [{ price: '59408.0199' }] });

let sim: NotarizerSim;
let verifier: VerificationBackend;
let client: any;

function backend(url: string) {
  const u = new URL(url);
  return { address: u.hostname, port: Number(u.port), https: false, resolve: false };
}

beforeAll(async () => {
  const typeB = createTypeBPki();
  sim = await startNotarizerSim({ kind: 'typeB', typeB, whitelist: ['api.example.com'], targets: { [req.url]: { body: BODY } } });
  verifier = await startVerificationBackend({ typeB });
  if (sdkInstalled) client = new sdk.OracleClient({ notarizer: backend(sim.url), verifier: backend(verifier.url), quiet: true });
});
afterAll(async () => {
  await sim?.close();
  await verifier?.close();
});
beforeEach(() => {
  sim.tamper = undefined;
});

describe('official SDK against the simulator and our /verify', () => {
  it.skipIf(!sdkInstalled && process.env.CI !== 'true')('notarizes: the attestation passes our /verify and comes back with enclaveUrl', async () => {
    const before = verifier.calls();
    const out = await client.notarize(req, { dataShouldMatch: true, timeout: 60_000, maxTimeDeviation: undefined });
    expect(out).toHaveLength(1);
    expect(out[0].attestationData).toBe('59408.019');
    expect(out[0].enclaveUrl).toBe(sim.url);
    expect(out[0].attestationRequest.requestHeaders['X-Api-Key']).toBe('*****');
    expect(verifier.calls() - before).toBe(1);
    // the SDK sent its default headers merged under the user's
    expect(sim.notarizeRequests.at(-1)!.body.requestHeaders).toMatchObject({ Accept: '*/*', DNT: '1', 'X-Api-Key': 'k' });
  });

  it.skipIf(!sdkInstalled && process.env.CI !== 'true')('rejects a tampered attestation (our /verify returns no valid report)', async () => {
    sim.tamper = (a) => {
      a.attestationData = '1.000';
    };
    await expect(client.notarize(req)).rejects.toThrow(/verification failed for all reports: report 0: the response fields/);
    sim.tamper = (a) => {
      const raw = Buffer.from(a.attestationReport, 'base64');
      raw[raw.length - 1]! ^= 0x80;
      a.attestationReport = raw.toString('base64');
    };
    const e = await client.notarize(req).catch((x: unknown) => x);
    expect(e).toBeInstanceOf(sdk.AttestationIntegrityError);
  });

  it.skipIf(!sdkInstalled && process.env.CI !== 'true')('fails when the notarizer refuses (whitelist) and runs testSelector and enclavesInfo', async () => {
    const e = await client.notarize({ ...req, url: 'other.example.net/x' }).catch((x: unknown) => x);
    // the SDK stringifies its AttestationError objects as {} — only the failure itself is visible
    expect(String(e.message)).toMatch(/^all attestations failed/);
    expect(sim.notarizeRequests.at(-1)!.body.url).toBe('other.example.net/x');
    const dbg = await client.testSelector(req, 60_000);
    expect(dbg).toEqual([{ responseBody: BODY, responseStatusCode: 200, extractedData: '59408.0199' }]);
    const info = await client.enclavesInfo();
    expect(info[0]).toMatchObject({ reportType: 'nitro', enclaveUrl: sim.url });
  });
});
