import { describe, expect, it } from 'vitest';
import { parseCertificate, parsePemChain } from '../../../../src/attestation/x509/certificate.js';
import { ChainCache } from '../../../../src/attestation/x509/chainCache.js';
import { cutTypeBReport, parseTypeB, verifyTypeB, verifyTypeBReport } from '../../../../src/attestation/typeB/index.js';
import { createTypeBPki, defaultPcrs, type MintDocumentOptions } from '../../../support/typeb-pki.js';
import { encodeCbor, raw, type CborInput } from '../../../support/cbor-encode.js';
import { generateEcKey } from '../../../support/x509-mint.js';
import { codeOf } from '../../../support/errors.js';

const NOW = Date.UTC(2025, 0, 15, 12, 0, 0);
const pki = createTypeBPki({ now: NOW });
const root = parsePemChain(pki.rootPem)[0]!;
const other = createTypeBPki({ now: NOW });

const verify = (report: Uint8Array, allowDebug = false): string => codeOf(() => verifyTypeBReport(report, { root, allowDebug }));
const mint = (o?: MintDocumentOptions): Uint8Array => pki.mintDocument(o);

/** Re-wraps a parsed document into a COSE_Sign1 with replaced parts (raw bytes kept otherwise). */
function recose(report: Uint8Array, parts: { protectedBytes?: Uint8Array; unprotected?: Uint8Array; signature?: Uint8Array }): Uint8Array {
  const p = parseTypeB(report);
  return encodeCbor([parts.protectedBytes ?? p.protectedBytes, raw(parts.unprotected ?? Uint8Array.of(0xa0)), p.payloadBytes, parts.signature ?? p.signature]);
}

