/**
 * The PCCS client and the caching collateral source against a real local PCCS-compatible HTTP
 * server serving the real Intel PCS collateral recorded on 2026-09-22.
 */
import { readFileSync } from 'node:fs';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { PccsClient, crlBytes } from '../../src/collateral/pccsClient.js';
import { PccsCollateralSource } from '../../src/collateral/pccsSource.js';
import { quotePlatform } from '../../src/collateral/platform.js';
import { parseQuote, cutTypeAReport } from '../../src/attestation/typeA/quote.js';
import { verifyQuote } from '../../src/attestation/typeA/verify.js';
import { parsePemChain } from '../../src/attestation/x509/certificate.js';
import { recordedBundle2026, startPccsServer, type PccsServer } from '../support/pccs-server.js';
import { VECTORS, readVectorHex, vectorPath } from '../support/paths.js';

const T = 1790121600_000; // 2026-09-23T00:00:00Z
const root = parsePemChain(readFileSync(vectorPath('sgx/intel-root/IntelSGXRootCA.pem'), 'utf8'))[0]!;
const quote = parseQuote(cutTypeAReport(readVectorHex('sgx/oracle-sgx-report.hex')));
let pccs: PccsServer;

beforeAll(async () => {
  pccs = await startPccsServer(recordedBundle2026(VECTORS));
});
afterAll(async () => pccs?.close());
afterEach(() => {
  pccs.requests.length = 0;
  pccs.clearInjected();
});

// A generous per-request limit: only the timeout test is about timeouts; elsewhere a limit hit on a
// loaded machine would add a retry and change the request counts the tests check.
const client = (o: Partial<ConstructorParameters<typeof PccsClient>[0]> = {}) => new PccsClient({ baseUrl: pccs.url, timeoutMs: 30_000, backoffMs: 10, ...o });

describe('PccsClient', () => {
  it('fetches TCB info, QE identity and CRLs with their issuer chains', async () => {
    const c = client();
    const tcb = await c.tcbInfo('00906ED50000');
    expect(tcb.body.startsWith('{"tcbInfo":')).toBe(true);
    expect(parsePemChain(tcb.issuerChain).map((x) => x.subjectText)).toEqual([expect.stringContaining('Intel SGX TCB Signing'), expect.stringContaining('Intel SGX Root CA')]);
    const qe = await c.qeIdentity();
    expect(qe.body.startsWith('{"enclaveIdentity":')).toBe(true);
    const pck = await c.pckCrl('processor');
    expect(pck.der[0]).toBe(0x30);
    expect(parsePemChain(pck.issuerChain)).toHaveLength(2);
    const rootCrl = await c.rootCaCrl();
    expect(rootCrl[0]).toBe(0x30);
    expect(pccs.requests).toContain('GET /sgx/certification/v4/tcb?fmspc=00906ed50000');
  });

  it('accepts CRL bodies as DER, hex or PEM and rejects anything else', () => {
    const der = Uint8Array.from(Buffer.from(readFileSync(vectorPath('sgx/intel-pcs-2026-09-22/root_ca_crl.der.hex'), 'utf8').trim(), 'hex'));
    expect(crlBytes(der, 'x')).toEqual(der);
    expect(crlBytes(Buffer.from(Buffer.from(der).toString('hex')), 'x')).toEqual(der);
    const pem = `-----BEGIN X509 CRL-----\n${Buffer.from(der).toString('base64')}\n-----END X509 CRL-----\n`;
    expect(crlBytes(Buffer.from(pem), 'x')).toEqual(der);
    expect(() => crlBytes(Buffer.from('<html>oops</html>'), 'x')).toThrow(/neither DER, hex nor PEM/);
  });

  it('retries 5xx and 429 a bounded number of times, then says the PCCS is unavailable', async () => {
    pccs.inject('qe/identity', { status: 503 }, { status: 429 });
    expect((await client().qeIdentity()).body).toMatch(/enclaveIdentity/);
    expect(pccs.requests.filter((r) => r.includes('qe/identity'))).toHaveLength(3);
    pccs.requests.length = 0;
    pccs.inject('qe/identity', { status: 500 }, { status: 500 }, { status: 500 });
    await expect(client({ retries: 2 }).qeIdentity()).rejects.toMatchObject({ code: 'PCCS_UNAVAILABLE', message: expect.stringMatching(/after 3 attempts \(HTTP 500\)/) });
    expect(pccs.requests).toHaveLength(3);
  });

  it('times out slow answers and fails on dropped connections', async () => {
    pccs.inject('tcb', { status: 200, delayMs: 800, body: '{}' }, { status: 0 });
    await expect(client({ retries: 1, timeoutMs: 200 }).tcbInfo('00906ed50000')).rejects.toMatchObject({ code: 'PCCS_UNAVAILABLE' });
  });

  it('reports 404, missing issuer chains and garbage clearly', async () => {
    await expect(client().tcbInfo('001122334455')).rejects.toMatchObject({ code: 'PCCS_NOT_FOUND' });
    pccs.inject('tcb', { status: 200, body: '{"tcbInfo":{}}' });
    await expect(client().tcbInfo('00906ed50000')).rejects.toMatchObject({ code: 'PCCS_BAD_RESPONSE', message: expect.stringMatching(/issuer chain header missing/) });
    pccs.inject('pckcrl', { status: 200, body: 'garbage!', headers: { 'SGX-PCK-CRL-Issuer-Chain': encodeURIComponent(readFileSync(vectorPath('sgx/intel-root/IntelSGXRootCA.pem'), 'utf8')) } });
    await expect(client().pckCrl('processor')).rejects.toMatchObject({ code: 'PCCS_BAD_RESPONSE' });
    await expect(client().tcbInfo('not-hex')).rejects.toMatchObject({ code: 'PCCS_BAD_RESPONSE' });
  });
});

