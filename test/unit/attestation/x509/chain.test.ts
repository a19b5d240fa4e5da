import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { KEY_USAGE, parseCertificate, parsePemChain, type Certificate } from '../../../../src/attestation/x509/certificate.js';
import { verifyChain, verifyChainDer, type ChainPolicy } from '../../../../src/attestation/x509/chain.js';
import { ChainCache } from '../../../../src/attestation/x509/chainCache.js';
import {
  basicConstraintsExt,
  generateEcKey,
  keyUsageExt,
  mintCa,
  mintCertificate,
  name,
  octets,
  seq,
  toPem,
  type MintedCa,
  type MintExtension,
} from '../../../support/x509-mint.js';
import { codeOf } from '../../../support/errors.js';

const T = Date.UTC(2025, 5, 1);
const DAY = 86_400_000;

const root = mintCa({ subject: name({ CN: 'Test Root' }), curve: 'P-256', notBefore: T - 100 * DAY, notAfter: T + 100 * DAY });
const inter = mintCa({ subject: name({ CN: 'Test Intermediate' }), curve: 'P-256', issuer: root, notBefore: T - 10 * DAY, notAfter: T + 10 * DAY });
function leafUnder(issuer: MintedCa, o: { extensions?: MintExtension[]; notBefore?: number; notAfter?: number; hash?: 'sha256' | 'sha384' } = {}): Uint8Array {
  return mintCertificate({
    subject: name({ CN: 'Leaf' }),
    issuer: issuer.name,
    subjectKey: generateEcKey('P-256').publicKey,
    issuerKey: issuer.key.privateKey,
    notBefore: o.notBefore ?? T - DAY,
    notAfter: o.notAfter ?? T + DAY,
    hash: o.hash,
    extensions: o.extensions ?? [basicConstraintsExt(false), keyUsageExt([0])],
  });
}
const rootCert = parseCertificate(root.der);
const policy = (o: Partial<ChainPolicy> = {}): ChainPolicy => ({ time: T, root: rootCert, label: 'test', ...o });
const chainOf = (...ders: Uint8Array[]): Certificate[] => ders.map(parseCertificate);

describe('X.509 certificate parser', () => {
  it('parses the real AWS root and the oracle document leaf', () => {
    const aws = parsePemChain(readFileSync(path.resolve(process.cwd(), '../shared/vectors/nitro/aws-nitro-enclaves-root-g1.pem'), 'utf8'))[0]!;
    expect(aws.serialHex).toBe('f93175681b90afe11d46ccb4e4e7f856');
    expect(aws.keyUsage).toBe(KEY_USAGE.digitalSignature | KEY_USAGE.keyCertSign | KEY_USAGE.cRLSign);
    expect(aws.extensions.map((e) => [e.oid, e.critical])).toEqual([
      ['2.5.29.19', true],
      ['2.5.29.14', false],
      ['2.5.29.15', true],
    ]);
    expect(new Date(aws.notAfter).toISOString()).toBe('2049-10-28T14:28:05.000Z');
    expect(Buffer.from(aws.issuer).equals(Buffer.from(aws.subject))).toBe(true);
  });

  it('reads minted fields exactly', () => {
    const c = parseCertificate(inter.der);
    expect(c.subjectText).toBe('CN=Test Intermediate');
    expect(c.issuerText).toBe('CN=Test Root');
    expect(c.basicConstraints).toEqual({ ca: true });
    expect(c.signatureAlgorithm).toBe('1.2.840.10045.4.3.2');
    expect(c.publicKey.asymmetricKeyDetails?.namedCurve).toBe('prime256v1');
    expect(c.notBefore).toBe(T - 10 * DAY);
  });

  it('refuses malformed DER', () => {
    expect(codeOf(() => parseCertificate(new Uint8Array(0)))).toBe('X509_MALFORMED');
    expect(codeOf(() => parseCertificate(Buffer.concat([inter.der, Uint8Array.of(0)])))).toBe('X509_MALFORMED');
    expect(codeOf(() => parseCertificate(inter.der.subarray(0, inter.der.length - 1)))).toBe('X509_MALFORMED');
    expect(codeOf(() => parseCertificate(seq(octets(Uint8Array.of(1)))))).toBe('X509_MALFORMED');
    // every single-byte truncation/mutation gives a VerifierError
    for (let i = 0; i < inter.der.length; i += 3) {
      const b = inter.der.slice();
      b[i]! ^= 0xff;
      codeOf(() => parseCertificate(b));
    }
  });

  it('refuses duplicate extensions', () => {
    const dup = leafUnder(inter, { extensions: [keyUsageExt([0]), keyUsageExt([0])] });
    expect(codeOf(() => parseCertificate(dup))).toBe('X509_MALFORMED');
  });

  it('PEM parsing is strict', () => {
    const pem = toPem(root.der) + '\n' + toPem(inter.der);
    expect(parsePemChain(pem).map((c) => c.subjectText)).toEqual(['CN=Test Root', 'CN=Test Intermediate']);
    expect(codeOf(() => parsePemChain(toPem(root.der) + 'garbage\n' + toPem(inter.der)))).toBe('X509_PEM_MALFORMED');
    expect(codeOf(() => parsePemChain('hello'))).toBe('X509_PEM_MALFORMED');
    expect(codeOf(() => parsePemChain(''))).toBe('X509_PEM_MALFORMED');
    expect(codeOf(() => parsePemChain(toPem(root.der).replace('-----BEGIN CERTIFICATE-----\n', '-----BEGIN CERTIFICATE-----\n!')))).toBe('X509_PEM_MALFORMED');
    expect(codeOf(() => parsePemChain(toPem(root.der).replace('CERTIFICATE', 'PRIVATE KEY')))).toBe('X509_PEM_MALFORMED');
  });
});

