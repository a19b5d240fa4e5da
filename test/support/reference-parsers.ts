/**
 * The libraries used as differential oracles for the hand-written parsers (tests and benchmarks
 * only, never at run time): @peculiar/asn1-x509 (the ASN.1 layer of @peculiar/x509) for X.509
 * certificates and CRLs, cbor-x for the COSE_Sign1 and the Nitro attestation document. Each
 * reading is reduced to the same plain fields our parsers expose, so that the two can be compared
 * with toEqual. Also: every real certificate, CRL and Nitro document of ../shared/vectors.
 */
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { AsnConvert } from '@peculiar/asn1-schema';
import { Certificate as AsnCertificate, CertificateList, Name, SubjectPublicKeyInfo, Time } from '@peculiar/asn1-x509';
import { Decoder, Tag } from 'cbor-x';
import type { Certificate } from '../../src/attestation/x509/certificate.js';
import type { Crl } from '../../src/attestation/x509/crl.js';
import type { ParsedTypeB } from '../../src/attestation/typeB/verify.js';
import { vectorPath } from './paths.js';

const hex = (b: ArrayBuffer | Uint8Array): string => Buffer.from(b instanceof Uint8Array ? b : new Uint8Array(b)).toString('hex');
/** An INTEGER's content octets as our parsers keep serials: lowercase hex without a leading 00 sign octet. */
const serialHex = (b: ArrayBuffer): string => hex(b).replace(/^00(?=[89a-f])/, '');
const timeMs = (t: Time): number => t.getTime().getTime();
const bitStringContent = (b: ArrayBuffer): string => hex(b);

export interface CertFields {
  serial: string;
  issuer: string;
  subject: string;
  notBefore: number;
  notAfter: number;
  spki: string;
  signatureAlgorithm: string;
  signature: string;
  tbs: string;
  extensions: { oid: string; critical: boolean; value: string }[];
}

export interface CrlFields {
  issuer: string;
  thisUpdate: number;
  nextUpdate: number;
  signatureAlgorithm: string;
  signature: string;
  tbs: string;
  /** Revoked serials, sorted. */
  revoked: string[];
  extensions: { oid: string; critical: boolean; value: string }[];
}

export interface NitroFields {
  protectedHeader: string;
  signature: string;
  moduleId: string;
  digest: string;
  timestamp: number;
  pcrs: [number, string][];
  certificate: string;
  cabundle: string[];
  publicKey: string | null;
  userData: string | null;
  nonce: string | null;
}

// ---- our parsers' output, reduced -------------------------------------------------------------

export function ourCertFields(c: Certificate): CertFields {
  return {
    serial: c.serialHex,
    issuer: hex(c.issuer),
    subject: hex(c.subject),
    notBefore: c.notBefore,
    notAfter: c.notAfter,
    spki: hex(c.spki),
    signatureAlgorithm: c.signatureAlgorithm,
    signature: hex(c.signature),
    tbs: hex(c.tbs),
    extensions: c.extensions.map((e) => ({ oid: e.oid, critical: e.critical, value: hex(e.value) })),
  };
}

export function ourCrlFields(c: Crl): CrlFields {
  return {
    issuer: hex(c.issuer),
    thisUpdate: c.thisUpdate,
    nextUpdate: c.nextUpdate,
    signatureAlgorithm: c.signatureAlgorithm,
    signature: hex(c.signature),
    tbs: hex(c.tbs),
    revoked: [...c.revoked].sort(),
    extensions: c.extensions.map((e) => ({ oid: e.oid, critical: e.critical, value: hex(e.value) })),
  };
}

export function ourNitroFields(p: ParsedTypeB): NitroFields {
  const d = p.document;
  return {
    protectedHeader: hex(p.protectedBytes),
    signature: hex(p.signature),
    moduleId: d.moduleId,
    digest: d.digest,
    timestamp: d.timestamp,
    pcrs: [...d.pcrs].map(([i, v]) => [i, hex(v)] as [number, string]).sort((a, b) => a[0] - b[0]),
    certificate: hex(d.certificate),
    cabundle: d.cabundle.map(hex),
    publicKey: d.publicKey === null ? null : hex(d.publicKey),
    userData: d.userData === null ? null : hex(d.userData),
    nonce: d.nonce === null ? null : hex(d.nonce),
  };
}

