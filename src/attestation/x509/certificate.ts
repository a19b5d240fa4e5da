/**
 * Strict X.509 v3 certificate parser. The TBSCertificate is walked with the DER reader so that
 * raw names, extensions and their critical flags are exactly what was signed; node:crypto is used
 * only to turn the SubjectPublicKeyInfo into a KeyObject.
 */
import { createHash, createPublicKey, type KeyObject } from 'node:crypto';
import { VerifierError } from '../../errors.js';
import {
  TAG,
  children,
  encoded,
  expectTag,
  parseDer,
  readBitString,
  readBoolean,
  readOctetString,
  readOid,
  readSmallUInt,
  readTime,
  type Tlv,
} from './der.js';
import type { X509Code } from './errors.js';
import { nameText } from './name.js';
import { serialKey } from './serial.js';

export interface CertificateExtension {
  readonly oid: string;
  readonly critical: boolean;
  /** Content of extnValue (the DER of the extension value, without the OCTET STRING wrapper). */
  readonly value: Uint8Array;
}

export interface Certificate {
  readonly der: Uint8Array;
  /** The TBSCertificate encoding exactly as signed. */
  readonly tbs: Uint8Array;
  /** Raw DER of the subject Name. */
  readonly subject: Uint8Array;
  /** Raw DER of the issuer Name. */
  readonly issuer: Uint8Array;
  readonly subjectText: string;
  readonly issuerText: string;
  /** Lowercase hex of the serial number content, without a leading 00 sign octet. */
  readonly serialHex: string;
  /** Validity bounds, epoch milliseconds (both inclusive). */
  readonly notBefore: number;
  readonly notAfter: number;
  /** OID of the outer signatureAlgorithm (equal to the TBS one). */
  readonly signatureAlgorithm: string;
  /** Signature as in the certificate (DER ECDSA-Sig-Value for EC). */
  readonly signature: Uint8Array;
  /** Raw DER of SubjectPublicKeyInfo. */
  readonly spki: Uint8Array;
  readonly publicKey: KeyObject;
  readonly extensions: ReadonlyArray<CertificateExtension>;
  readonly basicConstraints?: { readonly ca: boolean; readonly pathLen?: number };
  /** KeyUsage bits: bit i of the ASN.1 BIT STRING (0 = digitalSignature) is `1 << i`; see KEY_USAGE. */
  readonly keyUsage?: number;
  /** Lowercase hex SHA-256 of `der`. */
  readonly fingerprint256: string;
}

export const KEY_USAGE = {
  digitalSignature: 1 << 0,
  nonRepudiation: 1 << 1,
  keyEncipherment: 1 << 2,
  dataEncipherment: 1 << 3,
  keyAgreement: 1 << 4,
  keyCertSign: 1 << 5,
  cRLSign: 1 << 6,
  encipherOnly: 1 << 7,
  decipherOnly: 1 << 8,
} as const;

export const OID = {
  basicConstraints: '2.5.29.19',
  keyUsage: '2.5.29.15',
  ecdsaWithSha256: '1.2.840.10045.4.3.2',
  ecdsaWithSha384: '1.2.840.10045.4.3.3',
} as const;

function fail(code: X509Code, msg: string, cause?: unknown): never {
  throw new VerifierError<X509Code>(code, `X.509: ${msg}`, cause === undefined ? undefined : { cause });
}

function algorithmOid(t: Tlv): string {
  const [oid, ...params] = children(expectTag(t, TAG.SEQUENCE, 'AlgorithmIdentifier'));
  if (!oid || params.length > 1) throw new Error('AlgorithmIdentifier must have 1 or 2 elements');
  return readOid(oid);
}

function parseBasicConstraints(v: Uint8Array): { ca: boolean; pathLen?: number } {
  const items = children(expectTag(parseDer(v), TAG.SEQUENCE, 'BasicConstraints'));
  let i = 0;
  let ca = false;
  if (items[i]?.tag === TAG.BOOLEAN) {
    ca = readBoolean(items[i]!);
    if (!ca) throw new Error('BasicConstraints cA encodes its DEFAULT FALSE explicitly');
    i++;
  }
  let pathLen: number | undefined;
  if (items[i]) {
    pathLen = readSmallUInt(items[i]!);
    i++;
  }
  if (i !== items.length) throw new Error('BasicConstraints has extra elements');
  if (pathLen !== undefined && !ca) throw new Error('BasicConstraints pathLenConstraint without cA');
  return pathLen === undefined ? { ca } : { ca, pathLen };
}