describe('X.509 chain validation', () => {
  it('accepts a valid chain (P-256, SHA-256) and reports the leaf policy', () => {
    const chain = chainOf(leafUnder(inter), inter.der, root.der);
    verifyChain(chain, policy());
    verifyChain(chain, policy({ leafKeyCurve: 'P-256', leafSignatureAlgorithms: ['1.2.840.10045.4.3.2'] }));
    expect(codeOf(() => verifyChain(chain, policy({ leafKeyCurve: 'P-384' })))).toBe('X509_CHAIN_BAD_LEAF_KEY');
    expect(codeOf(() => verifyChain(chain, policy({ leafSignatureAlgorithms: ['1.2.840.10045.4.3.3'] })))).toBe('X509_CHAIN_BAD_LEAF_ALGORITHM');
  });

  it('validity bounds are inclusive and name the certificate', () => {
    const chain = chainOf(leafUnder(inter), inter.der, root.der);
    verifyChain(chain, policy({ time: T - DAY }));
    expect(codeOf(() => verifyChain(chain, policy({ time: T - DAY - 1 })))).toBe('X509_CHAIN_NOT_YET_VALID');
    expect(() => verifyChain(chain, policy({ time: T + 11 * DAY }))).toThrow(
      'test: certificate chain: leaf "CN=Leaf" not valid at 2025-06-12T00:00:00Z (valid 2025-05-31T00:00:00Z to 2025-06-02T00:00:00Z)',
    );
    const longLeaf = chainOf(leafUnder(inter, { notAfter: T + 50 * DAY }), inter.der, root.der);
    expect(() => verifyChain(longLeaf, policy({ time: T + 11 * DAY }))).toThrow(/intermediate 1 "CN=Test Intermediate" not valid/);
  });

  it('trust anchor, linkage, CA flags, key usage, path length, critical extensions, signatures', () => {
    const leaf = leafUnder(inter);
    const otherRoot = mintCa({ subject: name({ CN: 'Test Root' }), curve: 'P-256', notBefore: T - DAY, notAfter: T + DAY });
    expect(codeOf(() => verifyChain(chainOf(leaf, inter.der, otherRoot.der), policy()))).toBe('X509_CHAIN_UNTRUSTED_ROOT');
    // same names, different key: the byte pin catches it before anything else
    expect(codeOf(() => verifyChain(chainOf(leaf, inter.der), policy()))).toBe('X509_CHAIN_UNTRUSTED_ROOT');
    expect(codeOf(() => verifyChain(chainOf(leaf, root.der), policy()))).toBe('X509_CHAIN_NAME_MISMATCH');
    expect(codeOf(() => verifyChain([rootCert], policy()))).toBe('X509_CHAIN_TOO_SHORT');
    expect(codeOf(() => verifyChain([], policy()))).toBe('X509_CHAIN_TOO_SHORT');

    const notCa = mintCa({ subject: name({ CN: 'I' }), curve: 'P-256', issuer: root, notBefore: T - DAY, notAfter: T + DAY, extensions: [basicConstraintsExt(false)] });
    expect(codeOf(() => verifyChain(chainOf(leafUnder(notCa), notCa.der, root.der), policy()))).toBe('X509_CHAIN_NOT_CA');
    const noBc = mintCa({ subject: name({ CN: 'I' }), curve: 'P-256', issuer: root, notBefore: T - DAY, notAfter: T + DAY, extensions: [keyUsageExt([5])] });
    expect(codeOf(() => verifyChain(chainOf(leafUnder(noBc), noBc.der, root.der), policy()))).toBe('X509_CHAIN_NOT_CA');
    const noSign = mintCa({ subject: name({ CN: 'I' }), curve: 'P-256', issuer: root, notBefore: T - DAY, notAfter: T + DAY, extensions: [basicConstraintsExt(true), keyUsageExt([0, 6])] });
    expect(codeOf(() => verifyChain(chainOf(leafUnder(noSign), noSign.der, root.der), policy()))).toBe('X509_CHAIN_KEY_USAGE');
    const noKu = mintCa({ subject: name({ CN: 'I' }), curve: 'P-256', issuer: root, notBefore: T - DAY, notAfter: T + DAY, extensions: [basicConstraintsExt(true)] });
    verifyChain(chainOf(leafUnder(noKu), noKu.der, root.der), policy());

    const i1 = mintCa({ subject: name({ CN: 'I1' }), curve: 'P-256', issuer: root, notBefore: T - DAY, notAfter: T + DAY, pathLen: 0 });
    const i2 = mintCa({ subject: name({ CN: 'I2' }), curve: 'P-256', issuer: i1, notBefore: T - DAY, notAfter: T + DAY });
    verifyChain(chainOf(leafUnder(i1), i1.der, root.der), policy());
    expect(codeOf(() => verifyChain(chainOf(leafUnder(i2), i2.der, i1.der, root.der), policy()))).toBe('X509_CHAIN_PATH_LEN');

    const crit = leafUnder(inter, { extensions: [{ oid: '1.2.3.4', critical: true, value: seq() }] });
    expect(codeOf(() => verifyChain(chainOf(crit, inter.der, root.der), policy()))).toBe('X509_CHAIN_UNKNOWN_CRITICAL_EXTENSION');
    verifyChain(chainOf(crit, inter.der, root.der), policy({ knownCriticalExtensions: ['1.2.3.4'] }));
    const nonCrit = leafUnder(inter, { extensions: [{ oid: '1.2.3.4', critical: false, value: seq() }] });
    verifyChain(chainOf(nonCrit, inter.der, root.der), policy());

    // leaf signed by another key carrying the intermediate's name
    const impostor = mintCa({ subject: name({ CN: 'Test Intermediate' }), curve: 'P-256', issuer: root, notBefore: T - DAY, notAfter: T + DAY });
    expect(codeOf(() => verifyChain(chainOf(leafUnder(impostor), inter.der, root.der), policy()))).toBe('X509_CHAIN_BAD_SIGNATURE');
    const rsaAlg = mintCertificate({
      subject: name({ CN: 'Leaf' }),
      issuer: inter.name,
      subjectKey: generateEcKey('P-256').publicKey,
      issuerKey: inter.key.privateKey,
      notBefore: T - DAY,
      notAfter: T + DAY,
      signatureAlgorithmOid: '1.2.840.113549.1.1.11',
    });
    expect(codeOf(() => verifyChain(chainOf(rsaAlg, inter.der, root.der), policy()))).toBe('X509_CHAIN_UNSUPPORTED_ALGORITHM');
  });

  it('verifyChainDer reuses the pinned root object', () => {
    const certs = verifyChainDer([leafUnder(inter), inter.der, root.der], policy());
    expect(certs[2]).toBe(rootCert);
  });
});

