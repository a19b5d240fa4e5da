/**
 * The completeness check (docs/completeness.md): after a scan, list the oracle data mappings of
 * the followed programs (`sgx_attested_data`, `nitro_attested_data` of each program that holds
 * them, per the program registry) from the ledger node (its JWT route, src/ledger/node/
 * mappingListing.ts) and check every key against the writes the store holds
 * (src/ledger/records/completeness.ts). A key no stored write explains is placed in a block window
 * by its value's `attestation_timestamp` (binary search over block headers), and that window alone
 * is scanned again through the scan's own block source to find the write that made it.
 *
 * Three-valued, never complete without an answer: complete (N keys, all explained, none
 * missing), incomplete (the keys, their windows, what each rescan found), not_checked (why: no JWT
 * configured, the node refused or does not serve the listing, the node is down).
 */
import { isVerifierError } from '../../errors.js';
import type { ErrorCode } from '../../errorCodes.js';
import type { BlockScanner } from '../node/blocks/fetchBlocks.js';
import type { LedgerNodeClient } from '../node/client.js';
import { firstHeightAtOrAfter, listMapping, type MappingListing } from '../node/mappingListing.js';
import type { ProgramRegistry } from '../programs.js';
import { itemsOfTransaction, writesOfUpdate } from '../records/transitions.js';
import type { MappingWrite } from '../records/mappingWrites.js';
import {
  completenessStatus,
  explainKey,
  heldWrite,
  isMissing,
  oneLine,
  readListed,
  type CompletenessResult,
  type FoundWrite,
  type ListedMapping,
  type MissingKey,
  type Rescan,
  type UnexplainedKey,
} from '../records/completeness.js';
import type { UpdateStore } from '../store/updateStore.js';

export interface CompletenessOptions {
  /** A client of the node that sends its JWT with every request (undefined: no JWT configured). */
  listing?: LedgerNodeClient;
  /** The scan's block source: block headers (windows) and the rescan of each window. */
  scanner: BlockScanner;
  store: UpdateStore;
  /** The programs the scan followed: their data mappings are listed. */
  programs: readonly string[];
  registry: ProgramRegistry;
  /** A window reaches this many seconds after the attestation timestamp (default 3600). */
  windowSeconds?: number;
  /** …and starts this many seconds before it (clock skew; default 300). */
  slackSeconds?: number;
  /** Most unexplained keys placed and rescanned per check (default 20). */
  maxRescans?: number;
  /** Blocks per rescan request (≤ 50; default 50). */
  batchBlocks?: number;
  /** Most unexplained and missing keys kept in the result (the counts are always whole; default 1000). */
  maxListed?: number;
  now?: () => number;
}

/** intervalMs: the watcher checks again this long after its last check (watch.completenessIntervalMs). */
export const COMPLETENESS_DEFAULTS = { windowSeconds: 3600, slackSeconds: 300, maxRescans: 20, batchBlocks: 50, maxListed: 1000, intervalMs: 600_000 } as const;

/** One mapping to list: the program holding it, its name, and why its key scheme is unsettled. */
export interface DataMapping {
  program: string;
  mapping: string;
  uncertain?: string;
}

/** The oracle data mappings the followed programs' updates store into (each once). */
export function dataMappings(programs: readonly string[], registry: ProgramRegistry): DataMapping[] {
  const out = new Map<string, DataMapping>();
  for (const id of programs) {
    const layout = registry.program(id)?.attestedData;
    if (!layout) continue;
    for (const mapping of Object.values(layout.mappings)) {
      if (mapping === undefined) continue;
      const k = `${layout.program}/${mapping}`;
      const prev = out.get(k);
      const uncertain = prev?.uncertain ?? layout.uncertain;
      out.set(k, { program: layout.program, mapping, ...(uncertain !== undefined ? { uncertain } : {}) });
    }
  }
  return [...out.values()];
}

/** The writes of one block range, by block (each write with the transition that made it). */
type BlockWrites = Map<number, { write: MappingWrite; by: Omit<FoundWrite, 'role' | 'afterScan'> }[]>;

