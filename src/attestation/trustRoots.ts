/**
 * Trust anchors. The bundled defaults are pinned by SHA-256 of their DER, so a modified bundle is
 * refused at startup. A configured root (e.g. a test PKI) must be a self-signed CA certificate
 * whose signature verifies and which is valid now.
 */
import { readSmallFile } from '../smallFile.js';

/** A trust root is one PEM certificate: a few KB. */
const MAX_ROOT_FILE_BYTES = 64 * 1024;
import { VerifierError } from '../errors.js';
import type { DomainCode } from '../errorCodes.js';
import { parsePemChain, type Certificate } from './x509/certificate.js';
import { verify } from 'node:crypto';

const ECDSA_HASH: Record<string, string> = {
  '1.2.840.10045.4.3.2': 'sha256',
  '1.2.840.10045.4.3.3': 'sha384',
  '1.2.840.10045.4.3.4': 'sha512',
};

/** A trust anchor must be self-issued, a CA, self-signed with a verifying ECDSA signature, and valid now (`now` null: at no particular time). */
function checkSelfSignedCa(c: Certificate, now: number | null, bad: (why: string) => never): void {
  if (Buffer.compare(Buffer.from(c.subject), Buffer.from(c.issuer)) !== 0) bad(`subject "${c.subjectText}" differs from issuer "${c.issuerText}"`);
  if (!c.basicConstraints?.ca) bad('basicConstraints CA is not set');
  const hash = ECDSA_HASH[c.signatureAlgorithm];
  if (!hash) bad(`unsupported signature algorithm ${c.signatureAlgorithm}`);
  if (!verify(hash, c.tbs, { key: c.publicKey, dsaEncoding: 'der' }, c.signature)) bad('its self-signature does not verify');
  if (now !== null && (now < c.notBefore || now > c.notAfter)) {
    bad(`not valid now (${new Date(now).toISOString()}; valid ${new Date(c.notBefore).toISOString()} to ${new Date(c.notAfter).toISOString()})`);
  }
}

function bad(kind: string, file: string, why: string): never {
  throw new VerifierError<DomainCode<'config'>>('CONFIG_BAD_TRUST_ROOT', `config: trustedRoots.${kind} = ${JSON.stringify(file)}: ${why}`);
}

/**
 * `pinnedSha256`: the bundled root's pin (SHA-256 of its DER), given when `file` is the bundled one.
 * `now`: the time the root must be valid at (default the clock); null for a root that anchors
 * documents of many times, each chain checking it at its own (the collateral archive).
 */
export function loadTrustRoot(kind: string, file: string, opts: { pinnedSha256?: string; now?: number | null }): Certificate {
  const read = readSmallFile(file, MAX_ROOT_FILE_BYTES);
  if (!read.ok) bad(kind, file, read.why);
  const pem = read.bytes.toString('utf8');
  let certs: Certificate[];
  try {
    certs = parsePemChain(pem);
  } catch (e) {
    bad(kind, file, `expected one PEM certificate: ${(e as Error).message}`);
  }
  if (certs.length !== 1) bad(kind, file, `expected exactly one PEM certificate, found ${certs.length}`);
  const root = certs[0]!;
  if (opts.pinnedSha256 !== undefined && root.fingerprint256 !== opts.pinnedSha256) {
    bad(kind, file, `the bundled root was modified: SHA-256 ${root.fingerprint256}, pinned ${opts.pinnedSha256}`);
  }
  checkSelfSignedCa(root, opts.now === undefined ? Date.now() : opts.now, (why) => bad(kind, file, `not a usable self-signed CA root: ${why}`));
  return root;
}
