/**
 * NotarizerClient against two notarizer simulators (typeA quotes, typeB documents, minted by the
 * test PKIs) and a verification backend running the real /verify route over real HTTP.
 */
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createTypeBPki } from '../support/typeb-pki.js';
import { mintTypeAPki } from '../support/typea-pki.js';
import { startNotarizerSim, startVerificationBackend, type NotarizerSim, type VerificationBackend } from '../support/notarizer-sim.js';
import {
  AttestationIntegrityError,
  NotarizationError,
  NotarizerClient,
  RequestValidationError,
  targetsFromInfo,
  type AttestationRequest,
} from '../../src/client/index.js';
import { encodeProofData, padProofData } from '../../src/encoding/encode.js';
import { formatChunkedStruct } from '../../src/aleo/struct.js';
import { defaultPcrs } from '../support/typeb-pki.js';

const PRICE = JSON.stringify({ price: '123.4567', list: [{ v: '7' }, { v: 'x' }] });
const UP_TO_DATE = { components: [21, 21, 2, 4, 1, 128, 14, 0, 0, 0, 0, 0, 0, 0, 0, 0], pceSvn: 13, fmspc: '00906ED50000', pceId: '0000' };

const req: AttestationRequest = {
  url: 'api.example.com/price',
  requestMethod: 'GET',
  selector: 'price',
  responseFormat: 'json',
  encodingOptions: { value: 'float', precision: 2 },
  requestHeaders: { Authorization: 'Bearer secret', 'Accept-Language': 'en' },
};

async function rejection(p: Promise<unknown>): Promise<any> {
  try {
    await p;
  } catch (e) {
    return e;
  }
  throw new Error('expected a rejection');
}

let simA: NotarizerSim;
let simB: NotarizerSim;
let verifier: VerificationBackend;
let client: NotarizerClient;

beforeAll(async () => {
  const typeA = mintTypeAPki({ pckTcb: UP_TO_DATE });
  const typeB = createTypeBPki();
  const targets = { 'api.example.com/price': { body: PRICE } };
  simA = await startNotarizerSim({ kind: 'typeA', typeA, whitelist: ['api.example.com'], targets });
  simB = await startNotarizerSim({ kind: 'typeB', typeB, whitelist: ['API.example.com'], targets });
  verifier = await startVerificationBackend({ typeA, typeB });
  client = new NotarizerClient({ notarizers: [simA.url, simB.url + '/'], verifier: verifier.url });
});
afterAll(async () => {
  await simA?.close();
  await simB?.close();
  await verifier?.close();
});
beforeEach(() => {
  for (const s of [simA, simB]) {
    s.tamper = undefined;
    s.clockOffsetSeconds = 0;
    s.delayMs = 0;
    s.targets.set('api.example.com/price', { body: PRICE });
  }
});

