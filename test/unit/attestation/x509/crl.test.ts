import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCertificate, parsePemChain } from '../../../../src/attestation/x509/certificate.js';
import { checkCrlTime, isRevoked, parseCrl, verifyCrl } from '../../../../src/attestation/x509/crl.js';
import { codeOf, NO_ERROR } from '../../../support/errors.js';

const SGX = path.resolve(process.cwd(), '../shared/vectors/sgx');
const read = (p: string): Buffer => readFileSync(path.join(SGX, p));
const hexFile = (p: string): Uint8Array => new Uint8Array(Buffer.from(read(p).toString('utf8').trim(), 'hex'));
const root = parseCertificate(new Uint8Array(read('intel-root/IntelSGXRootCA.der')));
const pckCrl2026 = hexFile('intel-pcs-2026-09-22/pck_crl_processor.der.hex');
const rootCrl2026 = hexFile('intel-pcs-2026-09-22/root_ca_crl.der.hex');
const oracleCollateral = JSON.parse(read('derived-collateral/oracle-sgx-report.collateral-2026-09-22.json').toString('utf8'));
const processorCa = parsePemChain(oracleCollateral.pck_crl_issuer_chain)[0]!;


describe('parseCrl on real Intel CRLs', () => {
  it('2026 processor CRL: 13 revoked serials, dates, issuer', () => {
    const crl = parseCrl(pckCrl2026);
    expect(crl.revoked.size).toBe(13);
    expect(isRevoked(crl, '5b0bf77b49c75aaba21cf76ad14224c0514fdcf4')).toBe(true);
    // High-bit serial: encoded with a 00 sign octet, listed without it.
    expect(isRevoked(crl, 'CA5D548CF6836573B159273E2B8BD3B1B663DD36')).toBe(true);
    expect([...crl.revoked].every((s) => /^[0-9a-f]+$/.test(s) && !s.startsWith('00'))).toBe(true);
    expect(new Date(crl.thisUpdate).toISOString()).toBe('2026-09-22T15:02:18.000Z');
    expect(new Date(crl.nextUpdate).toISOString()).toBe('2026-10-22T15:02:18.000Z');
    expect(crl.signatureAlgorithm).toBe('1.2.840.10045.4.3.2');
    expect(Buffer.from(crl.issuer).equals(processorCa.subject)).toBe(true);
    expect(crl.extensions.map((e) => e.oid)).toEqual(['2.5.29.20', '2.5.29.35']);
  });
  it('2026 root CA CRL: empty, signed by the root', () => {
    const crl = parseCrl(rootCrl2026);
    expect(crl.revoked.size).toBe(0);
    expect(codeOf(() => verifyCrl(crl, root, Date.UTC(2026, 8, 23), 'Root CA CRL'))).toBe(NO_ERROR);
  });
  it('revoked counts of the other vectors (3 and 44)', () => {
    const c = (f: string): number => parseCrl(new Uint8Array(Buffer.from(JSON.parse(read(f).toString('utf8')).pck_crl, 'hex'))).revoked.size;
    expect(c('derived-collateral/signal-cds2_test.collateral.json')).toBe(3);
    expect(c('derived-collateral/signal-dcap.collateral.json')).toBe(44);
  });
});

describe('verifyCrl', () => {
  const crl = parseCrl(pckCrl2026);
  const t = Date.UTC(2026, 8, 23);
  it('accepts the processor CRL with its CA', () => expect(codeOf(() => verifyCrl(crl, processorCa, t, 'PCK CRL'))).toBe(NO_ERROR));
  it('refuses another issuer', () => expect(codeOf(() => verifyCrl(crl, root, t, 'PCK CRL'))).toBe('CRL_ISSUER_MISMATCH'));
  it('refuses a broken signature', () => {
    const bad = pckCrl2026.slice();
    bad[bad.length - 5]! ^= 1;
    expect(codeOf(() => verifyCrl(parseCrl(bad), processorCa, t, 'PCK CRL'))).toBe('CRL_BAD_SIGNATURE');
  });
  it('refuses a changed TBS (revoked list edited)', () => {
    const bad = pckCrl2026.slice();
    const i = Buffer.from(bad).indexOf(Buffer.from('5b0bf77b49c75aaba21cf76ad14224c0514fdcf4', 'hex'));
    bad[i]! ^= 1;
    expect(codeOf(() => verifyCrl(parseCrl(bad), processorCa, t, 'PCK CRL'))).toBe('CRL_BAD_SIGNATURE');
  });
  it('time bounds are inclusive, with precise messages', () => {
    expect(codeOf(() => checkCrlTime(crl, crl.thisUpdate, 'x'))).toBe(NO_ERROR);
    expect(codeOf(() => checkCrlTime(crl, crl.nextUpdate, 'x'))).toBe(NO_ERROR);
    expect(codeOf(() => checkCrlTime(crl, crl.thisUpdate - 1000, 'x'))).toBe('CRL_NOT_YET_VALID');
    expect(() => checkCrlTime(crl, crl.nextUpdate + 1000, 'PCK CRL')).toThrow('PCK CRL: expired at 2026-10-22T15:02:18Z (its nextUpdate; verification time 2026-10-22T15:02:19Z)');
  });
});

describe('parseCrl strictness', () => {
  it('truncation at every offset → CRL_MALFORMED', () => {
    for (let n = 0; n < rootCrl2026.length; n++) expect(codeOf(() => parseCrl(rootCrl2026.subarray(0, n)))).toBe('CRL_MALFORMED');
  });
  it('trailing byte → CRL_MALFORMED', () => {
    const longer = new Uint8Array(rootCrl2026.length + 1);
    longer.set(rootCrl2026);
    expect(codeOf(() => parseCrl(longer))).toBe('CRL_MALFORMED');
  });
  it('a certificate is not a CRL', () => expect(codeOf(() => parseCrl(root.der))).toBe('CRL_MALFORMED'));
  it('single-byte edits either parse or fail with a CRL_ code, never another exception', () => {
    // codeOf rethrows anything that is not a VerifierError, so a crash fails the test here.
    const outcomes = new Map<string, number>();
    for (let i = 0; i < pckCrl2026.length; i += 3) {
      const b = pckCrl2026.slice();
      b[i]! ^= 0x5a;
      const code = codeOf(() => parseCrl(b));
      if (code !== NO_ERROR) expect(code, `edit at ${i}`).toMatch(/^CRL_/);
      outcomes.set(code, (outcomes.get(code) ?? 0) + 1);
    }
    // Both outcomes occur: edits in the header are refused, edits inside serials or signature bytes parse.
    expect(outcomes.get('CRL_MALFORMED')).toBeGreaterThan(0);
    expect(outcomes.get(NO_ERROR)).toBeGreaterThan(0);
  });
});
