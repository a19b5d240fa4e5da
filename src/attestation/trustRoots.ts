/**
 * Trust anchors. The bundled defaults are pinned by SHA-256 of their DER, so a modified bundle is
 * refused at startup. A configured root (e.g. a test PKI) must be a self-signed CA certificate
 * whose signature verifies and which is valid now.
 */
import { readFileSync } from 'node:fs';
import { VerifierError } from '../errors.js';
import type { ConfigCode } from '../config/errors.js';
import { parsePemChain, type Certificate } from './x509/certificate.js';
import { verify } from 'node:crypto';

const ECDSA_HASH: Record<string, string> = {
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
};

/** A trust anchor must be self-issued, a CA, self-signed with a verifying ECDSA signature, and valid now. */
function checkSelfSignedCa(c: Certificate, now: number, bad: (why: string) => never): void {
  if (Buffer.compare(Buffer.from(c.subject), Buffer.from(c.issuer)) !== 0) bad(`subject "${c.subjectText}" differs from issuer "${c.issuerText}"`);
  if (!c.basicConstraints?.ca) bad('basicConstraints CA is not set');
  const hash = ECDSA_HASH[c.signatureAlgorithm];
  if (!hash) bad(`unsupported signature algorithm ${c.signatureAlgorithm}`);
  if (!verify(hash, c.tbs, { key: c.publicKey, dsaEncoding: 'der' }, c.signature)) bad('its self-signature does not verify');
  if (now < c.notBefore || now > c.notAfter) {
    bad(`not valid now (${new Date(now).toISOString()}; valid ${new Date(c.notBefore).toISOString()} to ${new Date(c.notAfter).toISOString()})`);
  }
}

export const PINNED_ROOT_SHA256 = {
  /** Intel SGX Root CA (valid 2018-05-21 to 2049-12-31). */
  typeA: '44a0196b2b99f889b8e149e95b807a350e7424964399e885a7cbb8ccfab674d3',
  /** AWS Nitro Enclaves Root G1 (valid 2019-10-28 to 2049-10-28). */
  typeB: '641a0321a3e244efe456463195d606317ed7cdcc3c1756e09893f3c68f79bb5b',
} as const;

function bad(kind: string, file: string, why: string): never {
  throw new VerifierError<ConfigCode>('CONFIG_BAD_TRUST_ROOT', `config: trustedRoots.${kind} = ${JSON.stringify(file)}: ${why}`);
}

export function loadTrustRoot(kind: 'typeA' | 'typeB', file: string, opts: { pinned: boolean; now?: number }): Certificate {
  let pem: string;
  try {
    pem = readFileSync(file, 'utf8');
  } catch (e) {
    bad(kind, file, `cannot read the file (${(e as NodeJS.ErrnoException).code ?? String(e)})`);
  }
  let certs: Certificate[];
  try {
    certs = parsePemChain(pem);
  } catch (e) {
    bad(kind, file, `expected one PEM certificate: ${(e as Error).message}`);
  }
  if (certs.length !== 1) bad(kind, file, `expected exactly one PEM certificate, found ${certs.length}`);
  const root = certs[0]!;
  if (opts.pinned && root.fingerprint256 !== PINNED_ROOT_SHA256[kind]) {
    bad(kind, file, `the bundled root was modified: SHA-256 ${root.fingerprint256}, pinned ${PINNED_ROOT_SHA256[kind]}`);
  }
  checkSelfSignedCa(root, opts.now ?? Date.now(), (why) => bad(kind, file, `not a usable self-signed CA root: ${why}`));
  return root;
}
