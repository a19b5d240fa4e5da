/**
 * typeA (Intel SGX DCAP): the quote's collateral-free checks → collateral → the checks against
 * the collateral → oracle policy → binding. A forged quote fails before collateral is asked for.
 */
import type { Quote } from '../../../attestation/typeA/quote.js';
import {
  TYPEA_COLLATERAL_CHECKS,
  TYPEA_QUOTE_CHECKS,
  verifyQuoteSignatures,
  verifyQuoteWithCollateral,
  type TypeACollateralSource,
} from '../../../attestation/typeA/verify.js';
import { BINDING_CHECK, type CheckDef } from '../../checks.js';
import { checkUserDataBinding, fail, type Policy } from '../../policy.js';
import { checkDebugEnclave, checkTcbStatus, checkUniqueId } from './policy.js';
import { judgeToday } from './today.js';
import type { KindContext, KindDeps } from '../types.js';
import type { TypeAView } from './view.js';

/** Every check of a typeA report after kind detection, in the order they run. */
export const TYPEA_KIND_CHECKS: readonly CheckDef[] = [
  { id: 'typeA.parse', title: 'SGX quote structure (header, version, attestation key type, TEE type)' },
  ...TYPEA_QUOTE_CHECKS,
  { id: 'typeA.collateral', title: 'Collateral (Root CA CRL, TCB info, QE identity, PCK CRL) fetched and verified' },
  ...TYPEA_COLLATERAL_CHECKS,
  { id: 'policy.tcbStatus', title: 'TCB status and advisories accepted by the policy' },
  { id: 'policy.debug', title: 'Enclave not in debug mode' },
  { id: 'policy.uniqueId', title: 'Unique ID (MRENCLAVE) equals the configured target' },
  { id: 'typeA.reportDataZero', title: 'Report data bytes 16..64 are zero' },
  BINDING_CHECK,
];

export async function verifyTypeA(
  quote: Quote,
  view: TypeAView,
  userData: Uint8Array,
  accepted: readonly Uint8Array[],
  policy: Policy,
  deps: KindDeps<TypeACollateralSource>,
  ctx: KindContext,
): Promise<void> {
  const trace = ctx.trace;
  const time = deps.time ?? Date.now();
  const onCheck = trace ? { onCheck: (id: string) => trace.begin(id) } : {};
  const signed = verifyQuoteSignatures(quote, {
    root: deps.root,
    time,
    ...(deps.chainCache ? { chainCache: deps.chainCache } : {}),
    ...(deps.keyCache ? { keyCache: deps.keyCache } : {}),
    ...onCheck,
  });
  trace?.begin('typeA.collateral');
  if (!deps.collateral) fail('TYPEA_COLLATERAL_UNAVAILABLE', 'typeA: no collateral source (PCCS) is configured');
  const collateral = await deps.collateral.forReport(quote, time);
  if (collateral.judgedWith) ctx.judgedWith = collateral.judgedWith;
  const verdict = verifyQuoteWithCollateral(signed, collateral, onCheck);
  view.tcbStatus = verdict.tcbStatusCode;
  view.tcbStatusName = verdict.tcbStatus;
  view.advisoryIds = verdict.advisoryIds;

  if (collateral.newer && collateral.asOf) ctx.judgedToday = judgeToday({ qeReport: quote.qeReport, extension: signed.extension }, collateral.newer, verdict, policy);

  trace?.begin('policy.tcbStatus');
  checkTcbStatus(verdict, policy);
  const body = quote.isvReport;
  trace?.begin('policy.debug');
  checkDebugEnclave(body.debug, policy);
  trace?.begin('policy.uniqueId');
  checkUniqueId(body.mrEnclave, accepted);
  trace?.begin('typeA.reportDataZero');
  for (let i = 16; i < 64; i++) {
    if (body.reportData[i] !== 0) fail('TYPEA_REPORT_DATA_NOT_ZERO', `typeA: report data byte ${i} is not zero (bytes 16..64 must be zero, as the ledger program requires)`);
  }
  trace?.begin(BINDING_CHECK.id);
  checkUserDataBinding(userData, body.reportData.subarray(0, 16), 'typeA report data[0..16]', ctx);
  trace?.pass();
}