// ---- the libraries' readings, reduced ---------------------------------------------------------

export function libCert(der: Uint8Array): AsnCertificate {
  return AsnConvert.parse(der, AsnCertificate);
}

export function libCertFields(der: Uint8Array): CertFields {
  const c = libCert(der);
  const t = c.tbsCertificate;
  return {
    serial: serialHex(t.serialNumber),
    issuer: hex(AsnConvert.serialize(t.issuer as Name)),
    subject: hex(AsnConvert.serialize(t.subject as Name)),
    notBefore: timeMs(t.validity.notBefore),
    notAfter: timeMs(t.validity.notAfter),
    spki: hex(AsnConvert.serialize(t.subjectPublicKeyInfo as SubjectPublicKeyInfo)),
    signatureAlgorithm: c.signatureAlgorithm.algorithm,
    signature: bitStringContent(c.signatureValue),
    tbs: hex(AsnConvert.serialize(t)),
    extensions: Array.from(t.extensions ?? [], (e) => ({ oid: e.extnID, critical: e.critical, value: hex(e.extnValue.buffer) })),
  };
}

export function libCrl(der: Uint8Array): CertificateList {
  return AsnConvert.parse(der, CertificateList);
}

export function libCrlFields(der: Uint8Array): CrlFields {
  const c = libCrl(der);
  const t = c.tbsCertList;
  return {
    issuer: hex(AsnConvert.serialize(t.issuer as Name)),
    thisUpdate: timeMs(t.thisUpdate),
    nextUpdate: t.nextUpdate ? timeMs(t.nextUpdate) : NaN,
    signatureAlgorithm: c.signatureAlgorithm.algorithm,
    signature: bitStringContent(c.signature),
    tbs: hex(AsnConvert.serialize(t)),
    revoked: Array.from(t.revokedCertificates ?? [], (r) => serialHex(r.userCertificate)).sort(),
    extensions: Array.from(t.crlExtensions ?? [], (e) => ({ oid: e.extnID, critical: e.critical, value: hex(e.extnValue.buffer) })),
  };
}

/** Revocation dates of every entry (our parser checks them but keeps only the serials). */
export function libCrlEntryDates(der: Uint8Array): number[] {
  return Array.from(libCrl(der).tbsCertList.revokedCertificates ?? [], (r) => timeMs(r.revocationDate));
}

const cbor = new Decoder({ mapsAsObjects: false, useRecords: false, structuredClone: false });
const bytes = (v: unknown, what: string): Uint8Array => {
  if (!(v instanceof Uint8Array)) throw new Error(`cbor-x: ${what} is not a byte string`);
  return v;
};
const optionalBytes = (v: unknown, what: string): string | null => (v === null || v === undefined ? null : hex(bytes(v, what)));

export function libNitroFields(report: Uint8Array): NitroFields {
  let top = cbor.decode(report) as unknown;
  if (top instanceof Tag && top.tag === 18) top = top.value; // COSE_Sign1_Tagged (RFC 9052)
  if (!Array.isArray(top) || top.length !== 4) throw new Error('cbor-x: not a COSE_Sign1 array');
  const doc = cbor.decode(bytes(top[2], 'payload')) as Map<unknown, unknown>;
  if (!(doc instanceof Map)) throw new Error('cbor-x: the payload is not a map');
  const pcrs = doc.get('pcrs') as Map<number, Uint8Array>;
  return {
    protectedHeader: hex(bytes(top[0], 'protected header')),
    signature: hex(bytes(top[3], 'signature')),
    moduleId: doc.get('module_id') as string,
    digest: doc.get('digest') as string,
    timestamp: Number(doc.get('timestamp')),
    pcrs: [...pcrs].map(([i, v]) => [Number(i), hex(bytes(v, `pcr ${i}`))] as [number, string]).sort((a, b) => a[0] - b[0]),
    certificate: hex(bytes(doc.get('certificate'), 'certificate')),
    // A null cabundle (non-AWS samples) reads as [] in our parser, by design: compare it so.
    cabundle: ((doc.get('cabundle') ?? []) as unknown[]).map((c, i) => hex(bytes(c, `cabundle[${i}]`))),
    publicKey: optionalBytes(doc.get('public_key'), 'public_key'),
    userData: optionalBytes(doc.get('user_data'), 'user_data'),
    nonce: optionalBytes(doc.get('nonce'), 'nonce'),
  };
}

