/**
 * The verdict of the mapping cross-check on one key (README "Ledger"): the value the oracle's data
 * mapping holds now, against every write of that key the store holds (in ledger order).
 *
 * - expected: the valid attested update that must be there: for a request-hash key (`latest`: the
 *   chain replaces the value only by a newer attestation) the valid one with the greatest
 *   attestation timestamp (the first of equal ones); for a timestamped-hash key (`historic`:
 *   written always) the last valid one. Invalid, unverifiable and unattested writes define no
 *   expectation.
 * - consistent: the value is the expected one.
 * - inconsistent: the value is absent although a valid update stored the key; or it is the value
 *   of an unattested write, of an update whose report is invalid, of a valid update the chain must
 *   have replaced; or it is no value any write stored, and not newer than the expected one.
 * - not_checked: it cannot be decided: the value is an unverifiable update's (verified again
 *   later), it was written before the scanned range (newer than every update seen, or no valid
 *   update of the key is in the range), the program's key scheme is not established, or the ledger
 *   node could not be read (the checker says so).
 */
import type { MappingWriteRole } from './mappingWrites.js';
import type { RecordOutcome } from './updateRecord.js';

export type MappingStatus = 'consistent' | 'inconsistent' | 'not_checked';
export const MAPPING_STATUSES: readonly MappingStatus[] = ['consistent', 'inconsistent', 'not_checked'];

export interface AttestedValue {
  data: string;
  attestationTimestamp: string;
}

/** One stored write of a key, with the transition that made it. */
export interface MappingWriteRef {
  transactionId: string;
  transitionId: string;
  blockHeight: number;
  /** The program and function of the transition (an interface's update writes its data program's mapping). */
  program: string;
  function: string;
  outcome: RecordOutcome;
  role: MappingWriteRole;
  data?: string;
  attestationTimestamp?: string;
}

export interface MappingVerdict {
  status: MappingStatus;
  /** Why, in words (every verdict but a plain consistent one). */
  reason?: string;
  /** The valid attested update whose value the key must hold. */
  expected?: MappingWriteRef;
  /** The last write whose value the key holds. */
  setBy?: MappingWriteRef;
  /** The last write of the key. */
  lastWrite?: MappingWriteRef;
  /** An unattested write of the key that likely changed it (when the value is no write's). */
  likelyOverwrite?: MappingWriteRef;
}

const attested = (w: MappingWriteRef): boolean => w.role === 'latest' || w.role === 'historic';
const what = (w: MappingWriteRef): string => `${w.program}/${w.function} in transaction ${w.transactionId} (block ${w.blockHeight})`;
const show = (v: { data?: string; attestationTimestamp?: string }): string => `{ data: ${v.data}, attestation_timestamp: ${v.attestationTimestamp} }`;

/** The valid attested update the key must hold (see the module comment). */
export function expectedWrite(writes: readonly MappingWriteRef[]): MappingWriteRef | undefined {
  const valid = writes.filter((w) => attested(w) && w.outcome === 'valid' && w.data !== undefined && w.attestationTimestamp !== undefined);
  const latest = valid.filter((w) => w.role === 'latest');
  if (latest.length === 0) return valid[valid.length - 1];
  let best = latest[0]!;
  for (const w of latest) if (BigInt(w.attestationTimestamp!) > BigInt(best.attestationTimestamp!)) best = w;
  return best;
}

/** `value`: what the mapping holds (null: the key is absent); `writes`: every stored write of the key, in ledger order. */
export function judgeMapping(value: AttestedValue | null, writes: readonly MappingWriteRef[]): MappingVerdict {
  const lastWrite = writes[writes.length - 1];
  const expected = expectedWrite(writes);
  const base = { ...(expected ? { expected } : {}), ...(lastWrite ? { lastWrite } : {}) };
  if (value === null) {
    if (expected) return { status: 'inconsistent', reason: `the key is absent from the mapping, but ${what(expected)} stored ${show(expected)} there`, ...base };
    return { status: 'not_checked', reason: 'the key is absent from the mapping, and no valid attested update of it was seen', ...base };
  }
  const same = (w: MappingWriteRef): boolean => w.data === value.data && w.attestationTimestamp === value.attestationTimestamp;
  if (expected && same(expected)) return { status: 'consistent', ...base };
  const setBy = [...writes].reverse().find(same);
  const unattested = [...writes].reverse().find((w) => w.role === 'unattested' && w !== setBy);
  const withSetBy = { ...base, ...(setBy ? { setBy } : {}) };
  const instead = expected ? `; expected ${show(expected)} of ${what(expected)}` : '';
  if (setBy) {
    if (setBy.role === 'unattested') return { status: 'inconsistent', reason: `the mapping holds the value of an unattested write, ${what(setBy)}${instead}`, ...withSetBy };
    if (setBy.outcome === 'invalid') return { status: 'inconsistent', reason: `the mapping holds the data of an update whose report is invalid, ${what(setBy)}${instead}`, ...withSetBy };
    if (setBy.outcome === 'unverifiable') {
      return { status: 'not_checked', reason: `the mapping holds the data of ${what(setBy)}, whose report could not be verified yet (it is verified again)`, ...withSetBy };
    }
    if (setBy.outcome === 'valid') {
      return { status: 'inconsistent', reason: `the mapping holds the data of ${what(setBy)}, which a newer valid update must have replaced${instead}`, ...withSetBy };
    }
  }
  const overwrite = unattested ? { likelyOverwrite: unattested } : {};
  if (!expected) return { status: 'not_checked', reason: `the mapping holds ${show(value)}, which no write seen stored, and no valid attested update of the key was seen (it may predate the scanned range)`, ...base, ...overwrite };
  const latestKey = writes.some((w) => w.role === 'latest');
  if (latestKey && BigInt(value.attestationTimestamp) > BigInt(expected.attestationTimestamp!)) {
    return {
      status: 'not_checked',
      reason: `the mapping holds ${show(value)}, newer than every update seen: written before the scanned range or by a write the store does not hold`,
      ...base,
      ...overwrite,
    };
  }
  return {
    status: 'inconsistent',
    reason: `the mapping holds ${show(value)}, which no write seen stored${instead}${unattested ? `; likely changed by the unattested write ${what(unattested)}` : ''}`,
    ...base,
    ...overwrite,
  };
}
