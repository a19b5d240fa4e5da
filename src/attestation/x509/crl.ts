/**
 * Strict X.509 v2 CRL parsing (RFC 5280 §5) with the DER reader, and verification against the
 * issuing certificate: raw issuer name equality, signature, thisUpdate ≤ T ≤ nextUpdate.
 *
 *   CertificateList ::= SEQUENCE { tbsCertList, signatureAlgorithm, signatureValue BIT STRING }
 *   TBSCertList ::= SEQUENCE { version INTEGER (v2) OPTIONAL, signature AlgorithmIdentifier,
 *     issuer Name, thisUpdate Time, nextUpdate Time OPTIONAL,
 *     revokedCertificates SEQUENCE OF SEQUENCE { userCertificate INTEGER, revocationDate Time,
 *       crlEntryExtensions Extensions OPTIONAL } OPTIONAL,
 *     crlExtensions [0] EXPLICIT Extensions OPTIONAL }
 */
import { domainOf, type DomainCode } from '../../errorCodes.js';
import { verify as cryptoVerify } from 'node:crypto';
import { VerifierError } from '../../errors.js';
import { KEY_USAGE, OID, type Certificate } from './certificate.js';
import { nameText } from './name.js';
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
import { serialKey } from './serial.js';

export type CrlCode = DomainCode<'crl'>;

export interface CrlExtension {
  readonly oid: string;
  readonly critical: boolean;
  readonly value: Uint8Array;
}

export interface Crl {
  readonly der: Uint8Array;
  /** TBSCertList exactly as signed. */
  readonly tbs: Uint8Array;
  /** Raw DER of the issuer Name. */
  readonly issuer: Uint8Array;
  /** thisUpdate / nextUpdate, epoch milliseconds. nextUpdate is required here (Intel always sets it). */
  readonly thisUpdate: number;
  readonly nextUpdate: number;
  readonly signatureAlgorithm: string;
  /** DER ECDSA-Sig-Value as carried. */
  readonly signature: Uint8Array;
  /** Revoked serial numbers: lowercase hex, no leading 00 sign octet. */
  readonly revoked: ReadonlySet<string>;
  /** Each revoked serial's revocationDate, epoch milliseconds. */
  readonly revokedAt: ReadonlyMap<string, number>;
  readonly extensions: readonly CrlExtension[];
}

const HASH_OF: Record<string, string> = { [OID.ecdsaWithSha256]: 'sha256', [OID.ecdsaWithSha384]: 'sha384' };
/** Extensions we understand well enough to accept when marked critical (none need processing here). */
const KNOWN_CRL_EXTENSIONS = new Set(['2.5.29.20' /* cRLNumber */, '2.5.29.35' /* authorityKeyIdentifier */]);
const KNOWN_ENTRY_EXTENSIONS = new Set(['2.5.29.21' /* reasonCode */, '2.5.29.24' /* invalidityDate */]);

function fail(code: CrlCode, msg: string): never {
  throw new VerifierError<CrlCode>(code, msg);
}

function iso(ms: number): string {
  const s = new Date(ms).toISOString();
  return s.endsWith('.000Z') ? `${s.slice(0, -5)}Z` : s;
}

function algorithmOid(t: Tlv): string {
  const parts = children(expectTag(t, TAG.SEQUENCE, 'AlgorithmIdentifier'));
  if (parts.length < 1 || parts.length > 2) throw new Error('AlgorithmIdentifier must have 1 or 2 elements');
  return readOid(parts[0]!);
}

function extensionList(t: Tlv, what: string): CrlExtension[] {
  const list = children(expectTag(t, TAG.SEQUENCE, what));
  if (list.length === 0) throw new Error(`empty ${what}`);
  const seen = new Set<string>();
  return list.map((ext) => {
    const parts = children(expectTag(ext, TAG.SEQUENCE, 'Extension'));
    if (parts.length < 2 || parts.length > 3) throw new Error('Extension must have 2 or 3 elements');
    const oid = readOid(parts[0]!);
    if (seen.has(oid)) throw new Error(`duplicate extension ${oid} in ${what}`);
    seen.add(oid);
    let critical = false;
    if (parts.length === 3) {
      critical = readBoolean(parts[1]!);
      if (!critical) throw new Error(`extension ${oid} encodes critical DEFAULT FALSE explicitly`);
    }
    return { oid, critical, value: readOctetString(parts[parts.length - 1]!) };
  });
}