// ---- every real input of ../shared/vectors ----------------------------------------------------

function walk(dir: string): string[] {
  return readdirSync(dir).flatMap((f) => {
    const p = join(dir, f);
    return statSync(p).isDirectory() ? walk(p) : [p];
  });
}

function fileBytes(p: string): Uint8Array {
  const raw = readFileSync(p);
  return p.endsWith('.hex') ? Uint8Array.from(Buffer.from(raw.toString('utf8').trim(), 'hex')) : new Uint8Array(raw);
}

const PEM_CERT = /-----BEGIN CERTIFICATE-----([A-Za-z0-9+/=\s]|\\n|\\r)+?-----END CERTIFICATE-----/g;

export interface Named<T> {
  name: string;
  value: T;
}

function unique<T extends Uint8Array>(items: Named<T>[]): Named<T>[] {
  const seen = new Set<string>();
  return items.filter((i) => {
    const h = createHash('sha256').update(i.value).digest('hex');
    if (seen.has(h)) return false;
    seen.add(h);
    return true;
  });
}

/**
 * Every distinct certificate in the SGX and Nitro vectors: PEM blocks anywhere (files, JSON
 * strings, inside quotes and endorsement blobs), DER files, and each Nitro document's
 * certificate and cabundle (taken with cbor-x, independently of our parser).
 */
export function realCertificates(): Named<Uint8Array>[] {
  const out: Named<Uint8Array>[] = [];
  // Certificate files and quotes first, so that a certificate also pasted into JSON keeps its file's name.
  const rank = (p: string): number => (/\.(der|pem|hex)$/.test(p) ? 0 : 1);
  const files = [...walk(vectorPath('sgx')), ...walk(vectorPath('nitro'))].sort((a, b) => rank(a) - rank(b) || (a < b ? -1 : 1));
  for (const p of files) {
    const name = p.slice(vectorPath().length + 1);
    const text = Buffer.from(fileBytes(p)).toString('latin1');
    let i = 0;
    for (const m of text.matchAll(PEM_CERT)) {
      const b64 = m[0].replace(/\\[nr]/g, '').replace(/-----(BEGIN|END) CERTIFICATE-----|\s/g, '');
      out.push({ name: `${name} PEM #${i++}`, value: Uint8Array.from(Buffer.from(b64, 'base64')) });
    }
    if (p.endsWith('.der') && !/crl/i.test(p)) out.push({ name, value: fileBytes(p) });
  }
  for (const d of realNitroDocuments()) {
    try {
      const f = libNitroFields(d.value);
      out.push({ name: `${d.name} certificate`, value: Uint8Array.from(Buffer.from(f.certificate, 'hex')) });
      f.cabundle.forEach((c, i) => out.push({ name: `${d.name} cabundle[${i}]`, value: Uint8Array.from(Buffer.from(c, 'hex')) }));
    } catch {
      /* not a Nitro document (the negative variants are covered by the Nitro tests) */
    }
  }
  return unique(out);
}

/** Every distinct CRL: DER and hex files, and the pck_crl / root_ca_crl fields of collateral JSON. */
export function realCrls(): Named<Uint8Array>[] {
  const out: Named<Uint8Array>[] = [];
  for (const p of walk(vectorPath('sgx'))) {
    const name = p.slice(vectorPath().length + 1);
    if (/crl[^/]*\.der(\.hex)?$/i.test(p)) out.push({ name, value: fileBytes(p) });
    if (p.endsWith('.json')) {
      const j = JSON.parse(readFileSync(p, 'utf8')) as Record<string, unknown>;
      for (const k of ['pck_crl', 'root_ca_crl']) {
        if (typeof j[k] === 'string') out.push({ name: `${name} ${k}`, value: Uint8Array.from(Buffer.from(j[k] as string, 'hex')) });
      }
    }
  }
  return unique(out);
}

/** The real (AWS-signed) Nitro documents: every vector except the self-signed sample and our edited variants. */
export function realNitroDocuments(): Named<Uint8Array>[] {
  return walk(vectorPath('nitro'))
    .filter((p) => p.endsWith('.hex') && !/oracle-nitro-report\.[a-z0-9-]+\.hex$/.test(p))
    .map((p) => ({ name: p.slice(vectorPath().length + 1), value: fileBytes(p) }));
}
