/**
 * Certificate path validation against one pinned root, as an ordered list of checks. Cheap
 * structural checks run for every certificate before any signature is verified.
 */
import { verify as cryptoVerify } from 'node:crypto';
import { VerifierError } from '../../errors.js';
import { KEY_USAGE, OID, parseCertificate, type Certificate } from './certificate.js';
import type { X509Code } from './errors.js';
import { equalBytes } from '../../bytes.js';

export interface ChainPolicy {
  /** Verification time, epoch milliseconds; validity bounds are inclusive. */
  readonly time: number;
  /** The pinned trust anchor, compared byte-for-byte by DER with the last chain element. */
  readonly root: Certificate;
  /** Required curve of the leaf key. */
  readonly leafKeyCurve?: 'P-256' | 'P-384';
  /** Allowed signatureAlgorithm OIDs of the leaf certificate (the issuer's signature on it). */
  readonly leafSignatureAlgorithms?: readonly string[];
  /** Critical extension OIDs understood by the caller, in addition to basicConstraints and keyUsage. */
  readonly knownCriticalExtensions?: readonly string[];
  /** Prefix of every error message, e.g. 'typeB'. */
  readonly label: string;
}

const CURVES: Record<string, 'P-256' | 'P-384'> = { prime256v1: 'P-256', secp384r1: 'P-384' };
const HASH_OF: Record<string, string> = { [OID.ecdsaWithSha256]: 'sha256', [OID.ecdsaWithSha384]: 'sha384' };
const ALG_NAME: Record<string, string> = {
  [OID.ecdsaWithSha256]: 'ecdsa-with-SHA256',
  [OID.ecdsaWithSha384]: 'ecdsa-with-SHA384',
};
const BUILTIN_CRITICAL = [OID.basicConstraints, OID.keyUsage];

export function isoTime(ms: number): string {
  if (!Number.isFinite(ms)) return String(ms);
  const s = new Date(ms).toISOString();
  return s.endsWith('.000Z') ? `${s.slice(0, -5)}Z` : s;
}

export function algorithmName(oid: string): string {
  return ALG_NAME[oid] ?? oid;
}

/** The curve of an EC key as 'P-256'/'P-384', or a description of what it is instead. */
export function keyCurve(c: Certificate): string {
  const d = c.publicKey.asymmetricKeyDetails;
  if (c.publicKey.asymmetricKeyType !== 'ec') return `${c.publicKey.asymmetricKeyType ?? 'unknown'} key`;
  return CURVES[d?.namedCurve ?? ''] ?? `EC ${d?.namedCurve ?? 'unknown curve'}`;
}

function role(i: number, n: number): string {
  return i === 0 ? 'leaf' : i === n - 1 ? 'root' : `intermediate ${i}`;
}


/**
 * Validates `chainLeafFirst` = [leaf, intermediates…, root] at `policy.time`. The last element
 * must be byte-identical to `policy.root`. Throws a VerifierError with an X509_CHAIN_* code.
 * `internal.signaturesVerifiedFrom` (for ChainCache only): the signatures of certificates at that
 * index and above were already verified on these exact bytes; every other check still runs.
 */
