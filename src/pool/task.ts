/** Messages between the main thread and the verification workers (structured-clone safe). */
import type { FailureInfo, Policy, ReportType, VerifyOutcome } from '../verify/types.js';
import type { PackedCollateral } from './collateralPack.js';

export interface WorkerSetup {
  /** The oracle policy (verify/policy.ts), structured-cloned into each worker. */
  policy: Policy;
  /** DER of the trust anchors (re-parsed in each worker). */
  roots: Record<ReportType, Uint8Array>;
  /** Fixed verification time (epoch ms) of the kinds verified against the clock. */
  time?: number;
}

export interface VerifyTask {
  userData: Uint8Array;
  report: Uint8Array;
  nonce?: Uint8Array;
  /** Collateral of the report's kind fetched once by the main thread, shared per version (`version` changes on refresh). */
  collateral?: PackedCollateral;
  /** Why collateral could not be supplied (PCCS down and nothing cached). */
  collateralError?: FailureInfo;
}

export type VerifyTaskResult = VerifyOutcome;
