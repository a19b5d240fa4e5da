/** typeA (Intel SGX DCAP): collateral → verify the quote (13 steps) → oracle policy → binding. */
import type { Quote } from '../../../attestation/typeA/quote.js';
import { verifyQuote, type VerifiedCollateral } from '../../../attestation/typeA/verify.js';
import type { Policy } from '../../policy.js';
import { checkDebugEnclave, checkTcbStatus, checkUniqueId, checkUserDataBinding, fail } from '../../policy.js';
import type { KindContext, KindDeps } from '../types.js';
import type { TypeAView } from './view.js';

/** Supplies verified collateral (TCB info, QE identity, CRLs) for a quote at a time. */
export interface TypeACollateralSource {
  forQuote(quote: Quote, time: number): Promise<VerifiedCollateral>;
}

export async function verifyTypeA(quote: Quote, view: TypeAView, userData: Uint8Array, policy: Policy, deps: KindDeps, ctx: KindContext): Promise<void> {
  const time = deps.time ?? Date.now();
  if (!deps.collateral) fail('TYPEA_COLLATERAL_UNAVAILABLE', 'typeA: no collateral source (PCCS) is configured');
  const collateral = await deps.collateral.forQuote(quote, time);
  const verdict = verifyQuote(quote, collateral, {
    root: deps.root,
    time,
    ...(deps.chainCache ? { chainCache: deps.chainCache } : {}),
    ...(deps.keyCache ? { keyCache: deps.keyCache } : {}),
  });
  view.tcbStatus = verdict.tcbStatusCode;
  view.tcbStatusName = verdict.tcbStatus;
  view.advisoryIds = verdict.advisoryIds;

  checkTcbStatus(verdict, policy);
  const body = quote.isvReport;
  checkDebugEnclave(body.debug, policy);
  checkUniqueId(body.mrEnclave, policy.uniqueIdTarget);
  for (let i = 16; i < 64; i++) {
    if (body.reportData[i] !== 0) fail('TYPEA_REPORT_DATA_NOT_ZERO', `typeA: report data byte ${i} is not zero (bytes 16..64 must be zero, as the ledger program requires)`);
  }
  checkUserDataBinding(userData, body.reportData.subarray(0, 16), 'typeA report data[0..16]', ctx.timings);
}
