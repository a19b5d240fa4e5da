/** Messages between the main thread and the verification workers (structured-clone safe). */
import type { TcbStatus } from '../attestation/typeA/tcbStatus.js';
import type { FailureInfo, VerifyOutcome } from '../verify/types.js';
import type { PackedCollateral } from './collateralPack.js';

export interface WorkerSetup {
  policy: {
    uniqueIdTarget: Uint8Array;
    pcrValuesTarget: Uint8Array[];
    acceptedTcbStatuses: TcbStatus[];
    acceptedAdvisories?: readonly string[];
    allowDebugEnclaves: boolean;
  };
  /** DER of the trust anchors (re-parsed in each worker). */
  roots: { typeA: Uint8Array; typeB: Uint8Array };
  /** Fixed typeA verification time (epoch ms). */
  typeATime?: number;
}

export interface VerifyTask {
  userData: Uint8Array;
  report: Uint8Array;
  nonce?: Uint8Array;
  /** typeA collateral fetched once by the main thread, shared per version (`version` changes on refresh). */
  collateral?: PackedCollateral;
  /** Why collateral could not be supplied (PCCS down and nothing cached). */
  collateralError?: FailureInfo;
}

export type VerifyTaskResult = VerifyOutcome;
