/**
 * The completeness check's verdicts (docs/completeness.md), pure: every key the oracle data
 * mappings hold on chain against the writes the store holds. The mapping cross-check
 * (mappingVerdict.ts) asks of each stored key what the chain holds; this asks the other way: of
 * each key on chain, which stored write put its value there.
 *
 * - A listed key is explained when the stored write the chain holds last for that key (heldWrite:
 *   the last in block order that took effect) wrote the value it holds (any outcome: the scan saw
 *   the write; whether its report is valid is the update's own verdict), by an update or by a
 *   flagged unattested write. An earlier write of the same value explains nothing: a node listing
 *   the value a key held before an overwrite the scan stored is reported. For a program whose key
 *   scheme is not established (AttestedDataLayout.uncertain), a key no stored write made is
 *   explained by a write of the same value to the same mapping that its own key still holds.
 * - Otherwise it is unexplained, with its value: some write the scan did not see put it there.
 * - A stored key whose writes the chain should hold but which the listing lacks is missing (a
 *   deleted write, or a write the chain never made).
 *
 * The whole answer is three-valued: complete (every listed key explained, nothing missing),
 * incomplete (the keys, their block windows, what the rescan of each window found), not_checked
 * (why: no listing allowed, node down, no mapping of the followed programs exists on the node…),
 * never complete without a listing of at least one existing mapping.
 */
import type { ErrorCode } from '../../errorCodes.js';
import type { AttestedValue, MappingWriteRef } from './mappingVerdict.js';
import { canonicalU128Literal, parseAttestedData, type MappingWriteRole } from './mappingWrites.js';

export type CompletenessStatus = 'complete' | 'incomplete' | 'not_checked';
export const COMPLETENESS_STATUSES: readonly CompletenessStatus[] = ['complete', 'incomplete', 'not_checked'];

/** A write a rescan of a key's window found: the transition that wrote the key. */
export interface FoundWrite {
  transactionId?: string;
  transitionId?: string;
  blockHeight?: number;
  program?: string;
  function?: string;
  role: MappingWriteRole;
  /** The write's block is after the store's scanned height: the scan had not reached it yet. */
  afterScan?: true;
}

/** The block window an attestation timestamp places a key's write in, and what its rescan found. */
export interface KeyWindow {
  /** First and last height scanned again (inclusive). */
  fromHeight: number;
  toHeight: number;
  /** The timestamps (seconds) the window was placed by. */
  fromTimestamp: number;
  toTimestamp: number;
}

export interface Rescan {
  status: 'found' | 'not_found' | 'failed' | 'not_scanned';
  found?: FoundWrite[];
  /** Why it failed or was not scanned. */
  reason?: string;
  errorCode?: ErrorCode;
}

export interface UnexplainedKey {
  program: string;
  mapping: string;
  key: string;
  /** The value as the node listed it (Leo text, whitespace collapsed). */
  value: string;
  data?: string;
  attestationTimestamp?: string;
  reason: string;
  window?: KeyWindow;
  rescan?: Rescan;
}

export interface MissingKey {
  program: string;
  mapping: string;
  key: string;
  /** The stored write the chain should hold. */
  lastWrite: MappingWriteRef;
}

export interface ListedMapping {
  program: string;
  mapping: string;
  keys: number;
  /** The node's height when it listed the mapping (metadata=true). */
  height?: number;
  /** The node says the mapping is not initialized (its program is not deployed on this network). */
  uninitialized?: true;
}

export interface CompletenessResult {
  status: CompletenessStatus;
  /** not_checked: why; incomplete: a summary. */
  reason?: string;
  errorCode?: ErrorCode;
  checkedAt: string;
  /** Every block up to this height was scanned into the store the keys were checked against. */
  scannedHeight: number | null;
  /** Where the mappings were listed: `snarkos` (the node's JWT route). */
  source?: 'snarkos';
  mappings: ListedMapping[];
  /** Listed keys, and how many of them are explained. */
  keys: number;
  explained: number;
  /** Of the explained keys: by an unattested write (an owner or council overwrite). */
  explainedByUnattested: number;
  /** Of the explained keys: matched by value only (the program's key scheme is not established). */
  explainedByValue: number;
  /** Unexplained keys whose write the rescan found after the scanned height (the scan had not reached it). */
  afterScan: number;
  /** Keys on chain no stored write explains (those found after the scanned height not counted). */
  unexplainedCount: number;
  /** Stored keys the chain lacks. */
  missingCount: number;
  /** The unexplained keys (at most the check's maxListed), in listing order. */
  unexplained: UnexplainedKey[];
  /** The missing keys (at most maxListed). */
  missing: MissingKey[];
}

