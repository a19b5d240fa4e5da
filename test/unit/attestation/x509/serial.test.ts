/**
 * Serial numbers read the same way in certificates and CRL entries: a negative serial is refused
 * in both (X509_NEGATIVE_SERIAL), so that −255 (two's complement ff01) can never take the lookup
 * key of CRL entry 65281 (00ff01).
 */
import { describe, expect, it } from 'vitest';
import { parseCertificate } from '../../../../src/attestation/x509/certificate.js';
import { isRevoked, parseCrl } from '../../../../src/attestation/x509/crl.js';
import { crl, issue } from '../../../support/typea-pki.js';
import { generateEcKey, integer, mintCertificate, name } from '../../../support/x509-mint.js';
import { codeOf } from '../../../support/errors.js';

const T0 = Date.UTC(2026, 0, 1);
const DAY = 86_400_000;
const ca = issue({ subject: 'Serial Test CA', issuer: 'self', serial: 1n, notBefore: T0 - DAY, notAfter: T0 + 365 * DAY, ca: true });

function certWithSerial(serial: bigint): Uint8Array {
  return mintCertificate({
    subject: name({ CN: `serial ${serial}` }),
    issuer: new Uint8Array(ca.cert.subject),
    subjectKey: generateEcKey('P-256').publicKey,
    issuerKey: ca.key.privateKey,
    notBefore: T0 - DAY,
    notAfter: T0 + DAY,
    serial,
  });
}

describe('serial numbers', () => {
  it('the minting helper encodes −255 as ff01 and 65281 as 00ff01 (the colliding pair)', () => {
    expect(Buffer.from(integer(-255n)).toString('hex')).toBe('0202ff01');
    expect(Buffer.from(integer(65281n)).toString('hex')).toBe('020300ff01');
    expect(Buffer.from(integer(-128n)).toString('hex')).toBe('020180');
    expect(Buffer.from(integer(-129n)).toString('hex')).toBe('0202ff7f');
  });

  it('a certificate with a negative serial is refused with X509_NEGATIVE_SERIAL', () => {
    expect(codeOf(() => parseCertificate(certWithSerial(-255n)))).toBe('X509_NEGATIVE_SERIAL');
    expect(codeOf(() => parseCertificate(certWithSerial(-1n)))).toBe('X509_NEGATIVE_SERIAL');
    expect(() => parseCertificate(certWithSerial(-255n))).toThrow(/serialNumber is negative \(two's complement ff01\)/);
  });

  it('a CRL listing a negative serial is refused with the same code', () => {
    const der = crl(ca, T0 - DAY, T0 + DAY, [7n, -255n]);
    expect(codeOf(() => parseCrl(der, 'PCK CRL'))).toBe('X509_NEGATIVE_SERIAL');
    expect(() => parseCrl(der)).toThrow(/userCertificate is negative \(two's complement ff01\)/);
  });

  it('−255 never matches CRL entry 65281; 65281 itself does', () => {
    const list = parseCrl(crl(ca, T0 - DAY, T0 + DAY, [65281n]));
    expect([...list.revoked]).toEqual(['ff01']);
    const revoked = parseCertificate(certWithSerial(65281n));
    expect(revoked.serialHex).toBe('ff01');
    expect(isRevoked(list, revoked.serialHex)).toBe(true);
    expect(codeOf(() => parseCertificate(certWithSerial(-255n)))).toBe('X509_NEGATIVE_SERIAL');
  });

  it('positive serials keep their keys: high bit with a sign octet, 20 octets at most, in both', () => {
    const big = (1n << 159n) + 5n; // 20 octets, high bit set → 21 with the sign octet
    expect(parseCertificate(certWithSerial(big)).serialHex).toBe(big.toString(16));
    expect([...parseCrl(crl(ca, T0 - DAY, T0 + DAY, [big, 0x80n])).revoked]).toEqual([big.toString(16), '80']);
    const tooBig = 1n << 160n; // 21 octets of value
    expect(codeOf(() => parseCertificate(certWithSerial(tooBig)))).toBe('X509_MALFORMED');
    expect(codeOf(() => parseCrl(crl(ca, T0 - DAY, T0 + DAY, [tooBig])))).toBe('CRL_MALFORMED');
  });
});