function parseKeyUsage(v: Uint8Array): number {
  const { bytes, unusedBits } = readBitString(parseDer(v), true);
  if (bytes.length === 0 || bytes.length > 2) throw new Error(`KeyUsage of ${bytes.length} octets`);
  if (bytes[bytes.length - 1] === 0) throw new Error('KeyUsage has a trailing zero octet');
  let mask = 0;
  for (let i = 0; i < bytes.length * 8 - unusedBits; i++) {
    if (bytes[i >> 3]! & (0x80 >> (i & 7))) mask |= 1 << i;
  }
  return mask;
}

function parseExtensions(t: Tlv): CertificateExtension[] {
  const outer = children(t); // [3] EXPLICIT
  if (outer.length !== 1) throw new Error('extensions [3] must hold one SEQUENCE');
  const list = children(expectTag(outer[0]!, TAG.SEQUENCE, 'Extensions'));
  if (list.length === 0) throw new Error('empty Extensions');
  const seen = new Set<string>();
  return list.map((ext) => {
    const parts = children(expectTag(ext, TAG.SEQUENCE, 'Extension'));
    const oid = readOid(parts[0] ?? fail('X509_MALFORMED', 'empty Extension'));
    if (seen.has(oid)) throw new Error(`duplicate extension ${oid}`);
    seen.add(oid);
    let i = 1;
    let critical = false;
    if (parts[i]?.tag === TAG.BOOLEAN) {
      critical = readBoolean(parts[i]!);
      if (!critical) throw new Error(`extension ${oid} encodes critical DEFAULT FALSE explicitly`);
      i++;
    }
    const val = readOctetString(parts[i] ?? fail('X509_MALFORMED', `extension ${oid} has no value`));
    if (i + 1 !== parts.length) throw new Error(`extension ${oid} has extra elements`);
    return { oid, critical, value: val };
  });
}