describe('notarize', () => {
  it('returns one verified attestation per notarizer (typeA and typeB), data truncated, headers masked', async () => {
    const before = verifier.calls();
    const out = await client.notarize(req, { maxTimeDeviation: 5000 });
    expect(out.map((a) => a.reportType)).toEqual(['sgx', 'nitro']);
    expect(out.map((a) => a.attestationData)).toEqual(['123.45', '123.45']);
    expect(out.map((a) => a.enclaveUrl)).toEqual([simA.url, simB.url]);
    expect(verifier.calls() - before).toBe(2);
    const sent = simB.notarizeRequests.at(-1)!.body;
    expect(sent.debugRequest).toBe(false);
    expect(sent.requestHeaders).toMatchObject({ Accept: '*/*', DNT: '1', 'Upgrade-Insecure-Requests': '1', Authorization: 'Bearer secret' });
    expect(out[1]!.attestationRequest.requestHeaders).toMatchObject({ Authorization: '*****', 'Accept-Language': 'en', DNT: '1' });
    expect(out[1]!.nonce).toMatch(/^[0-9a-f]{64}$/);
  });

  it('dataShouldMatch (default on) rejects differing data; off, both attestations are returned', async () => {
    simB.targets.set('api.example.com/price', { body: JSON.stringify({ price: '124.1' }) });
    const e = await rejection(client.notarize(req));
    expect(e).toBeInstanceOf(AttestationIntegrityError);
    expect(e.code).toBe('DATA_MISMATCH');
    expect(e.message).toContain('"124.1"');
    const out = await client.notarize(req, { dataShouldMatch: false });
    expect(out.map((a) => a.attestationData)).toEqual(['123.45', '124.1']);
  });

  it('maxTimeDeviation is milliseconds against timestamps in seconds', async () => {
    simB.clockOffsetSeconds = 4; // spread 3–5 s whatever second boundary falls between the two
    const e = await rejection(client.notarize(req, { maxTimeDeviation: 2000 }));
    expect(e).toBeInstanceOf(AttestationIntegrityError);
    expect(e.code).toBe('TIME_DEVIATION');
    expect(e.message).toMatch(/deviate by (3000|4000|5000) ms/);
    const out = await client.notarize(req, { maxTimeDeviation: 6000 });
    expect(out[1]!.timestamp - out[0]!.timestamp).toBeGreaterThanOrEqual(3);
  });

  it('a tampered attestation is rejected by the verifier, naming the attester and the reason', async () => {
    simB.tamper = (a) => {
      a.attestationData = '999.99';
    };
    const e = await rejection(client.notarize(req, { dataShouldMatch: false }));
    expect(e).toBeInstanceOf(AttestationIntegrityError);
    expect(e.code).toBe('VERIFICATION_FAILED');
    expect(e.attesters).toEqual([simB.url]);
    expect(e.message).toContain('RESPONSE_FIELDS_MISMATCH');

    // consistent forgery: data and userData re-encoded, the report still binds the original
    simA.tamper = (a) => {
      a.attestationData = '999.99';
      const q = a.attestationRequest;
      const ud = padProofData(encodeProofData({ ...q, selector: q.selector ?? '', encodingOptions: { value: 'float', precision: 2 }, attestationData: '999.99', responseStatusCode: 200, timestamp: a.timestamp }));
      a.oracleData!.userData = formatChunkedStruct(ud, 8, 'reference');
    };
    simB.tamper = (a) => {
      const raw = Buffer.from(a.attestationReport, 'base64');
      raw[raw.length - 5]! ^= 1; // inside the COSE signature
      a.attestationReport = raw.toString('base64');
      delete a.oracleData;
    };
    const e2 = await rejection(client.notarize(req, { dataShouldMatch: false }));
    expect(e2.code).toBe('VERIFICATION_FAILED');
    expect(e2.attesters).toEqual([simA.url, simB.url]);
    expect(e2.message).toMatch(new RegExp(`${simA.url} \\(sgx\\): USERDATA_HASH_MISMATCH`));
    expect(e2.message).toMatch(new RegExp(`${simB.url} \\(nitro\\): \\w+`));
  });

  it('an attestation of the wrong shape: the verifier refuses the whole request and the client says why', async () => {
    const [a, b] = await client.notarize(req);
    const e = await rejection(client.verifyAttestations([a!, { ...b!, timestamp: String(b!.timestamp) as unknown as number }]));
    expect(e).toBeInstanceOf(AttestationIntegrityError);
    expect(e.code).toBe('VERIFICATION_FAILED');
    expect(e.message).toBe('verification backend answered HTTP 400: field "reports/1/timestamp" must be an integer, got a string');
  });

  it('a notarizer attesting another request than the one sent is refused', async () => {
    simA.tamper = (a) => {
      a.attestationRequest.selector = 'list.[0].v';
    };
    const e = await rejection(client.notarize(req));
    expect(e.code).toBe('REQUEST_MISMATCH');
    expect(e.attesters).toEqual([simA.url]);
  });

  it('whitelist: the notarizers refuse with 390; a local whitelist refuses before sending', async () => {
    simB.targets.set('evil.example.org/x', { body: PRICE });
    const e = await rejection(client.notarize({ ...req, url: 'evil.example.org/x' }));
    expect(e).toBeInstanceOf(NotarizationError);
    expect(e.failures.map((f: any) => [f.attester, f.errorCode])).toEqual([
      [simA.url, 390],
      [simB.url, 390],
    ]);
    const lists = await client.whitelist();
    expect(lists.map((l) => l.hosts)).toEqual([['api.example.com'], ['api.example.com']]);
    const n = simA.notarizeRequests.length;
    const v = await rejection(client.notarize({ ...req, url: 'evil.example.org/x' }, { whitelist: lists[0]!.hosts }));
    expect(v).toBeInstanceOf(RequestValidationError);
    expect(v.errorCode).toBe(390);
    expect(simA.notarizeRequests.length).toBe(n);
  });

  it('invalid requests fail locally with the notarizer codes; a failing notarizer is named', async () => {
    const n = simA.notarizeRequests.length;
    expect((await rejection(client.notarize({ ...req, url: 'https://api.example.com/price' }))).errorCode).toBe(102);
    expect((await rejection(client.notarize({ ...req, encodingOptions: { value: 'float', precision: 13 } }))).errorCode).toBe(141);
    expect((await rejection(client.notarize({ ...req, responseFormat: 'html' }))).errorCode).toBe(114);
    expect(simA.notarizeRequests.length).toBe(n);

    simB.targets.delete('api.example.com/price');
    const e = await rejection(client.notarize(req));
    expect(e).toBeInstanceOf(NotarizationError);
    expect(e.failures).toHaveLength(1);
    expect(e.failures[0].attester).toBe(simB.url);
    expect(e.failures[0].errorCode).toBe(202);
  });

  it('times out per notarizer', async () => {
    // B answers after ten minutes; A has ten seconds, which it needs under no load to speak of.
    simB.delayMs = 600_000;
    const e = await rejection(client.notarize(req, { timeout: 10_000 }));
    expect(e).toBeInstanceOf(NotarizationError);
    expect(e.failures.map((f: any) => [f.attester, f.code])).toEqual([[simB.url, 'TIMEOUT']]);
  });
});