export function verifyChain(
  chainLeafFirst: readonly Certificate[],
  policy: ChainPolicy,
  internal: { readonly signaturesVerifiedFrom?: number } = {},
): void {
  function fail(code: X509Code, msg: string): never {
    throw new VerifierError<X509Code>(code, `${policy.label}: certificate chain: ${msg}`);
  }
  const n = chainLeafFirst.length;
  const certs = chainLeafFirst;
  const t = policy.time;
  if (n === 0) fail('X509_CHAIN_TOO_SHORT', 'no certificate');
  if (!Number.isFinite(t)) fail('X509_CHAIN_EXPIRED', `invalid verification time ${t}`);

  // 1. Trust anchor: the last certificate is the pinned root, byte for byte, and is not the leaf.
  const last = certs[n - 1]!;
  if (!equalBytes(last.der, policy.root.der)) {
    fail(
      'X509_CHAIN_UNTRUSTED_ROOT',
      `${n === 1 ? 'leaf (no issuer in the chain)' : 'root'} "${last.subjectText}" (sha256 ${last.fingerprint256}) is not the pinned root "${policy.root.subjectText}" (sha256 ${policy.root.fingerprint256})`,
    );
  }
  if (n < 2) fail('X509_CHAIN_TOO_SHORT', 'the chain is only the pinned root; a leaf signed under it is required');

  // 2. Leaf key and signature algorithm.
  const leaf = certs[0]!;
  if (policy.leafKeyCurve && keyCurve(leaf) !== policy.leafKeyCurve) {
    fail('X509_CHAIN_BAD_LEAF_KEY', `leaf key is ${keyCurve(leaf)}, expected EC ${policy.leafKeyCurve}`);
  }
  if (policy.leafSignatureAlgorithms && !policy.leafSignatureAlgorithms.includes(leaf.signatureAlgorithm)) {
    fail(
      'X509_CHAIN_BAD_LEAF_ALGORITHM',
      `leaf signature algorithm is ${algorithmName(leaf.signatureAlgorithm)}, expected ${policy.leafSignatureAlgorithms.map(algorithmName).join(' or ')}`,
    );
  }

  const known = new Set<string>([...BUILTIN_CRITICAL, ...(policy.knownCriticalExtensions ?? [])]);
  // 3. Per-certificate checks without cryptography.
  for (let i = 0; i < n; i++) {
    const c = certs[i]!;
    const r = role(i, n);
    // 3a. Name linkage (raw DER): the issuer of c is the subject of the next certificate.
    if (i < n - 1 && !equalBytes(c.issuer, certs[i + 1]!.subject)) {
      fail(
        'X509_CHAIN_NAME_MISMATCH',
        `${r} issuer "${c.issuerText}" does not match the subject "${certs[i + 1]!.subjectText}" of ${role(i + 1, n)}`,
      );
    }
    if (i === n - 1 && !equalBytes(c.issuer, c.subject)) {
      fail('X509_CHAIN_NAME_MISMATCH', `root "${c.subjectText}" is not self-issued (issuer "${c.issuerText}")`);
    }
    // 3b. Validity window, inclusive bounds.
    if (t < c.notBefore || t > c.notAfter) {
      fail(
        t < c.notBefore ? 'X509_CHAIN_NOT_YET_VALID' : 'X509_CHAIN_EXPIRED',
        `${r} "${c.subjectText}" not valid at ${isoTime(t)} (valid ${isoTime(c.notBefore)} to ${isoTime(c.notAfter)})`,
      );
    }
    // 3c. Issuers are CAs allowed to sign certificates, within their path length.
    if (i > 0) {
      if (!c.basicConstraints?.ca) fail('X509_CHAIN_NOT_CA', `${r} "${c.subjectText}" is not a CA (basicConstraints cA not TRUE)`);
      if (c.keyUsage !== undefined && !(c.keyUsage & KEY_USAGE.keyCertSign)) {
        fail('X509_CHAIN_KEY_USAGE', `${r} "${c.subjectText}" keyUsage lacks keyCertSign`);
      }
      const below = i - 1; // intermediates between this CA and the leaf
      const pathLen = c.basicConstraints.pathLen;
      if (pathLen !== undefined && below > pathLen) {
        fail('X509_CHAIN_PATH_LEN', `${r} "${c.subjectText}" allows ${pathLen} intermediate(s) below it, found ${below}`);
      }
    }
    // 3d. No critical extension we do not understand.
    for (const e of c.extensions) {
      if (e.critical && !known.has(e.oid)) {
        fail('X509_CHAIN_UNKNOWN_CRITICAL_EXTENSION', `${r} "${c.subjectText}" has unknown critical extension ${e.oid}`);
      }
    }
    // 3e. Supported signature algorithm and issuer key (the pinned root's self-signature is not used).
    if (i < n - 1) {
      if (!HASH_OF[c.signatureAlgorithm]) {
        fail('X509_CHAIN_UNSUPPORTED_ALGORITHM', `${r} "${c.subjectText}" uses unsupported signature algorithm ${c.signatureAlgorithm}`);
      }
      const issuer = certs[i + 1]!;
      if (issuer.publicKey.asymmetricKeyType !== 'ec') {
        fail('X509_CHAIN_UNSUPPORTED_ALGORITHM', `${role(i + 1, n)} "${issuer.subjectText}" key is not EC`);
      }
    }
  }

  // 4. Signatures, leaf first, each with the key of the next certificate. The pinned root is a
  //    trust anchor (RFC 5280 §6.1): its bytes were compared in step 1, its self-signature adds nothing.
  const sigEnd = Math.min(n - 1, internal.signaturesVerifiedFrom ?? n - 1);
  for (let i = 0; i < sigEnd; i++) {
    const c = certs[i]!;
    const issuer = certs[i + 1]!;
    let ok = false;
    try {
      ok = cryptoVerify(HASH_OF[c.signatureAlgorithm]!, c.tbs, { key: issuer.publicKey, dsaEncoding: 'der' }, c.signature);
    } catch {
      ok = false;
    }
    if (!ok) {
      fail(
        'X509_CHAIN_BAD_SIGNATURE',
        `signature of ${role(i, n)} "${c.subjectText}" does not verify with the key of ${role(i + 1, n)}`,
      );
    }
  }
}

/**
 * Parses a DER chain (leaf first). When the last element is byte-identical to the pinned root,
 * the already-parsed root is reused instead of being parsed again.
 */
export function parseChainDer(dersLeafFirst: readonly Uint8Array[], root: Certificate): Certificate[] {
  const n = dersLeafFirst.length;
  return dersLeafFirst.map((der, i) => (i === n - 1 && equalBytes(der, root.der) ? root : parseCertificate(der)));
}

/** parseChainDer + verifyChain. */
export function verifyChainDer(dersLeafFirst: readonly Uint8Array[], policy: ChainPolicy): Certificate[] {
  const certs = parseChainDer(dersLeafFirst, policy.root);
  verifyChain(certs, policy);
  return certs;
}
