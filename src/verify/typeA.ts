/** typeA (Intel SGX DCAP): cut → parse → collateral → verify (13 steps) → oracle policy. */
import { cutTypeAReport, parseQuote, type Quote } from '../attestation/typeA/quote.js';
import { verifyQuote, type VerifiedCollateral } from '../attestation/typeA/verify.js';
import type { KeyObject } from 'node:crypto';
import type { LRUCache } from 'lru-cache';
import type { Certificate } from '../attestation/x509/certificate.js';
import type { ChainCache } from '../attestation/x509/chainCache.js';
import type { Policy } from './types.js';
import { checkDebugEnclave, checkTcbStatus, checkUniqueId, checkUserDataBinding, fail } from './policy.js';
import { typeAView } from './views.js';

/** Supplies verified collateral (TCB info, QE identity, CRLs) for a quote at a time. */
export interface TypeACollateralSource {
  forQuote(quote: Quote, time: number): Promise<VerifiedCollateral>;
}

export interface TypeADeps {
  root: Certificate;
  /** Validated PCK chains (by fingerprint; validity still checked per call). */
  chainCache?: ChainCache;
  /** Imported attestation keys. */
  keyCache?: LRUCache<string, KeyObject>;
  collateral?: TypeACollateralSource;
  /** Verification time (epoch ms); the clock by default. */
  time?: number;
}

export async function verifyTypeAReportAgainstPolicy(
  report: Uint8Array,
  userData: Uint8Array,
  policy: Policy,
  deps: TypeADeps,
  onView: (view: Record<string, unknown>) => void,
  timings?: { hashSeconds?: number },
): Promise<void> {
  const quote = parseQuote(cutTypeAReport(report));
  const view = typeAView(quote);
  onView(view);
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
  checkUserDataBinding(userData, body.reportData.subarray(0, 16), 'typeA report data[0..16]', timings);
}
