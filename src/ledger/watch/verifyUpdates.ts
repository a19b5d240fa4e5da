/**
 * From ledger items to stored update records: every update transition (of a followed program, or
 * unrecognized) is verified through the verification service (the one POST /decodeReport uses:
 * same core, same policy) and becomes a LedgerRecord (src/ledger/store/updateStore.ts), and so
 * does every unattested write; owner transitions are not updates and are left out. Shared by the
 * watcher, GET /ledger/transactions/{id} and `reverify --store`.
 */
import { outcomeOf, updateRecord, type OutputRecord } from '../records/updateRecord.js';
import { writesOfUpdate, type LedgerItem, type UpdateItem } from '../records/transitions.js';
import { writesOfKeys } from '../records/mappingWrites.js';
import type { LedgerRecord, StoredUpdate } from '../store/updateStore.js';
import type { ReportTexts, VerifyOutcome } from '../../verify/types.js';

/**
 * The stored form of an update's output record, or undefined for what is no update of the ledger
 * (owner records, JSONL lines without transaction and transition ids).
 */
export function storedUpdate(r: OutputRecord, verifiedAt: string): StoredUpdate | undefined {
  if (r.kind === 'measurement') return undefined;
  if (r.transactionId === undefined || r.transitionId === undefined || r.blockHeight === undefined || r.program === undefined || r.function === undefined) return undefined;
  const outcome = outcomeOf(r);
  const record: LedgerRecord = {
    transactionId: r.transactionId,
    transitionId: r.transitionId,
    blockHeight: r.blockHeight,
    ...(r.blockTimestamp !== undefined ? { blockTimestamp: r.blockTimestamp } : {}),
    program: r.program,
    function: r.function,
    reportType: r.kind,
    reportValid: r.reportValid === true,
    outcome,
    ...(r.unrecognized ? { unrecognized: true as const } : {}),
    ...(r.written !== undefined ? { written: r.written } : {}),
    ...(r.errorCode !== undefined ? { errorCode: r.errorCode } : {}),
    ...(r.errorString !== undefined ? { errorString: r.errorString } : {}),
    ...(r.decodedData !== undefined ? { decodedData: r.decodedData } : {}),
    ...(r.decodedRequests !== undefined ? { decodedRequests: r.decodedRequests } : {}),
    ...(r.tcbStatus !== undefined ? { tcbStatus: r.tcbStatus } : {}),
    measurements: (r.measurements ?? {}) as Record<string, unknown>,
    ...(r.checks !== undefined ? { checks: r.checks } : {}),
    ...(r.mappingWrites !== undefined ? { mappingWrites: r.mappingWrites } : {}),
    ...(r.judgedAsOf !== undefined ? { judgedAsOf: r.judgedAsOf } : {}),
    ...(r.evidence !== undefined ? { evidence: r.evidence } : {}),
    ...(r.inclusion !== undefined ? { inclusion: r.inclusion } : {}),
    verifiedAt,
  };
  return { record, outcome };
}

/** decodeReport of one update; `asOf`: judged as it stood then (its block's time, epoch ms). */
export type Verify = (userData: string, report: string, asOf?: number) => Promise<VerifyOutcome>;

/** Verifies several updates at once (VerifierService.decodeReports), outcomes in order. */
export type VerifyMany = (pairs: readonly ReportTexts[]) => Promise<VerifyOutcome[]>;

/** Updates per verifyMany call: one pool task, whose userData are hashed in one call. */
export const UPDATE_BATCH = 8;

/** `list` cut into runs of at most `size`. */
export function chunked<T>(list: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < list.length; i += size) out.push(list.slice(i, i + size));
  return out;
}

/** The record of each update item, verified with `verifyMany` in runs of `size` updates (one call each, all at once). */
export async function updateRecordsInRuns(items: readonly LedgerItem[], size: number, verifyMany: VerifyMany): Promise<Map<LedgerItem, OutputRecord>> {
  const updates = items.flatMap((it) => (it.type === 'update' ? [it] : []));
  const outcomes = (await Promise.all(chunked(updates, size).map((run) => verifyMany(run.map(updatePair))))).flat();
  return new Map(updates.map((u, i) => [u, updateRecordOf(u, outcomes[i]!)]));
}

/** What verifyMany is given for update `u`: its texts, and the layout of its stored requests (their keys come back with the verdict). */
export function updatePair(u: UpdateItem): ReportTexts {
  return { userData: u.userData, report: u.report, ...(u.writeSpec ? { requestKeys: u.writeSpec.requests } : {}), ...(u.asOf !== undefined ? { asOf: u.asOf } : {}) };
}

/**
 * The record of update `u` verified as `out`, with its mapping writes: from the keys the
 * verification computed beside the verdict (a pool worker), else computed here.
 */
export function updateRecordOf(u: UpdateItem, out: VerifyOutcome): OutputRecord {
  const writes = u.writeSpec && out.requestKeys ? writesOfKeys(u.writeSpec, out.requestKeys) : writesOfUpdate(u);
  return updateRecord(u.base, out, writes);
}

/**
 * The output records of the items' updates, in item order: verified with `verifyMany` in runs of
 * UPDATE_BATCH updates when it is given, else one by one with `verify`.
 */
export async function verifyUpdates(items: readonly LedgerItem[], verify: Verify, verifyMany?: VerifyMany): Promise<OutputRecord[]> {
  if (verifyMany) {
    const byItem = await updateRecordsInRuns(items, UPDATE_BATCH, verifyMany);
    return items.flatMap((it) => (it.type === 'update' ? [byItem.get(it)!] : it.type === 'update-malformed' || it.type === 'unattested' ? [it.record] : []));
  }
  const out = await Promise.all(
    items.map((it) =>
      it.type === 'update'
        ? verify(it.userData, it.report, it.asOf).then((o) => updateRecordOf(it, o))
        : it.type === 'update-malformed' || it.type === 'unattested'
          ? it.record
          : undefined,
    ),
  );
  return out.filter((r): r is OutputRecord => r !== undefined);
}

/** Stored updates of the records, all stamped with the same verification time. */
export function storedUpdates(records: readonly OutputRecord[], verifiedAt = new Date().toISOString()): StoredUpdate[] {
  return records.map((r) => storedUpdate(r, verifiedAt)).filter((u): u is StoredUpdate => u !== undefined);
}
