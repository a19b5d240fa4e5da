/**
 * The EAR issuer of a running verifier: its signer, the policy digest, who it is. Front ends (the
 * server's POST /decodeReport, `reverify --ear-out`) hand it a verdict and get the signed JWT.
 */
import { VERIFIER_VERSION } from '../version.js';
import { earClaims, type EarContext, type VerdictFacts } from './claims.js';
import type { EarSigner } from './signer.js';

/** ear.verifier-id.developer of this verifier's EARs: the package's name. */
export const EAR_DEVELOPER = VERIFIER_VERSION.split('/')[0]!;

export interface EarIssuer {
  readonly signer: EarSigner;
  /** The signed EAR of one verdict, issued now. */
  issue(v: VerdictFacts, evidence: EarContext['evidence'] | undefined, extra?: EarContext['extra']): Promise<string>;
  /** Signs a claims-set of its own (the audit summary), with iat and the verifier id added. */
  signClaims(claims: Record<string, unknown>): Promise<string>;
}

export function earIssuer(signer: EarSigner, policyDigest: string, now: () => number = Date.now): EarIssuer {
  const iat = (): number => Math.floor(now() / 1000);
  return {
    signer,
    issue: (v, evidence, extra) =>
      signer.sign(earClaims(v, { iat: iat(), build: VERIFIER_VERSION, developer: EAR_DEVELOPER, policyDigest, ...(evidence ? { evidence } : {}), ...(extra ? { extra } : {}) })),
    signClaims: (claims) => signer.sign({ ...claims, iat: iat(), 'ear.verifier-id': { build: VERIFIER_VERSION, developer: EAR_DEVELOPER } }),
  };
}