/** Parses one DER certificate. Throws X509_MALFORMED (structure) or X509_UNSUPPORTED_KEY. */
export function parseCertificate(der: Uint8Array): Certificate {
  if (!(der instanceof Uint8Array) || der.length === 0) fail('X509_MALFORMED', 'empty certificate');
  try {
    const cert = parseDer(der);
    const top = children(expectTag(cert, TAG.SEQUENCE, 'Certificate'));
    if (top.length !== 3) throw new Error(`Certificate has ${top.length} elements, expected 3`);
    const [tbsT, sigAlgT, sigT] = top as [Tlv, Tlv, Tlv];
    const signatureAlgorithm = algorithmOid(sigAlgT);
    const { bytes: signature } = readBitString(sigT);

    const f = children(expectTag(tbsT, TAG.SEQUENCE, 'TBSCertificate'));
    let i = 0;
    if (f[0]?.tag === 0xa0) {
      const v = children(f[0]);
      if (v.length !== 1 || readSmallUInt(v[0]!) !== 2) throw new Error('only X.509 v3 certificates are supported');
      i++;
    } else throw new Error('only X.509 v3 certificates are supported (version field absent)');
    const need = (what: string): Tlv => f[i++] ?? fail('X509_MALFORMED', `TBSCertificate lacks ${what}`);
    const serial = serialKey(need('serialNumber'), 'serialNumber');
    const innerAlg = need('signature');
    if (!Buffer.from(encoded(innerAlg)).equals(encoded(sigAlgT))) {
      throw new Error('TBSCertificate signature algorithm differs from the outer signatureAlgorithm');
    }
    const issuerT = need('issuer');
    const validity = children(expectTag(need('validity'), TAG.SEQUENCE, 'Validity'));
    if (validity.length !== 2) throw new Error('Validity must have 2 elements');
    const notBefore = readTime(validity[0]!);
    const notAfter = readTime(validity[1]!);
    const subjectT = need('subject');
    const spkiT = expectTag(need('subjectPublicKeyInfo'), TAG.SEQUENCE, 'SubjectPublicKeyInfo');
    const spkiParts = children(spkiT);
    if (spkiParts.length !== 2) throw new Error('SubjectPublicKeyInfo must have 2 elements');
    algorithmOid(spkiParts[0]!);
    readBitString(spkiParts[1]!); // the key: a BIT STRING without unused bits
    // issuerUniqueID [1] / subjectUniqueID [2]: IMPLICIT BIT STRING, primitive in DER
    if (f[i]?.tag === 0x81) i++;
    if (f[i]?.tag === 0x82) i++;
    let extensions: CertificateExtension[] = [];
    if (f[i]?.tag === 0xa3) extensions = parseExtensions(f[i++]!);
    if (i !== f.length) throw new Error('TBSCertificate has unexpected trailing fields');

    const subjectText = nameText(subjectT);
    const issuerText = nameText(issuerT);
    let basicConstraints: { ca: boolean; pathLen?: number } | undefined;
    let keyUsage: number | undefined;
    for (const e of extensions) {
      if (e.oid === OID.basicConstraints) basicConstraints = parseBasicConstraints(e.value);
      else if (e.oid === OID.keyUsage) keyUsage = parseKeyUsage(e.value);
    }

    const spki = encoded(spkiT);
    let publicKey: KeyObject;
    try {
      publicKey = createPublicKey({ key: Buffer.from(spki), format: 'der', type: 'spki' });
    } catch (e) {
      fail('X509_UNSUPPORTED_KEY', `cannot load the public key of "${subjectText}": ${(e as Error).message}`, e);
    }
    return {
      der,
      tbs: encoded(tbsT),
      subject: encoded(subjectT),
      issuer: encoded(issuerT),
      subjectText,
      issuerText,
      serialHex: serial,
      notBefore,
      notAfter,
      signatureAlgorithm,
      signature,
      spki,
      publicKey,
      extensions,
      ...(basicConstraints ? { basicConstraints } : {}),
      ...(keyUsage !== undefined ? { keyUsage } : {}),
      fingerprint256: createHash('sha256').update(der).digest('hex'),
    };
  } catch (e) {
    if (e instanceof VerifierError && (e.code === 'X509_MALFORMED' || e.code === 'X509_UNSUPPORTED_KEY' || e.code === 'X509_NEGATIVE_SERIAL')) throw e;
    fail('X509_MALFORMED', `malformed certificate: ${(e as Error).message}`, e);
  }
}

const PEM_BLOCK = /-----BEGIN CERTIFICATE-----\r?\n((?:[A-Za-z0-9+/=]{1,76}\r?\n)+)-----END CERTIFICATE-----/y;

/** Parses a PEM bundle of CERTIFICATE blocks; only whitespace may appear between blocks. */
export function parsePemChain(pem: string): Certificate[] {
  if (typeof pem !== 'string') fail('X509_PEM_MALFORMED', 'PEM input is not a string');
  const out: Certificate[] = [];
  let p = 0;
  const skipWs = (): void => {
    while (p < pem.length && /\s/.test(pem[p]!)) p++;
  };
  skipWs();
  while (p < pem.length) {
    PEM_BLOCK.lastIndex = p;
    const m = PEM_BLOCK.exec(pem);
    if (!m) fail('X509_PEM_MALFORMED', `PEM: expected a CERTIFICATE block at character ${p}`);
    const b64 = m[1]!.replace(/\r?\n/g, '');
    const der = Buffer.from(b64, 'base64');
    if (der.length === 0 || der.toString('base64') !== b64) {
      fail('X509_PEM_MALFORMED', `PEM: block ${out.length} is not canonical base64`);
    }
    out.push(parseCertificate(new Uint8Array(der.buffer, der.byteOffset, der.length)));
    p = PEM_BLOCK.lastIndex;
    skipWs();
  }
  if (out.length === 0) fail('X509_PEM_MALFORMED', 'PEM: no CERTIFICATE block');
  return out;
}