export async function checkCompleteness(o: CompletenessOptions): Promise<CompletenessResult> {
  const now = o.now ?? Date.now;
  const scannedHeight = o.store.state().scannedHeight;
  const base = { checkedAt: new Date(now()).toISOString(), scannedHeight };
  const empty = { mappings: [], keys: 0, explained: 0, explainedByUnattested: 0, explainedByValue: 0, afterScan: 0, unexplained: [], missing: [], unexplainedCount: 0, missingCount: 0 };
  const notChecked = (reason: string, errorCode?: ErrorCode): CompletenessResult => ({ status: 'not_checked', reason, ...(errorCode ? { errorCode } : {}), ...base, ...empty });
  if (!o.listing) {
    return notChecked('no listing allowed: the mapping listing sits behind the node\'s JWT middleware and LEDGER_NODE_JWT is not set', 'LEDGER_LISTING_NOT_CONFIGURED');
  }
  const targets = dataMappings(o.programs, o.registry);
  if (targets.length === 0) return notChecked('none of the followed programs stores oracle data in a mapping the registry knows');

  // 1. The listings.
  const listed: { target: DataMapping; listing: MappingListing }[] = [];
  for (const target of targets) {
    try {
      listed.push({ target, listing: await listMapping(o.listing, target.program, target.mapping) });
    } catch (e) {
      if (!isVerifierError(e)) throw e;
      return notChecked(`${target.program}/${target.mapping} could not be listed: ${e.message}`, e.code);
    }
  }

  // 2. Every listed key against the stored writes; every stored key against the listing.
  const mappings: ListedMapping[] = [];
  const unexplained: UnexplainedKey[] = [];
  const missing: MissingKey[] = [];
  let keys = 0;
  let explained = 0;
  let byUnattested = 0;
  let byValue = 0;
  for (const { target, listing } of listed) {
    const { program, mapping, uncertain } = target;
    mappings.push({
      program,
      mapping,
      keys: listing.entries.length,
      ...(listing.height !== undefined ? { height: listing.height } : {}),
      ...(listing.uninitialized ? { uninitialized: true as const } : {}),
    });
    const seen = new Set<string>();
    for (const entry of listing.entries) {
      keys++;
      const r = readListed(entry.key, entry.value);
      seen.add(r.key);
      const value = oneLine(entry.value);
      if ('problem' in r) {
        unexplained.push({ program, mapping, key: r.key, value, reason: r.problem });
        continue;
      }
      const { writes } = o.store.mappingWritesOf({ program, mapping, key: r.key });
      // Unsettled key scheme: a write of this value explains the key only while its own key still holds it.
      const heldOfValue = () =>
        o.store.mappingWritesOfValue(program, mapping, r.value).filter((w) => {
          const held = heldWrite(o.store.mappingWritesOf({ program, mapping, key: w.key }).writes);
          return held?.transitionId === w.transitionId && held.role === w.role;
        });
      const why = explainKey(r.value, writes, uncertain !== undefined ? heldOfValue : undefined);
      if (why) {
        explained++;
        if (why.by.role === 'unattested') byUnattested++;
        if (why.byValue) byValue++;
        continue;
      }
      unexplained.push({
        program,
        mapping,
        key: r.key,
        value,
        data: r.value.data,
        attestationTimestamp: r.value.attestationTimestamp,
        reason: !writes.length
          ? 'no stored write made this key: a write the scan did not see'
          : writes.some((w) => w.data === r.value.data && w.attestationTimestamp === r.value.attestationTimestamp)
            ? `the chain holds the value of an earlier write of this key, not of the last of its ${writes.length} stored writes: a later write the scan stored is not there (a stale listing, or a write the scan did not see that restored it)`
            : `the chain holds a value none of the ${writes.length} stored write${writes.length === 1 ? '' : 's'} of this key wrote: a write the scan did not see`,
      });
    }
    // A key computed by an unsettled scheme may not be the key the chain uses: not judged missing.
    if (uncertain !== undefined) continue;
    for (const key of o.store.mappingKeysOf(program, mapping)) {
      if (seen.has(key)) continue;
      const last = isMissing(o.store.mappingWritesOf({ program, mapping, key }).writes, listing.height);
      if (last) missing.push({ program, mapping, key, lastWrite: last });
    }
  }

  // 3. Windows and rescans of the first unexplained keys that carry a timestamp.
  const top = Math.max(...listed.map((l) => l.listing.height ?? -1));
  await placeAndRescan(o, unexplained, top >= 0 ? top : undefined, scannedHeight);

  const afterScan = unexplained.filter((k) => k.rescan?.found?.length && k.rescan.found.every((f) => f.afterScan)).length;
  const { status, reason, errorCode } = completenessStatus({ unexplained, missing, mappings });
  const maxListed = o.maxListed ?? COMPLETENESS_DEFAULTS.maxListed;
  return {
    status,
    ...(reason !== undefined ? { reason } : {}),
    ...(errorCode !== undefined ? { errorCode } : {}),
    ...base,
    source: 'snarkos',
    mappings,
    keys,
    explained,
    explainedByUnattested: byUnattested,
    explainedByValue: byValue,
    afterScan,
    unexplainedCount: unexplained.length - afterScan,
    missingCount: missing.length,
    unexplained: unexplained.slice(0, maxListed),
    missing: missing.slice(0, maxListed),
  };
}

