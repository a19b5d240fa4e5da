/**
 * The hand-written CBOR/DER/X.509/CRL parsers against libraries used as oracles (test time only):
 * @peculiar/asn1-x509 for certificates and CRLs, cbor-x for COSE_Sign1 and the Nitro document.
 * 1. Every real certificate, CRL and Nitro document in ../shared/vectors reads to equal fields.
 * 2. Mutations of real inputs (byte flips, truncations, insertions): whatever ours accepts, the
 *    library accepts with equal fields. (The converse does not hold, by design: see 3.)
 * 3. Inputs the libraries accept and ours refuses, with the code ours gives (docs/parsers.md).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseCertificate, parsePemChain } from '../../src/attestation/x509/certificate.js';
import { parseCrl } from '../../src/attestation/x509/crl.js';
import { parseTypeB } from '../../src/attestation/typeB/verify.js';
import { codeOf, NO_ERROR } from '../support/errors.js';
import { head } from '../support/cbor-encode.js';
import { readVectorHex, vectorPath } from '../support/paths.js';
import {
  libCertFields,
  libCrlEntryDates,
  libCrlFields,
  libNitroFields,
  ourCertFields,
  ourCrlFields,
  ourNitroFields,
  realCertificates,
  realCrls,
  realNitroDocuments,
} from '../support/reference-parsers.js';
import { readFileSync } from 'node:fs';

const certs = realCertificates();
const intelRoot = new Uint8Array(readFileSync(vectorPath('sgx/intel-root/IntelSGXRootCA.der')));
const oracleDoc = readVectorHex('nitro/oracle-nitro-report.hex');
const oracleParsed = parseTypeB(oracleDoc);
const nitroLeaf = oracleParsed.document.certificate;
const nitroIntermediate = oracleParsed.document.cabundle[2]!;
const pck = parsePemChain(Buffer.from(readVectorHex('sgx/oracle-sgx-report.hex')).toString('latin1').match(/-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/)![0])[0]!.der;
const crls = realCrls();
const docs = realNitroDocuments();

describe('real inputs read to equal fields in ours and the library', () => {
  it('finds the vectors: certificates from PEM, DER, quotes and Nitro bundles; CRLs; Nitro documents', () => {
    expect(certs.length).toBeGreaterThanOrEqual(40);
    expect(crls.length).toBeGreaterThanOrEqual(10);
    expect(docs.length).toBe(12);
    // the inputs of the mutation tests are among them
    const has = (b: Uint8Array) => certs.some((c) => Buffer.from(c.value).equals(b));
    for (const b of [intelRoot, pck, nitroLeaf, nitroIntermediate]) expect(has(b)).toBe(true);
  });

  it.each(certs.map((c) => [c.name, c.value] as const))('certificate %s', (_name, der) => {
    expect(ourCertFields(parseCertificate(der))).toEqual(libCertFields(der));
  });

  it.each(crls.map((c) => [c.name, c.value] as const))('CRL %s', (_name, der) => {
    const lib = libCrlFields(der);
    expect(ourCrlFields(parseCrl(der))).toEqual(lib);
    // every entry has a revocation date the library reads as a real time (ours checks the same field)
    const dates = libCrlEntryDates(der);
    expect(dates).toHaveLength(lib.revoked.length);
    for (const d of dates) expect(d).toBeGreaterThan(Date.UTC(2017, 0, 1));
  });

  it('the CRLs include entries (3, 13 and 44 revoked serials)', () => {
    const sizes = new Set(crls.map((c) => libCrlFields(c.value).revoked.length));
    for (const n of [3, 13, 44]) expect(sizes.has(n)).toBe(true);
  });

  it.each(docs.map((d) => [d.name, d.value] as const))('Nitro document %s', (_name, report) => {
    expect(ourNitroFields(parseTypeB(report))).toEqual(libNitroFields(report));
  });
});

// ---- mutations ---------------------------------------------------------------------------------

type Mutation = { kind: 'flip'; at: number; xor: number } | { kind: 'truncate'; at: number } | { kind: 'insert'; at: number; byte: number };

const mutation = fc.oneof(
  fc.record({ kind: fc.constant('flip' as const), at: fc.nat(), xor: fc.integer({ min: 1, max: 255 }) }),
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), byte: fc.integer({ min: 0, max: 255 }) }),
);

function mutate(input: Uint8Array, ms: Mutation[]): Uint8Array {
  let b = input.slice();
  for (const m of ms) {
    const at = b.length === 0 ? 0 : m.at % (b.length + (m.kind === 'insert' ? 1 : 0));
    if (m.kind === 'flip' && b.length > 0) b[at]! ^= m.xor;
    else if (m.kind === 'truncate') b = b.slice(0, at);
    else if (m.kind === 'insert') b = Uint8Array.from([...b.subarray(0, at), m.byte, ...b.subarray(at)]);
  }
  return b;
}

/**
 * Mutates real inputs; whenever ours accepts the result, the library must read it to the same
 * fields. Returns how many mutants ours accepted, so that the property is shown to be exercised.
 */
