/** typeB (AWS Nitro): cut → parse → verify (COSE, document, chain, signature) → oracle policy. */
import { cutTypeBReport } from '../attestation/typeB/detect.js';
import { parseTypeB, verifyTypeB } from '../attestation/typeB/verify.js';
import type { Certificate } from '../attestation/x509/certificate.js';
import type { ChainCache } from '../attestation/x509/chainCache.js';
import type { Policy } from './types.js';
import { checkPcrs, checkUserDataBinding, equalBytes, fail } from './policy.js';
import { typeBView } from './views.js';

export interface TypeBDeps {
  root: Certificate;
  chainCache?: ChainCache;
}

/**
 * Runs every typeB check in order. `onView` receives the decoded document as soon as it parses,
 * so that callers can show it even when a later check fails.
 */
export function verifyTypeBReportAgainstPolicy(
  report: Uint8Array,
  userData: Uint8Array,
  policy: Policy,
  deps: TypeBDeps,
  onView: (view: Record<string, unknown>) => void,
  nonce?: Uint8Array,
  timings?: { hashSeconds?: number },
): void {
  const parsed = parseTypeB(cutTypeBReport(report));
  onView(typeBView(parsed));
  verifyTypeB(parsed, {
    root: deps.root,
    allowDebug: policy.allowDebugEnclaves,
    ...(deps.chainCache ? { chainCache: deps.chainCache } : {}),
  });
  checkPcrs(parsed.document.pcrs, policy.pcrValuesTarget);
  const ud = parsed.document.userData;
  if (!ud || ud.length !== 16) {
    fail('TYPEB_USER_DATA_LENGTH', `typeB: user_data must be exactly 16 bytes (the userData hash), got ${ud ? `${ud.length} bytes` : 'none'}`);
  }
  if (nonce !== undefined) {
    const dn = parsed.document.nonce;
    if (!dn || !equalBytes(dn, nonce)) fail('TYPEB_NONCE_MISMATCH', 'typeB: document nonce does not match the request nonce');
  }
  checkUserDataBinding(userData, ud, 'typeB user_data', timings);
}