async function placeAndRescan(o: CompletenessOptions, keys: UnexplainedKey[], listingHeight: number | undefined, scannedHeight: number | null): Promise<void> {
  const maxRescans = o.maxRescans ?? COMPLETENESS_DEFAULTS.maxRescans;
  const windowSeconds = o.windowSeconds ?? COMPLETENESS_DEFAULTS.windowSeconds;
  const slack = o.slackSeconds ?? COMPLETENESS_DEFAULTS.slackSeconds;
  const batch = Math.min(50, Math.max(1, o.batchBlocks ?? COMPLETENESS_DEFAULTS.batchBlocks));
  const client = o.scanner.client;
  const timestamps = new Map<number, number>();
  const scanned: BlockWrites = new Map();
  const followedAll = o.registry.ids;
  let failure: Rescan | undefined;
  let placed = 0;
  for (const k of keys) {
    if (k.attestationTimestamp === undefined) continue;
    if (failure) {
      k.rescan = { status: 'not_scanned', reason: `an earlier rescan failed: ${failure.reason}`, ...(failure.errorCode ? { errorCode: failure.errorCode } : {}) };
      continue;
    }
    if (placed >= maxRescans) {
      k.rescan = { status: 'not_scanned', reason: `only the first ${maxRescans} unexplained keys are placed and scanned again per check` };
      continue;
    }
    placed++;
    try {
      const top = listingHeight ?? (await o.scanner.latestHeight());
      const t = Number(k.attestationTimestamp);
      const fromTimestamp = t - slack;
      const toTimestamp = t + windowSeconds;
      const fromHeight = await firstHeightAtOrAfter(client, fromTimestamp, 0, top, timestamps);
      if (fromHeight > top) {
        k.rescan = { status: 'not_scanned', reason: `its attestation time ${t} is after the last listed block (${top})` };
        continue;
      }
      const toHeight = Math.min(top, await firstHeightAtOrAfter(client, toTimestamp, fromHeight, top, timestamps));
      k.window = { fromHeight, toHeight, fromTimestamp, toTimestamp };
      const found: FoundWrite[] = [];
      for (let s = fromHeight; s <= toHeight; s += batch) {
        const e = Math.min(toHeight + 1, s + batch);
        await rescanRange(o, s, e, scanned, followedAll);
        for (let h = s; h < e; h++) {
          for (const { write, by } of scanned.get(h) ?? []) {
            const sameValue = write.data === undefined || (write.data === k.data && write.attestationTimestamp === k.attestationTimestamp);
            if (write.program !== k.program || write.mapping !== k.mapping || write.key !== k.key || !sameValue) continue;
            found.push({ ...by, role: write.role, ...(scannedHeight !== null && by.blockHeight !== undefined && by.blockHeight > scannedHeight ? { afterScan: true as const } : {}) });
          }
        }
      }
      k.rescan = found.length ? { status: 'found', found } : { status: 'not_found', reason: `no transition in blocks ${fromHeight}..${toHeight} writes this key with this value` };
    } catch (e) {
      if (!isVerifierError(e)) throw e;
      failure = { status: 'failed', reason: `${e.code}: ${e.message}`, errorCode: e.code };
      k.rescan = failure;
    }
  }
}

/** Reads blocks [s, e) through the scan's block source, keeping each block's mapping writes (once per height). */
async function rescanRange(o: CompletenessOptions, s: number, e: number, scanned: BlockWrites, programs: readonly string[]): Promise<void> {
  let from = s;
  while (from < e && scanned.has(from)) from++;
  let to = e;
  while (to > from && scanned.has(to - 1)) to--;
  if (from >= to) return;
  const blocks = await o.scanner.fetchRange(from, to);
  for (const b of blocks) {
    const list: { write: MappingWrite; by: Omit<FoundWrite, 'role' | 'afterScan'> }[] = [];
    for (const tx of b.transactions) {
      for (const it of itemsOfTransaction(tx, programs, b.height, o.registry)) {
        const writes = it.type === 'update' ? writesOfUpdate(it) : it.type === 'unattested' ? (it.record.mappingWrites ?? []) : [];
        const src = it.type === 'update' ? it.base : it.record;
        const by = {
          ...(src.transactionId !== undefined ? { transactionId: src.transactionId } : {}),
          ...(src.transitionId !== undefined ? { transitionId: src.transitionId } : {}),
          ...(src.blockHeight !== undefined ? { blockHeight: src.blockHeight } : {}),
          ...(src.program !== undefined ? { program: src.program } : {}),
          ...(src.function !== undefined ? { function: src.function } : {}),
        };
        for (const write of writes) list.push({ write, by });
      }
    }
    scanned.set(b.height, list);
  }
}