describe('typeB with a minted test PKI', () => {
  it('root PEM round-trips and the test root is a CA', () => {
    expect(root.der).toEqual(pki.rootDer);
    expect(root.basicConstraints).toEqual({ ca: true });
  });

  it('fresh documents verify, with and without a chain cache; the default prefix is detected', () => {
    const doc = mint();
    expect(verify(doc)).toBe('OK');
    const ledger = new Uint8Array(5120);
    ledger.set(doc);
    expect(verifyTypeBReport(cutTypeBReport(ledger), { root, allowDebug: false }).document.timestamp).toBe(NOW);
    const cache = new ChainCache();
    for (let i = 0; i < 3; i++) verifyTypeBReport(doc, { root, allowDebug: false, chainCache: cache });
    expect([cache.misses, cache.hits]).toEqual([1, 2]);
    // a new document has a new leaf under the same CA bundle: only the leaf is new work
    verifyTypeBReport(mint(), { root, allowDebug: false, chainCache: cache });
    expect([cache.misses, cache.caHits, cache.size]).toEqual([1, 1, 2]);
    // ... and a foreign instance CA with the same names (not cached) has its signature checked
    const forged = mint({ cabundle: (b) => [...b.slice(0, 3), other.intermediates[2]!.der] });
    expect(codeOf(() => verifyTypeBReport(forged, { root, allowDebug: false, chainCache: cache }))).toBe('X509_CHAIN_BAD_SIGNATURE');
  });

  it('indefinite-length payload maps verify over the received bytes', () => {
    const doc = mint({ indefiniteMap: true });
    expect(parseTypeB(doc).payloadBytes[0]).toBe(0xbf);
    expect(verify(doc)).toBe('OK');
  });

  it('optional fields: user_data of 0, 16 and 1024 bytes verify; 1025 is refused; null and absent read as null', () => {
    for (const n of [0, 16, 1024]) expect(verify(mint({ userData: new Uint8Array(n).fill(1) }))).toBe('OK');
    expect(verify(mint({ userData: new Uint8Array(1025) }))).toBe('TYPEB_DOC_BAD_FIELD');
    expect(verify(mint({ nonce: new Uint8Array(1025) }))).toBe('TYPEB_DOC_BAD_FIELD');
    const p = parseTypeB(mint({ userData: null, fields: (d) => d.delete('nonce') }));
    expect([p.document.userData, p.document.nonce, p.document.publicKey]).toEqual([null, null, null]);
  });

  it('tampering with any region fails with its own code', () => {
    const doc = mint();
    const p = parseTypeB(doc);
    const payloadStart = doc.length - 98 - p.payloadBytes.length;
    const flip = (off: number): Uint8Array => {
      const b = doc.slice();
      b[off]! ^= 0x01;
      return b;
    };
    // protected header alg (-35 → -36), signature, payload fields
    expect(verify(flip(5))).toBe('TYPEB_COSE_ALGORITHM');
    expect(verify(flip(doc.length - 1))).toBe('TYPEB_SIGNATURE_INVALID');
    expect(verify(flip(doc.length - 96))).toBe('TYPEB_SIGNATURE_INVALID');
    const at = (needle: Uint8Array): number => Buffer.from(doc).indexOf(Buffer.from(needle), payloadStart);
    expect(verify(flip(at(p.document.pcrs.get(0)!)))).toBe('TYPEB_SIGNATURE_INVALID');
    expect(verify(flip(at(p.document.userData!)))).toBe('TYPEB_SIGNATURE_INVALID');
    expect(verify(flip(at(new TextEncoder().encode('i-0123'))))).toBe('TYPEB_SIGNATURE_INVALID');
    // the leaf's signature bytes (last bytes of the certificate)
    const certEnd = at(p.document.certificate) + p.document.certificate.length;
    expect(verify(flip(certEnd - 2))).toBe('X509_CHAIN_BAD_SIGNATURE');
    // an intermediate's subject text breaks the name linkage
    const inter = at(new TextEncoder().encode('intermediate-2.test'));
    expect(verify(flip(inter))).toBe('X509_CHAIN_NAME_MISMATCH');
  });

  it('no single-bit flip anywhere is accepted (sampled every 29 bytes)', () => {
    const doc = mint();
    for (let off = 0; off < doc.length; off += 29) {
      const b = doc.slice();
      b[off]! ^= 0x04;
      const code = verify(b);
      expect(code, `offset ${off}`).not.toBe('OK');
    }
  });

  it('wrong root, expired and not-yet-valid certificates', () => {
    expect(codeOf(() => verifyTypeBReport(other.mintDocument(), { root, allowDebug: false }))).toBe('X509_CHAIN_UNTRUSTED_ROOT');
    expect(verify(mint({ cabundle: (b) => [other.rootDer, ...b.slice(1)] }))).toBe('X509_CHAIN_UNTRUSTED_ROOT');
    expect(verify(mint({ leafNotBefore: NOW - 4 * 3_600_000 }))).toBe('X509_CHAIN_EXPIRED');
    expect(verify(mint({ leafNotBefore: NOW + 1000 }))).toBe('X509_CHAIN_NOT_YET_VALID'); // X.509 times have 1 s resolution
    expect(verify(mint({ leafNotBefore: NOW }))).toBe('OK'); // inclusive lower bound
    expect(verify(mint({ leafNotBefore: NOW - 3_600_000, leafNotAfter: NOW }))).toBe('OK'); // inclusive upper bound
    const stale = createTypeBPki({ now: NOW, intermediateWindows: [[NOW - 10e9, NOW + 10e9], [NOW - 10e9, NOW - 1]] });
    const staleRoot = parseCertificate(stale.rootDer);
    expect(() => verifyTypeBReport(stale.mintDocument(), { root: staleRoot, allowDebug: false })).toThrow(
      /typeB: certificate chain: intermediate 2 ".*intermediate-2.test" not valid at 2025-01-15T12:00:00Z/,
    );
  });

  it('cabundle order and completeness', () => {
    expect(verify(mint({ cabundle: (b) => [b[0]!, b[2]!, b[1]!, b[3]!] }))).toBe('X509_CHAIN_NAME_MISMATCH');
    expect(verify(mint({ cabundle: (b) => [...b].reverse() }))).toBe('X509_CHAIN_UNTRUSTED_ROOT');
    expect(verify(mint({ cabundle: (b) => [b[0]!, b[1]!, b[3]!] }))).toBe('X509_CHAIN_NAME_MISMATCH');
    expect(verify(mint({ cabundle: () => [] }))).toBe('X509_CHAIN_UNTRUSTED_ROOT');
    expect(verify(mint({ cabundle: (b) => [b[0]!] }))).toBe('X509_CHAIN_NAME_MISMATCH');
  });

  it('path length constraints are enforced', () => {
    const tight = createTypeBPki({ now: NOW, intermediatePathLens: [0] });
    expect(codeOf(() => verifyTypeBReport(tight.mintDocument(), { root: parseCertificate(tight.rootDer), allowDebug: false }))).toBe(
      'X509_CHAIN_PATH_LEN',
    );
    const exact = createTypeBPki({ now: NOW, intermediatePathLens: [1, 0, 0] });
    expect(codeOf(() => verifyTypeBReport(exact.mintDocument(), { root: parseCertificate(exact.rootDer), allowDebug: false }))).toBe(
      'X509_CHAIN_PATH_LEN',
    );
    const ok = createTypeBPki({ now: NOW, intermediatePathLens: [2, 1, 0] });
    expect(codeOf(() => verifyTypeBReport(ok.mintDocument(), { root: parseCertificate(ok.rootDer), allowDebug: false }))).toBe('OK');
  });

  it('leaf key and algorithm, COSE alg, digest and signer', () => {
    expect(verify(mint({ leafCurve: 'P-256', signWith: generateEcKey('P-384').privateKey }))).toBe('X509_CHAIN_BAD_LEAF_KEY');
    expect(verify(mint({ leafHash: 'sha256' }))).toBe('X509_CHAIN_BAD_LEAF_ALGORITHM');
    expect(verify(mint({ alg: -7 }))).toBe('TYPEB_COSE_ALGORITHM');
    expect(verify(mint({ digest: 'SHA256' }))).toBe('TYPEB_DOC_DIGEST');
    expect(verify(mint({ signWith: generateEcKey('P-384').privateKey }))).toBe('TYPEB_SIGNATURE_INVALID');
  });

  it('debug documents (PCR0 all zeros) are refused unless allowed', () => {
    const pcrs = defaultPcrs();
    pcrs[0] = new Uint8Array(48);
    const doc = mint({ pcrs });
    expect(verify(doc)).toBe('TYPEB_DEBUG_MODE');
    expect(verify(doc, true)).toBe('OK');
  });

  it('COSE structure', () => {
    const doc = mint();
    expect(verify(doc.subarray(0, doc.length - 1))).toBe('CBOR_TRUNCATED');
    expect(verify(Buffer.concat([doc, Uint8Array.of(0)]))).toBe('CBOR_TRAILING_BYTES');
    expect(verify(Buffer.concat([Uint8Array.of(0xd2), doc]))).toBe('TYPEB_COSE_TAGGED');
    expect(verify(recose(doc, { signature: new Uint8Array(95) }))).toBe('TYPEB_COSE_SIGNATURE_LENGTH');
    expect(verify(recose(doc, { unprotected: Uint8Array.of(0xa1, 0x04, 0x40) }))).toBe('TYPEB_COSE_UNPROTECTED_HEADER');
    expect(verify(recose(doc, { unprotected: Uint8Array.of(0xf6) }))).toBe('OK'); // null unprotected header is read as empty
    expect(verify(recose(doc, { protectedBytes: Uint8Array.of(0xa2, 0x01, 0x38, 0x22, 0x04, 0x40) }))).toBe('TYPEB_COSE_PROTECTED_HEADER');
    expect(verify(recose(doc, { protectedBytes: Uint8Array.of(0xa1, 0x01, 0x38) }))).toBe('TYPEB_COSE_PROTECTED_HEADER');
    expect(verify(encodeCbor([1, 2, 3]))).toBe('TYPEB_COSE_STRUCTURE');
    expect(verify(encodeCbor(new Map()))).toBe('TYPEB_COSE_STRUCTURE');
    expect(verify(new Uint8Array(0))).toBe('CBOR_TRUNCATED');
  });

  it('document fields are type- and range-checked', () => {
    const set = (k: string, v: Parameters<Map<unknown, unknown>['set']>[1]) => mint({ fields: (d) => d.set(k, v as never) });
    expect(verify(mint({ fields: (d) => d.delete('certificate') }))).toBe('TYPEB_DOC_MISSING_FIELD');
    expect(verify(mint({ fields: (d) => d.delete('timestamp') }))).toBe('TYPEB_DOC_MISSING_FIELD');
    expect(verify(set('extra', 1))).toBe('TYPEB_DOC_UNKNOWN_FIELD');
    expect(verify(mint({ fields: (d) => d.set(7, 1) }))).toBe('TYPEB_DOC_UNKNOWN_FIELD');
    expect(verify(set('timestamp', '1725008028632'))).toBe('TYPEB_DOC_BAD_FIELD');
    expect(verify(set('timestamp', 0))).toBe('TYPEB_DOC_BAD_FIELD');
    expect(verify(set('timestamp', 2n ** 60n))).toBe('TYPEB_DOC_BAD_FIELD');
    expect(verify(set('module_id', ''))).toBe('TYPEB_DOC_BAD_FIELD');
    expect(verify(set('module_id', new Uint8Array(3)))).toBe('TYPEB_DOC_BAD_FIELD');
    expect(verify(set('digest', 7))).toBe('TYPEB_DOC_BAD_FIELD');
    expect(verify(set('certificate', null))).toBe('TYPEB_DOC_BAD_FIELD');
    expect(verify(set('cabundle', new Uint8Array(3)))).toBe('TYPEB_DOC_BAD_FIELD');
    expect(verify(set('user_data', 'text'))).toBe('TYPEB_DOC_BAD_FIELD');
    expect(verify(set('pcrs', new Map()))).toBe('TYPEB_DOC_BAD_FIELD');
    expect(verify(set('pcrs', new Map([[1, new Uint8Array(48)]])))).toBe('TYPEB_DOC_BAD_FIELD'); // no PCR0
    expect(verify(set('pcrs', new Map([[0, new Uint8Array(47).fill(1)]])))).toBe('TYPEB_DOC_BAD_FIELD');
    expect(verify(set('pcrs', new Map([[0, new Uint8Array(48).fill(1)], [32, new Uint8Array(48)]])))).toBe('TYPEB_DOC_BAD_FIELD');
    expect(verify(set('pcrs', new Map<CborInput, CborInput>([[0, new Uint8Array(48).fill(1)], ['1', new Uint8Array(48)]])))).toBe('TYPEB_DOC_BAD_FIELD');
    const many = new Map(Array.from({ length: 33 }, (_, i) => [i, new Uint8Array(48).fill(1)] as const));
    expect(verify(set('pcrs', many))).toBe('TYPEB_DOC_BAD_FIELD');
    for (const n of [32, 64, 96]) expect(verify(set('pcrs', new Map([[0, new Uint8Array(n).fill(1)]])))).toBe('OK');
    expect(verify(mint({ fields: (d) => d.set('digest', raw(Uint8Array.of(0x66, 0x53, 0x48, 0x41, 0x33, 0x38, 0x34, 0x64, 0x69, 0x67, 0x65, 0x73, 0x74, 0x66, 0x53, 0x48, 0x41, 0x33, 0x38, 0x34))) }))).toBe(
      'CBOR_MALFORMED',
    ); // a duplicate "digest" key
  });
});
