/** typeB (AWS Nitro): verify (COSE, document, chain, signature) → oracle policy → nonce → binding. */
import { TYPEB_CHECKS, verifyTypeB as verifyDocument, type ParsedTypeB } from '../../../attestation/typeB/verify.js';
import { BINDING_CHECK, type CheckDef } from '../../checks.js';
import { checkUserDataBinding, equalBytes, fail, type Policy } from '../../policy.js';
import { checkPcrs } from './policy.js';
import type { KindContext, KindDeps } from '../types.js';
import type { TypeBView } from './view.js';

/** Every check of a typeB report after kind detection, in the order they run. */
export const TYPEB_KIND_CHECKS: readonly CheckDef[] = [
  { id: 'typeB.parse', title: 'COSE_Sign1 structure and attestation document fields' },
  ...TYPEB_CHECKS,
  { id: 'policy.pcrs', title: 'PCR0–2 equal the configured targets' },
  { id: 'typeB.userDataLength', title: 'Document user_data is 16 bytes' },
  { id: 'typeB.nonce', title: 'Document nonce equals the request nonce' },
  BINDING_CHECK,
];

export function verifyTypeB(
  parsed: ParsedTypeB,
  _view: TypeBView,
  userData: Uint8Array,
  accepted: readonly (readonly Uint8Array[])[],
  policy: Policy,
  deps: KindDeps,
  ctx: KindContext,
): void {
  const trace = ctx.trace;
  verifyDocument(parsed, {
    root: deps.root,
    allowDebug: policy.allowDebugEnclaves,
    ...(deps.chainCache ? { chainCache: deps.chainCache } : {}),
    ...(trace ? { onCheck: (id: string) => trace.begin(id) } : {}),
  });
  trace?.begin('policy.pcrs');
  checkPcrs(parsed.document.pcrs, accepted);
  trace?.begin('typeB.userDataLength');
  const ud = parsed.document.userData;
  if (!ud || ud.length !== 16) {
    fail('TYPEB_USER_DATA_LENGTH', `typeB: user_data must be exactly 16 bytes (the userData hash), got ${ud ? `${ud.length} bytes` : 'none'}`);
  }
  if (ctx.nonce !== undefined) {
    trace?.begin('typeB.nonce');
    const dn = parsed.document.nonce;
    if (!dn || !equalBytes(dn, ctx.nonce)) fail('TYPEB_NONCE_MISMATCH', 'typeB: document nonce does not match the request nonce');
  }
  trace?.begin(BINDING_CHECK.id);
  checkUserDataBinding(userData, ud, 'typeB user_data', ctx);
  trace?.pass();
}
