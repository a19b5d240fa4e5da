/**
 * Intel's signing chains of the typeA collateral: the [TCB Signing, root] chain that signs TCB
 * infos, QE identities and the lists of TCB evaluation data numbers, the PCK CRL issuer chain, and
 * the raw-r‖s ECDSA signatures they make. A failure of these chains is a collateral failure (the
 * collateral comes from the PCCS, the collateral directory or an archive, never from the report).
 */
import type { KeyObject } from 'node:crypto';
import { verify as cryptoVerify } from 'node:crypto';
import { isVerifierError } from '../../errors.js';
import { KEY_USAGE, parsePemChain, type Certificate } from '../x509/certificate.js';
import { verifyChain, type ChainPolicy } from '../x509/chain.js';
import { typeAError } from './errors.js';

export const CN_TCB_SIGNING = 'Intel SGX TCB Signing';

export function commonName(c: Certificate): string | undefined {
  const m = /(?:^|, )CN=([^,]*)(?:,|$)/.exec(c.subjectText);
  return m?.[1];
}

/** An end-entity signing certificate: not a CA, and keyUsage (when present) allows digitalSignature. */
export function isSigningLeaf(c: Certificate): boolean {
  return !c.basicConstraints?.ca && (c.keyUsage === undefined || (c.keyUsage & KEY_USAGE.digitalSignature) !== 0);
}

/** An ECDSA P-256 signature in IEEE P1363 form (raw r‖s) over `data`; false on any failure. */
export function p1363Verify(key: KeyObject, data: Uint8Array, sig: Uint8Array): boolean {
  try {
    return cryptoVerify('sha256', data, { key, dsaEncoding: 'ieee-p1363' }, sig);
  } catch {
    return false;
  }
}

/** The certificates of a collateral chain's PEM; a PEM or certificate that does not parse is a collateral failure. */
export function collateralPemChain(pem: string, what: string, code: 'TYPEA_TCB_SIGNING_CHAIN_INVALID' | 'TYPEA_PCK_CRL_ISSUER_CHAIN_INVALID'): Certificate[] {
  try {
    return parsePemChain(pem);
  } catch (e) {
    if (!isVerifierError(e)) throw e;
    typeAError(code, `${what}: ${e.code}: ${e.message}`, { cause: e });
  }
}

/** Shape of a [TCB Signing, root] chain (no cryptography). */
export function tcbSigningChainShape(pem: string, what: string): Certificate[] {
  const chain = collateralPemChain(pem, `${what} issuer chain`, 'TYPEA_TCB_SIGNING_CHAIN_INVALID');
  if (chain.length !== 2) {
    typeAError('TYPEA_TCB_SIGNING_CHAIN_INVALID', `${what} issuer chain has ${chain.length} certificate(s), expected 2 (TCB Signing, root)`);
  }
  const signer = chain[0]!;
  if (commonName(signer) !== CN_TCB_SIGNING) {
    typeAError('TYPEA_TCB_SIGNING_CHAIN_INVALID', `${what} issuer chain leaf is "${signer.subjectText}", expected CN=${CN_TCB_SIGNING}`);
  }
  if (!isSigningLeaf(signer)) {
    typeAError('TYPEA_TCB_SIGNING_CHAIN_INVALID', `${what} signing certificate is a CA or its keyUsage lacks digitalSignature`);
  }
  return chain;
}

/**
 * A chain of the collateral (TCB signing, PCK CRL issuer) validated at T. The collateral comes from
 * the PCCS or the collateral directory, never from the report, so a failure of its chain (a bad
 * signature, an expired certificate) says nothing about the report: it is raised with a collateral
 * code (an unverifiable verdict), the X.509 check's own code and message kept in the text.
 */
export function verifyCollateralChain(chain: readonly Certificate[], policy: ChainPolicy, code: 'TYPEA_TCB_SIGNING_CHAIN_INVALID' | 'TYPEA_PCK_CRL_ISSUER_CHAIN_INVALID'): void {
  try {
    verifyChain(chain, policy);
  } catch (e) {
    if (!isVerifierError(e)) throw e;
    typeAError(code, `${e.code}: ${e.message}`, { cause: e });
  }
}