describe('testSelector, info', () => {
  it('returns the response body, extracted data and status, or the error with the body', async () => {
    const ok = await client.testSelector({ ...req, selector: 'list.[0].v', encodingOptions: { value: 'int' } });
    expect(ok.map((r) => [r.ok, r.extractedData, r.responseStatusCode, r.responseBody])).toEqual([
      [true, '7', 200, PRICE],
      [true, '7', 200, PRICE],
    ]);
    expect(simA.notarizeRequests.at(-1)!.body.debugRequest).toBe(true);
    const bad = await client.testSelector({ ...req, selector: 'list.[5].v' });
    expect(bad.every((r) => !r.ok && r.error?.errorCode === 222 && r.responseBody === PRICE)).toBe(true);
    const notInt = await client.testSelector({ ...req, selector: 'list.[1].v', encodingOptions: { value: 'int' } });
    expect(notInt[0]).toMatchObject({ ok: false, extractedData: 'x', error: { errorCode: 1001 } });
  });

  it('info() returns typed typeA/typeB records whose measurements are the verifier targets', async () => {
    const infos = await client.info();
    expect(infos.map((i) => [i.kind, i.reportType, i.enclaveUrl])).toEqual([
      ['typeA', 'sgx', simA.url],
      ['typeB', 'nitro', simB.url],
    ]);
    const t = targetsFromInfo(infos);
    expect(t.uniqueIdTarget).toBe(Buffer.alloc(32, 0x5a).toString('base64'));
    expect(t.pcrValuesTarget).toEqual(defaultPcrs().slice(0, 3).map((p) => Buffer.from(p).toString('base64')));
  });
});
