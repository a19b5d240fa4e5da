/**
 * The mapping cross-check (README "Ledger"): once the watcher has scanned to the tip, it reads the
 * current value of the keys stored transitions wrote into the oracle's data mapping
 * (`sgx_attested_data` / `nitro_attested_data` of the program holding it) from the ledger node and
 * judges each against the writes the store holds (src/ledger/records/mappingVerdict.ts): consistent,
 * inconsistent or not checked. A round takes up to `keysPerRound` keys, those written since their
 * last check first, then the longest unchecked, so every key is checked again in turn.
 *
 * Honest in three values: a key whose value the node did not give (down, rate limited past the
 * client's patience, garbage) is not checked, with the node's error, never consistent; and when the
 * node's tip moved past the scanned height during the round, a value that does not match may come
 * from blocks not scanned yet: such keys are not checked (the next round, after those blocks are
 * scanned, decides).
 */
import { isVerifierError, VerifierError } from '../../errors.js';
import type { ErrorCode } from '../../errorCodes.js';
import { fetchMappingValue } from '../node/blocks/fetchBlocks.js';
import { shownValue, type LedgerNodeClient } from '../node/client.js';
import { parseAttestedData } from '../records/mappingWrites.js';
import { judgeMapping, type AttestedValue, type MappingVerdict } from '../records/mappingVerdict.js';
import type { MappingCheck, MappingKeyRef, UpdateStore } from '../store/updateStore.js';

export interface MappingCheckOptions {
  client: LedgerNodeClient;
  store: UpdateStore;
  /** Most keys read per round. */
  keysPerRound: number;
  /** The node's latest height (read again after the round). */
  latestHeight: () => Promise<number>;
  /** Why the key scheme of the program holding a mapping is not established (undefined: it is). */
  uncertain?: (program: string) => string | undefined;
  /** True once the watcher is stopping: the round ends after the key in progress. */
  stopped?: () => boolean;
  /** The clock; default Date.now. */
  now?: () => number;
}

export interface MappingRoundResult {
  checked: number;
  consistent: number;
  inconsistent: number;
  notChecked: number;
  /** Why the round ended early (the node failed), if it did. */
  error?: { code: ErrorCode; message: string };
}

const roleOf = (roles: readonly string[]): MappingCheck['role'] => (roles.includes('latest') ? 'latest' : roles.includes('historic') ? 'historic' : 'unattested');

/** One round of the cross-check at `scannedHeight` (every block up to it scanned and stored). */
export async function checkMappingRound(o: MappingCheckOptions, scannedHeight: number): Promise<MappingRoundResult> {
  const refs = o.store.mappingKeysToCheck(o.keysPerRound);
  const results: { check: MappingCheck; lastSeq: number }[] = [];
  const at = () => new Date(o.now?.() ?? Date.now()).toISOString();
  let error: MappingRoundResult['error'];
  for (const ref of refs) {
    if (o.stopped?.()) break;
    const { writes, lastSeq } = o.store.mappingWritesOf(ref);
    const role = roleOf(writes.map((w) => w.role));
    const base = { ...ref, role, checkedHeight: scannedHeight };
    const uncertain = o.uncertain?.(ref.program);
    // A program whose key scheme is unsettled: only an unattested write can be judged (its key is its own).
    if (uncertain !== undefined && !writes.some((w) => w.role === 'unattested')) {
      results.push({ check: { ...base, status: 'not_checked', reason: uncertain, ...lastWriteOf(writes), checkedAt: at() }, lastSeq });
      continue;
    }
    let value: AttestedValue | null;
    try {
      value = await readValue(o.client, ref);
    } catch (e) {
      if (!isVerifierError(e)) throw e;
      const reason = `the ledger node did not give the value: ${e.code}: ${e.message}`;
      results.push({ check: { ...base, status: 'not_checked', reason, errorCode: e.code, ...lastWriteOf(writes), checkedAt: at() }, lastSeq });
      // A value the node garbled is this key's; a node that is down or limits is every key's: the round ends.
      if (e.code !== 'LEDGER_NODE_BAD_MAPPING_VALUE') {
        error = { code: e.code, message: e.message };
        break;
      }
      continue;
    }
    let verdict: MappingVerdict = judgeMapping(value, writes);
    if (uncertain !== undefined && !(verdict.status === 'inconsistent' && verdict.setBy?.role === 'unattested')) {
      verdict = { ...verdict, status: 'not_checked', reason: uncertain };
    }
    results.push({ check: { ...base, value, ...verdict, checkedAt: at() }, lastSeq });
  }
  // Blocks after the scanned height may have changed what was read: what does not match is decided later.
  if (results.some((r) => r.check.status !== 'consistent')) {
    let tip: number | undefined;
    try {
      tip = await o.latestHeight();
    } catch {
      tip = undefined;
    }
    if (tip === undefined || tip > scannedHeight) {
      const why = tip === undefined ? 'the node did not say its height after the check' : `the ledger advanced from ${scannedHeight} to ${tip} during the check`;
      for (const r of results) {
        if (r.check.status === 'inconsistent') r.check = { ...r.check, status: 'not_checked', reason: `${why}; checked again once those blocks are scanned (${r.check.reason ?? ''})` };
      }
    }
  }
  if (results.length) o.store.saveMappingChecks(results);
  const n = (s: MappingCheck['status']) => results.filter((r) => r.check.status === s).length;
  return { checked: results.length, consistent: n('consistent'), inconsistent: n('inconsistent'), notChecked: n('not_checked'), ...(error ? { error } : {}) };
}

function lastWriteOf(writes: MappingVerdict['lastWrite'][]): { lastWrite?: NonNullable<MappingVerdict['lastWrite']> } {
  const w = writes[writes.length - 1];
  return w ? { lastWrite: w } : {};
}

/** The mapping's value of the key: null when absent; LEDGER_NODE_BAD_MAPPING_VALUE when it is no AttestedData. */
async function readValue(client: LedgerNodeClient, ref: MappingKeyRef): Promise<AttestedValue | null> {
  const text = await fetchMappingValue(client, ref.program, ref.mapping, ref.key);
  if (text === null) return null;
  const v = parseAttestedData(text);
  if (!v) {
    throw new VerifierError<ErrorCode>('LEDGER_NODE_BAD_MAPPING_VALUE', `ledger node: ${ref.program}/${ref.mapping}[${ref.key}] holds ${shownValue(client, text)}, not an AttestedData { data, attestation_timestamp }`);
  }
  return v;
}
