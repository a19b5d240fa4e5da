/**
 * A TCB info or QE identity authenticated as history: its [TCB Signing, root] chain validated at
 * the time it was signed (its issueDate), and its signature over the exact signed bytes. Its own
 * validity window is not looked at: a copy of an old TCB evaluation is evidence of what that
 * evaluation said however long ago it expired (docs/history.md). Used by the collateral archive
 * (src/collateral/archive.ts) and by the newer evaluations a history verdict is rated under
 * (today.ts).
 */
import type { Certificate } from '../x509/certificate.js';
import { typeAError } from './errors.js';
import { parseQeIdentity, type QeIdentity } from './qeIdentity.js';
import { p1363Verify, tcbSigningChainShape, verifyCollateralChain } from './signingChain.js';
import { parseTcbInfo, type TcbInfo } from './tcbInfo.js';

export interface SignedAtIssue<P> {
  readonly parsed: P;
  /** [TCB Signing, root], validated at the document's issueDate. */
  readonly chain: Certificate[];
}

export function verifySignedAtIssue(kind: 'tcbInfo', raw: string, signatureHex: string, issuerChain: string, root: Certificate): SignedAtIssue<TcbInfo>;
export function verifySignedAtIssue(kind: 'qeIdentity', raw: string, signatureHex: string, issuerChain: string, root: Certificate): SignedAtIssue<QeIdentity>;
export function verifySignedAtIssue(kind: 'tcbInfo' | 'qeIdentity', raw: string, signatureHex: string, issuerChain: string, root: Certificate): SignedAtIssue<TcbInfo | QeIdentity>;
export function verifySignedAtIssue(kind: 'tcbInfo' | 'qeIdentity', raw: string, signatureHex: string, issuerChain: string, root: Certificate): SignedAtIssue<TcbInfo | QeIdentity> {
  const what = kind === 'tcbInfo' ? 'TCB info' : 'QE identity';
  const parsed = kind === 'tcbInfo' ? parseTcbInfo(raw) : parseQeIdentity(raw);
  const chain = tcbSigningChainShape(issuerChain, what);
  verifyCollateralChain(chain, { time: parsed.issueDate, root, label: `typeA ${what} issuer chain (at its issueDate)`, leafKeyCurve: 'P-256' }, 'TYPEA_TCB_SIGNING_CHAIN_INVALID');
  if (typeof signatureHex !== 'string' || !/^[0-9a-fA-F]{128}$/.test(signatureHex) || !p1363Verify(chain[0]!.publicKey, Buffer.from(raw, 'utf8'), Buffer.from(signatureHex, 'hex'))) {
    typeAError(kind === 'tcbInfo' ? 'TYPEA_TCB_INFO_BAD_SIGNATURE' : 'TYPEA_QE_IDENTITY_BAD_SIGNATURE', `${what} signature does not verify with the key of "${chain[0]!.subjectText}" over the exact bytes`);
  }
  return { parsed, chain };
}