/** The listing's value text on one line (`{ data: 1u128, attestation_timestamp: 2u128 }`). */
export const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim();

/** How a listed key is explained (undefined: it is not). */
export interface Explanation {
  by: MappingWriteRef;
  byValue?: true;
}

const same = (w: { data?: string; attestationTimestamp?: string }, v: AttestedValue): boolean => w.data === v.data && w.attestationTimestamp === v.attestationTimestamp;

/**
 * The write whose value the chain holds for a key after `writes` (every stored write of it, in
 * block order): the last one that took effect. A `latest` write (request hash) takes effect only
 * when its attestation timestamp is greater than the one the key holds (the first of equal ones
 * stays); a `historic` or `unattested` write always does. Undefined: no write.
 */
export function heldWrite<W extends MappingWriteRef>(writes: readonly W[]): W | undefined {
  let held: W | undefined;
  for (const w of writes) {
    const kept = w.role === 'latest' && held?.attestationTimestamp !== undefined && w.attestationTimestamp !== undefined && BigInt(w.attestationTimestamp) <= BigInt(held.attestationTimestamp);
    if (!kept) held = w;
  }
  return held;
}

/**
 * How `value`, listed under a key, is explained: by the write the chain holds last for that key
 * (heldWrite of `writesOfKey`) when it wrote this value; a key with stored writes is explained by
 * nothing else (an older write of the same value is a stale listing). A key no stored write made,
 * of a program whose key scheme is uncertain, is explained by one of `heldWritesOfValue` (writes of
 * this value to the mapping, each the one its own key holds).
 */
export function explainKey(value: AttestedValue, writesOfKey: readonly MappingWriteRef[], heldWritesOfValue?: () => readonly MappingWriteRef[]): Explanation | undefined {
  const held = heldWrite(writesOfKey);
  if (held) return same(held, value) ? { by: held } : undefined;
  const byValue = heldWritesOfValue?.().find((w) => same(w, value));
  return byValue ? { by: byValue, byValue: true } : undefined;
}

/** A listed key and value read: the canonical key and the AttestedData, or why it cannot be judged. */
export function readListed(key: string, value: string): { key: string; value: AttestedValue } | { key: string; problem: string } {
  const k = canonicalU128Literal(key);
  if (k === undefined) return { key, problem: `the key ${JSON.stringify(key.slice(0, 100))} is no u128 literal: no oracle write makes such a key` };
  const v = parseAttestedData(value);
  if (!v) return { key: k, problem: `the value is no AttestedData { data, attestation_timestamp }: no oracle write stores such a value` };
  return { key: k, value: v };
}

/**
 * A stored key the listing lacks is missing when a write the chain must keep stored it: an accepted
 * update's write (any outcome: the chain wrote it) or an unattested write, in a block the listing's
 * height covers.
 */
export function isMissing(writes: readonly MappingWriteRef[], listingHeight: number | undefined): MappingWriteRef | undefined {
  const last = writes[writes.length - 1];
  if (!last) return undefined;
  if (listingHeight !== undefined && last.blockHeight > listingHeight) return undefined;
  return last;
}

/** The overall status from the parts (never complete unless a mapping that exists was listed). */
export function completenessStatus(r: Pick<CompletenessResult, 'unexplained' | 'missing' | 'mappings'>): { status: CompletenessStatus; reason?: string; errorCode?: ErrorCode } {
  const open = r.unexplained.filter((k) => !(k.rescan?.found?.length && k.rescan.found.every((f) => f.afterScan)));
  if (open.length || r.missing.length) {
    const parts = [
      ...(open.length ? [`${open.length} key${open.length === 1 ? '' : 's'} on chain that no stored write explains`] : []),
      ...(r.missing.length ? [`${r.missing.length} stored key${r.missing.length === 1 ? '' : 's'} missing on chain`] : []),
    ];
    return { status: 'incomplete', reason: parts.join('; ') };
  }
  if (r.mappings.length === 0) return { status: 'not_checked', reason: 'no oracle data mapping of the followed programs was listed' };
  // Every mapping "does not exist" / "is not initialized" on the node: nothing was listed, nothing is proven.
  if (r.mappings.every((m) => m.uninitialized)) {
    return {
      status: 'not_checked',
      reason: `none of the ${r.mappings.length} oracle data mappings of the followed programs exists on the node (each listing answered that the program does not exist or the mapping is not initialized): nothing was listed, so nothing is proven`,
      errorCode: 'LEDGER_NODE_NO_ORACLE_MAPPING',
    };
  }
  return { status: 'complete' };
}