/** Parses a DER CRL. Throws CRL_MALFORMED, or CRL_UNKNOWN_CRITICAL_EXTENSION. */
export function parseCrl(der: Uint8Array, label = 'CRL'): Crl {
  if (!(der instanceof Uint8Array) || der.length === 0) fail('CRL_MALFORMED', `${label}: empty CRL`);
  let crl: Crl;
  try {
    const top = children(expectTag(parseDer(der), TAG.SEQUENCE, 'CertificateList'));
    if (top.length !== 3) throw new Error(`CertificateList has ${top.length} elements, expected 3`);
    const [tbsT, algT, sigT] = top as [Tlv, Tlv, Tlv];
    const signatureAlgorithm = algorithmOid(algT);
    const signature = readBitString(sigT).bytes;

    const f = children(expectTag(tbsT, TAG.SEQUENCE, 'TBSCertList'));
    let i = 0;
    if (f[i]?.tag === TAG.INTEGER) {
      const v = readSmallUInt(f[i]!);
      if (v !== 1) throw new Error(`CRL version field ${v}, expected 1 (v2)`);
      i++;
    }
    const need = (what: string): Tlv => {
      const t = f[i++];
      if (!t) throw new Error(`TBSCertList lacks ${what}`);
      return t;
    };
    const inner = need('signature');
    if (!Buffer.from(encoded(inner)).equals(encoded(algT))) {
      throw new Error('TBSCertList signature algorithm differs from the outer signatureAlgorithm');
    }
    const issuerT = need('issuer');
    nameText(issuerT); // a well-formed Name, checked as in certificates
    const thisUpdate = readTime(need('thisUpdate'));
    const nu = f[i];
    if (!nu || (nu.tag !== TAG.UTC_TIME && nu.tag !== TAG.GENERALIZED_TIME)) throw new Error('nextUpdate is missing');
    const nextUpdate = readTime(nu);
    i++;
    if (nextUpdate < thisUpdate) throw new Error(`nextUpdate ${iso(nextUpdate)} is before thisUpdate ${iso(thisUpdate)}`);

    const revoked = new Set<string>();
    const revokedAt = new Map<string, number>();
    if (f[i]?.tag === TAG.SEQUENCE) {
      const entries = children(f[i]!);
      if (entries.length === 0) throw new Error('empty revokedCertificates (must be absent instead)');
      for (const e of entries) {
        const parts = children(expectTag(e, TAG.SEQUENCE, 'revoked certificate entry'));
        if (parts.length < 2 || parts.length > 3) throw new Error('revoked certificate entry must have 2 or 3 elements');
        const serial = serialKey(parts[0]!, 'userCertificate');
        const date = readTime(parts[1]!);
        if (parts[2]) {
          for (const x of extensionList(parts[2], 'crlEntryExtensions')) {
            if (x.critical && !KNOWN_ENTRY_EXTENSIONS.has(x.oid)) {
              fail('CRL_UNKNOWN_CRITICAL_EXTENSION', `${label}: revoked entry ${serial} has unknown critical extension ${x.oid}`);
            }
          }
        }
        revoked.add(serial);
        revokedAt.set(serial, Math.min(date, revokedAt.get(serial) ?? Infinity));
      }
      i++;
    }
    let extensions: CrlExtension[] = [];
    if (f[i]?.tag === 0xa0) {
      const wrap = children(f[i]!);
      if (wrap.length !== 1) throw new Error('crlExtensions [0] must hold one SEQUENCE');
      extensions = extensionList(wrap[0]!, 'crlExtensions');
      i++;
    }
    if (i !== f.length) throw new Error('TBSCertList has unexpected trailing fields');
    for (const x of extensions) {
      if (x.critical && !KNOWN_CRL_EXTENSIONS.has(x.oid)) {
        fail('CRL_UNKNOWN_CRITICAL_EXTENSION', `${label}: unknown critical CRL extension ${x.oid}`);
      }
    }
    crl = {
      der,
      tbs: encoded(tbsT),
      issuer: encoded(issuerT),
      thisUpdate,
      nextUpdate,
      signatureAlgorithm,
      signature,
      revoked,
      revokedAt,
      extensions,
    };
  } catch (e) {
    if (e instanceof VerifierError && (domainOf(e.code) === 'crl' || e.code === 'X509_NEGATIVE_SERIAL')) throw e;
    fail('CRL_MALFORMED', `${label}: malformed CRL: ${(e as Error).message}`);
  }
  return crl;
}