describe('PccsCollateralSource', () => {
  const source = (now = () => T) => new PccsCollateralSource(client(), { root, now });

  it('supplies verified collateral with which the real quote verifies as OutOfDate', async () => {
    const s = source();
    const vc = await s.forReport(quote, T);
    const verdict = verifyQuote(quote, vc, { root, time: T });
    expect(verdict.tcbStatus).toBe('OutOfDate');
    expect(verdict.tcbStatusCode).toBe(1);
    expect(quotePlatform(quote)).toEqual({ fmspc: '00906ed50000', ca: 'processor' });
  });

  it('serves warm requests from the cache and makes one request per piece for concurrent misses', async () => {
    const s = source();
    const all = await Promise.all(Array.from({ length: 8 }, () => s.forReport(quote, T)));
    expect(new Set(all).size).toBe(1);
    expect(pccs.requests.filter((r) => r.includes('/tcb?'))).toHaveLength(1);
    expect(pccs.requests.filter((r) => r.includes('qe/identity'))).toHaveLength(1);
    expect(pccs.requests.filter((r) => r.includes('pckcrl'))).toHaveLength(1);
    expect(pccs.requests.filter((r) => r.includes('rootcacrl'))).toHaveLength(1);
    const n = pccs.requests.length;
    expect(await s.forReport(quote, T)).toBe(all[0]);
    expect(pccs.requests).toHaveLength(n);
  });

  it('keeps verifying from the cache during a PCCS outage while the collateral is valid', async () => {
    let now = T;
    const s = source(() => now);
    await s.forReport(quote, T);
    // Past every nextUpdate: entries are stale, the PCCS is down → the cached collateral is served,
    // and the verifier's own time checks decide (still valid at T).
    now = Date.UTC(2026, 10, 1);
    for (const p of ['tcb', 'qe/identity', 'pckcrl', 'rootcacrl']) pccs.inject(p, { status: 500 }, { status: 500 }, { status: 500 });
    const vc = await s.forReport(quote, T);
    expect(verifyQuote(quote, vc, { root, time: T }).tcbStatus).toBe('OutOfDate');
    expect(() => verifyQuote(quote, vc, { root, time: now })).toThrow();
  });

  it('refreshes in the background shortly before nextUpdate', async () => {
    let now = T;
    const s = source(() => now);
    const first = await s.forReport(quote, T);
    const refreshed = pccs.nextAnswered((r) => r.includes('/pckcrl?'));
    now = Date.UTC(2026, 9, 22, 14, 30, 0); // within the last hour before the PCK CRL nextUpdate (15:02:18Z)
    const second = await s.forReport(quote, T);
    expect(second).toBe(first); // served at once from the cache
    await refreshed; // the refresh went out in the background and was answered
  });

  it('fails clearly when the PCCS is down and nothing is cached', async () => {
    for (const p of ['tcb', 'qe/identity', 'pckcrl', 'rootcacrl']) pccs.inject(p, { status: 502 }, { status: 502 }, { status: 502 });
    await expect(source().forReport(quote, T)).rejects.toMatchObject({ code: 'PCCS_UNAVAILABLE' });
  });
});
