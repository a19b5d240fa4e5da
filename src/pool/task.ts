/** Messages between the main thread and the verification workers (structured-clone safe). */
import type { Policy, ReportType } from '../verify/types.js';
import type { AttestationResponse } from '../verify/attestationResponseSchema.js';
import type { RequestLayout } from '../encoding/eras/index.js';

export interface WorkerSetup {
  /** The oracle policy (verify/policy.ts), structured-cloned into each worker. */
  policy: Policy;
  /** DER of the trust anchors (re-parsed in each worker). */
  roots: Record<ReportType, Uint8Array>;
  /** Fixed verification time (epoch ms) of the kinds verified against the clock. */
  time?: number;
  /** How long a worker reuses the collateral it was given for a subject before asking again (ms; 0: every task asks). */
  collateralReuseMs?: number;
  /** The name of the pool's collateral channels (collateralPort.ts); absent: no collateral source. */
  collateralChannel?: string;
  /** Whether the main thread serves history collateral (CollateralFetcher.rawAsOf); else a report asked as of a past time is the kind's unavailableAsOf, as in process. */
  collateralAsOf?: true;
}

interface TaskBase {
  /** The ticket under which the worker asks the main thread for collateral (collateralPort.ts), for reports whose kind may need it. */
  collateralTicket?: number;
}

/**
 * Recovered bytes (POST /decodeReport, the CLI, the watcher). With `answer` the worker answers
 * the report's POST /decodeReport answer (ReportAnswer: its bytes, transferred, and the outcome's
 * facts) instead of its outcome, so the HTTP thread never receives the outcome's object graph.
 */
export interface BytesTask extends TaskBase {
  op: 'bytes';
  userData: Uint8Array;
  report: Uint8Array;
  nonce?: Uint8Array;
  answer?: true;
}

/** One schema-checked POST /verify entry, checked whole in the worker. */
export interface ResponseTask extends TaskBase {
  op: 'response';
  entry: AttestationResponse;
}

/**
 * Several recovered reports in one task (the CLI's and the watcher's updates of a block range):
 * the worker hashes their userData in one call (hashReportDataMany), then verifies them in order.
 * One collateral port serves all of them. An item with `requestKeys` also gets the keys of its
 * stored requests (VerifyOutcome.requestKeys), hashed in the worker rather than the main thread.
 * An item with `answer` (a coalesced POST /decodeReport, waiting.ts) gets its ReportAnswer instead
 * of its outcome, as alone.
 */
export interface BatchItem {
  userData: Uint8Array;
  report: Uint8Array;
  nonce?: Uint8Array;
  requestKeys?: RequestLayout;
  answer?: true;
  /** Judge it as it stood at this time (epoch ms; VerifyOptions.asOf). */
  asOf?: number;
}

export interface BytesBatchTask extends TaskBase {
  op: 'bytesMany';
  items: BatchItem[];
}

export type VerifyTask = BytesTask | ResponseTask | BytesBatchTask;