function differential<F>(inputs: Uint8Array[], ours: (b: Uint8Array) => F, lib: (b: Uint8Array) => F, numRuns: number): number {
  let accepted = 0;
  fc.assert(
    fc.property(fc.nat({ max: inputs.length - 1 }), fc.array(mutation, { minLength: 1, maxLength: 3 }), (i, ms) => {
      const b = mutate(inputs[i]!, ms);
      let mine: F;
      try {
        mine = ours(b);
      } catch {
        return; // refused by ours: nothing to compare (the libraries accept more, see below)
      }
      accepted++;
      expect(lib(b)).toEqual(mine);
    }),
    { numRuns },
  );
  return accepted;
}

describe('mutations of real inputs: what ours accepts, the library accepts with equal fields', () => {
  it('certificates (Intel root, a PCK certificate, the Nitro leaf and a Nitro intermediate)', () => {
    const accepted = differential([intelRoot, pck, nitroLeaf, nitroIntermediate], (b) => ourCertFields(parseCertificate(b)), libCertFields, 1500);
    expect(accepted).toBeGreaterThan(50);
  });

  it('CRLs (the 2026 processor CRL with 13 entries and the root CA CRL)', () => {
    const crl13 = crls.find((c) => libCrlFields(c.value).revoked.length === 13)!.value;
    const root = Uint8Array.from(Buffer.from(readFileSync(vectorPath('sgx/intel-pcs-2026-09-22/root_ca_crl.der.hex'), 'utf8').trim(), 'hex'));
    const accepted = differential([crl13, root], (b) => ourCrlFields(parseCrl(b)), libCrlFields, 1500);
    expect(accepted).toBeGreaterThan(50);
  });

  it('Nitro documents (the oracle report and the indefinite-map document)', () => {
    const inputs = [oracleDoc, readVectorHex('nitro/base-2026-indefinite-map.hex')];
    const accepted = differential(inputs, (b) => ourNitroFields(parseTypeB(b)), libNitroFields, 1500);
    expect(accepted).toBeGreaterThan(50);
  });
});

// ---- stricter than the libraries ----------------------------------------------------------------

const root = intelRoot;
const cat = (...parts: Uint8Array[]): Uint8Array => Uint8Array.from(Buffer.concat(parts));

/** The certificate with its outer SEQUENCE length re-encoded in `lengthOctets` octets (non-minimal). */
function longLength(der: Uint8Array, lengthOctets: number): Uint8Array {
  const n = der[1]! & 0x7f;
  const len = der.subarray(2, 2 + n);
  return cat(Uint8Array.of(0x30, 0x80 | lengthOctets), new Uint8Array(lengthOctets - n), len, der.subarray(2 + n));
}

/** The COSE_Sign1 rebuilt around `payload` (the real protected header and signature). */
function coseAround(payload: Uint8Array): Uint8Array {
  const p = oracleParsed;
  return cat(Uint8Array.of(0x84), head(2, p.protectedBytes.length), p.protectedBytes, Uint8Array.of(0xa0), head(2, payload.length), payload, head(2, p.signature.length), p.signature);
}

/** The real payload map with one more entry appended (map count + 1). */
function payloadWithEntry(entry: Uint8Array): Uint8Array {
  const payload = oracleParsed.payloadBytes;
  expect(payload[0]).toBe(0xa9); // definite map of 9 entries
  return cat(Uint8Array.of(0xaa), payload.subarray(1), entry);
}

const text = (s: string): Uint8Array => cat(head(3, Buffer.byteLength(s)), Buffer.from(s));

