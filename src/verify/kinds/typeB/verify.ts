/** typeB (AWS Nitro): verify (COSE, document, chain, signature) → oracle policy → nonce → binding. */
import { verifyTypeB as verifyDocument, type ParsedTypeB } from '../../../attestation/typeB/verify.js';
import type { Policy } from '../../policy.js';
import { checkPcrs, checkUserDataBinding, equalBytes, fail } from '../../policy.js';
import type { KindContext, KindDeps } from '../types.js';
import type { TypeBView } from './view.js';

export function verifyTypeB(parsed: ParsedTypeB, _view: TypeBView, userData: Uint8Array, policy: Policy, deps: KindDeps, ctx: KindContext): void {
  verifyDocument(parsed, {
    root: deps.root,
    allowDebug: policy.allowDebugEnclaves,
    ...(deps.chainCache ? { chainCache: deps.chainCache } : {}),
  });
  checkPcrs(parsed.document.pcrs, policy.pcrValuesTarget);
  const ud = parsed.document.userData;
  if (!ud || ud.length !== 16) {
    fail('TYPEB_USER_DATA_LENGTH', `typeB: user_data must be exactly 16 bytes (the userData hash), got ${ud ? `${ud.length} bytes` : 'none'}`);
  }
  if (ctx.nonce !== undefined) {
    const dn = parsed.document.nonce;
    if (!dn || !equalBytes(dn, ctx.nonce)) fail('TYPEB_NONCE_MISMATCH', 'typeB: document nonce does not match the request nonce');
  }
  checkUserDataBinding(userData, ud, 'typeB user_data', ctx.timings);
}