describe('ChainCache', () => {
  it('caches only successes, re-checks the window on every hit and keys on the policy', () => {
    const cache = new ChainCache({ max: 2 });
    const ders = [leafUnder(inter), inter.der, root.der];
    cache.verify(ders, policy());
    const certs = cache.verify(ders, policy({ time: T + DAY }));
    expect(certs[0]!.subjectText).toBe('CN=Leaf');
    expect([cache.hits, cache.misses]).toEqual([1, 1]);
    expect(() => cache.verify(ders, policy({ time: T + DAY + 1 }))).toThrow(/leaf "CN=Leaf" not valid/);
    expect(codeOf(() => cache.verify(ders, policy({ time: T - DAY - 1 })))).toBe('X509_CHAIN_NOT_YET_VALID');
    expect(cache.hits).toBe(3);
    expect(codeOf(() => cache.verify(ders, policy({ leafKeyCurve: 'P-384' })))).toBe('X509_CHAIN_BAD_LEAF_KEY');
    expect(codeOf(() => cache.verify(ders, policy({ leafKeyCurve: 'P-384' })))).toBe('X509_CHAIN_BAD_LEAF_KEY');
    expect([cache.misses, cache.size]).toEqual([3, 1]);
    const bad = [leafUnder(root), inter.der, root.der];
    expect(codeOf(() => cache.verify(bad, policy()))).toBe('X509_CHAIN_NAME_MISMATCH');
    expect([cache.caHits, cache.size]).toEqual([1, 1]);
    // the CA part is cached, yet the new leaf's signature is verified
    const impostor = mintCa({ subject: name({ CN: 'Test Intermediate' }), curve: 'P-256', issuer: root, notBefore: T - DAY, notAfter: T + DAY });
    expect(codeOf(() => cache.verify([leafUnder(impostor), inter.der, root.der], policy()))).toBe('X509_CHAIN_BAD_SIGNATURE');
    expect([cache.caHits, cache.misses, cache.size]).toEqual([2, 3, 1]);
    // expired at first sight is not cached either
    expect(codeOf(() => cache.verify([leafUnder(inter), inter.der, root.der], policy({ time: T + 20 * DAY })))).toBe('X509_CHAIN_EXPIRED');
    expect(cache.size).toBe(1);
    // bounded size
    cache.verify([leafUnder(inter), inter.der, root.der], policy());
    cache.verify([leafUnder(inter), inter.der, root.der], policy());
    expect(cache.size).toBe(2);
  });
});