describe('stricter than the libraries: accepted there, refused here', () => {
  const cases: [string, () => Uint8Array, (b: Uint8Array) => unknown, (b: Uint8Array) => unknown, string][] = [
    ['DER: certificate followed by a trailing byte', () => cat(root, Uint8Array.of(0)), libCertFields, parseCertificate, 'X509_MALFORMED'],
    ['DER: non-minimal length (3 octets for a 2-octet length)', () => longLength(root, 3), libCertFields, parseCertificate, 'X509_MALFORMED'],
    ['DER: indefinite length (BER)', () => cat(Uint8Array.of(0x30, 0x80), root.subarray(2 + (root[1]! & 0x7f)), Uint8Array.of(0, 0)), libCertFields, parseCertificate, 'X509_MALFORMED'],
    ['CBOR: COSE_Sign1 wrapped in tag 18', () => cat(Uint8Array.of(0xd2), oracleDoc), libNitroFields, parseTypeB, 'TYPEB_COSE_TAGGED'],
    ['CBOR: duplicate key "nonce" in the document map', () => coseAround(payloadWithEntry(cat(text('nonce'), Uint8Array.of(0xf6)))), libNitroFields, parseTypeB, 'CBOR_MALFORMED'],
    ['CBOR: unknown key in the document map', () => coseAround(payloadWithEntry(cat(text('extra'), Uint8Array.of(0xf6)))), libNitroFields, parseTypeB, 'TYPEB_DOC_UNKNOWN_FIELD'],
  ];

  it.each(cases)('%s', (_name, make, lib, ours, code) => {
    const b = make();
    expect(() => lib(b)).not.toThrow();
    expect(codeOf(() => ours(b))).toBe(code);
  });

  it('the unmodified inputs are accepted by both (the cases above differ only by their edit)', () => {
    expect(codeOf(() => parseCertificate(root))).toBe(NO_ERROR);
    expect(codeOf(() => parseTypeB(coseAround(parseTypeB(oracleDoc).payloadBytes)))).toBe(NO_ERROR);
    expect(libNitroFields(coseAround(parseTypeB(oracleDoc).payloadBytes))).toEqual(libNitroFields(oracleDoc));
  });
});

// ---- edits the mutation test found that ours used to accept ----------------------------------------

describe('single-byte edits ours once accepted while the library refused or read them otherwise', () => {
  const at = (whole: Uint8Array, part: Uint8Array): number => Buffer.from(whole).indexOf(Buffer.from(part));
  const edit = (b: Uint8Array, i: number, v: number): Uint8Array => {
    const c = b.slice();
    c[i] = v;
    return c;
  };
  const rootCert = parseCertificate(root);
  const subjectAt = at(root, rootCert.subject);
  const spkiAt = at(root, rootCert.spki);
  const rootCrl = Uint8Array.from(Buffer.from(readFileSync(vectorPath('sgx/intel-pcs-2026-09-22/root_ca_crl.der.hex'), 'utf8').trim(), 'hex'));
  const crlIssuerAt = at(rootCrl, parseCrl(rootCrl).issuer);
  // the first attribute value of a Name: 30 L 31 L 30 L 06 03 55 04 xx <value tag>
  const firstValueTag = (nameAt: number, der: Uint8Array): number => at(der.subarray(nameAt), Uint8Array.of(0x06, 0x03, 0x55, 0x04)) + nameAt + 5;

  const cases: [string, () => Uint8Array, (b: Uint8Array) => unknown, string][] = [
    ['certificate: an RDN SET turned into a SEQUENCE (refused before too; the CRL case below was not)', () => edit(root, subjectAt + 2, 0x30), parseCertificate, 'X509_MALFORMED'],
    ['certificate: a name value made constructed (UTF8String 0x0c → 0x2c)', () => edit(root, firstValueTag(subjectAt, root), root[firstValueTag(subjectAt, root)]! | 0x20), parseCertificate, 'X509_MALFORMED'],
    ['certificate: the public key BIT STRING with 1 unused bit', () => edit(root, spkiAt + rootCert.spki.length - 66, 1), parseCertificate, 'X509_MALFORMED'],
    ['certificate: extensions [3] re-tagged as a constructed subjectUniqueID [2]', () => edit(root, spkiAt + rootCert.spki.length, 0xa2), parseCertificate, 'X509_MALFORMED'],
    ['CRL: an issuer RDN SET turned into a SEQUENCE', () => edit(rootCrl, crlIssuerAt + 2, 0x30), parseCrl, 'CRL_MALFORMED'],
    ['CRL: an issuer name value of another universal type (INTEGER)', () => edit(rootCrl, firstValueTag(crlIssuerAt, rootCrl), 0x02), parseCrl, 'CRL_MALFORMED'],
  ];

  it('the edited bytes are where the cases say', () => {
    expect(root[subjectAt + 2]).toBe(0x31);
    expect(root[firstValueTag(subjectAt, root)]).toBe(0x0c); // UTF8String "Intel SGX Root CA"
    expect(root.subarray(spkiAt + rootCert.spki.length - 67, spkiAt + rootCert.spki.length - 65)).toEqual(Uint8Array.of(0x42, 0x00));
    expect(root[spkiAt + rootCert.spki.length]).toBe(0xa3);
    expect(rootCrl[crlIssuerAt + 2]).toBe(0x31);
  });

  it.each(cases)('%s', (_name, make, ours, code) => {
    expect(codeOf(() => ours(make()))).toBe(code);
  });
});
