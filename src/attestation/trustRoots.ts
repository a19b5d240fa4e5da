/**
 * Trust anchors. The bundled defaults are pinned by SHA-256 of their DER, so a modified bundle is
 * refused at startup. A configured root (e.g. a test PKI) must be a self-signed CA certificate
 * whose signature verifies and which is valid now.
 */
import { readFileSync } from 'node:fs';
import { VerifierError } from '../errors.js';
import type { ConfigCode } from '../config/errors.js';
import { parsePemChain, type Certificate } from './x509/certificate.js';
import { verifyChain } from './x509/chain.js';

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
  try {
    verifyChain([root], { time: opts.now ?? Date.now(), root, label: `trustedRoots.${kind}` });
  } catch (e) {
    bad(kind, file, `not a usable self-signed CA root: ${(e as Error).message}`);
  }
  return root;
}