/**
 * Verifies `crl` was issued and signed by `issuer` and is current at `time` (epoch ms; both
 * bounds inclusive). `label` names the CRL in messages ("PCK CRL", "Root CA CRL").
 */
export function verifyCrl(crl: Crl, issuer: Certificate, time: number, label: string): void {
  verifyCrlSignature(crl, issuer, label);
  checkCrlTime(crl, time, label);
}

/**
 * Verifies `crl` was issued and signed by `issuer` and can tell the revocations as they stood at a
 * past `time`: it was current then, or issued later (its entries carry their revocation dates).
 * One whose validity ended before `time` cannot.
 */
export function verifyCrlCovering(crl: Crl, issuer: Certificate, time: number, label: string): void {
  verifyCrlSignature(crl, issuer, label);
  checkCrlCovers(crl, time, label);
}

/** The date check of verifyCrlCovering alone: `crl` was current at `time` or issued later. */
export function checkCrlCovers(crl: Crl, time: number, label: string): void {
  if (!Number.isFinite(time)) fail('CRL_EXPIRED', `${label}: invalid verification time ${time}`);
  if (crl.nextUpdate < time) {
    fail('CRL_ENDS_BEFORE_TIME', `${label}: valid until ${iso(crl.nextUpdate)}, before ${iso(time)}: it cannot tell the revocations as they stood then; a CRL current at that time or issued later is needed`);
  }
}

/** `crl` was issued and signed by `issuer` (its dates are the caller's to check). */
function verifyCrlSignature(crl: Crl, issuer: Certificate, label: string): void {
  if (!Buffer.from(crl.issuer).equals(issuer.subject)) {
    fail('CRL_ISSUER_MISMATCH', `${label}: issued by a different name than "${issuer.subjectText}"`);
  }
  if (issuer.keyUsage !== undefined && !(issuer.keyUsage & KEY_USAGE.cRLSign)) {
    fail('CRL_ISSUER_NOT_CRL_SIGNER', `${label}: issuer "${issuer.subjectText}" keyUsage lacks cRLSign`);
  }
  const hash = HASH_OF[crl.signatureAlgorithm];
  if (!hash || issuer.publicKey.asymmetricKeyType !== 'ec') {
    fail('CRL_UNSUPPORTED_ALGORITHM', `${label}: signature algorithm ${crl.signatureAlgorithm} with a ${issuer.publicKey.asymmetricKeyType} key is not supported`);
  }
  let ok = false;
  try {
    ok = cryptoVerify(hash, crl.tbs, { key: issuer.publicKey, dsaEncoding: 'der' }, crl.signature);
  } catch {
    ok = false;
  }
  if (!ok) fail('CRL_BAD_SIGNATURE', `${label}: signature does not verify with the key of "${issuer.subjectText}"`);
}

/** thisUpdate ≤ time ≤ nextUpdate, or CRL_NOT_YET_VALID / CRL_EXPIRED. */
export function checkCrlTime(crl: Crl, time: number, label: string): void {
  if (!Number.isFinite(time)) fail('CRL_EXPIRED', `${label}: invalid verification time ${time}`);
  if (time < crl.thisUpdate) {
    fail('CRL_NOT_YET_VALID', `${label}: not yet valid at ${iso(time)} (thisUpdate ${iso(crl.thisUpdate)})`);
  }
  if (time > crl.nextUpdate) {
    fail('CRL_EXPIRED', `${label}: expired at ${iso(crl.nextUpdate)} (its nextUpdate; verification time ${iso(time)})`);
  }
}

/** True when `serialHex` (lowercase hex, no leading 00) is listed. */
export function isRevoked(crl: Crl, serialHex: string): boolean {
  return crl.revoked.has(serialHex.toLowerCase());
}

/** When `serialHex` was revoked by the CRL's entry (epoch ms), or undefined when it is not listed. */
export function revokedSince(crl: Crl, serialHex: string): number | undefined {
  return crl.revokedAt.get(serialHex.toLowerCase());
}
