/**
 * The mapping side of the store: what each stored transition writes into the oracle's data
 * mappings (kept with its update), the latest cross-check of each key with the newest write it
 * judged (a key written since counts as not checked), their trigger-kept counts, and the last
 * completeness result.
 */
import type { StoreContext } from './guard.js';
import type { AttestedValue, MappingStatus, MappingWriteRef } from '../records/mappingVerdict.js';
import type { CompletenessResult } from '../records/completeness.js';
import type { MappingCheck, MappingCounts, MappingKeyRef, UpdateStore } from './types.js';

type MappingMethods = Pick<
  UpdateStore,
  'mappingKeysToCheck' | 'mappingWritesOf' | 'mappingKeysOf' | 'mappingWritesOfValue' | 'saveCompleteness' | 'completeness' | 'saveMappingChecks' | 'mappingCounts' | 'listMappingChecks'
>;

type WriteRow = Omit<MappingWriteRef, 'data' | 'attestationTimestamp'> & { seq: number; data: string | null; attestationTimestamp: string | null };
const writeRef = ({ seq: _seq, data, attestationTimestamp, ...w }: WriteRow): MappingWriteRef => ({
  ...w,
  ...(data !== null ? { data } : {}),
  ...(attestationTimestamp !== null ? { attestationTimestamp } : {}),
});

export function mappingRows({ db, read, write, fenced }: StoreContext): MappingMethods {
  // Never checked or written again since first, then the oldest checks (the index mapping_keys_due).
  const keysToCheck = db.prepare(`SELECT program, mapping, key FROM mapping_keys ORDER BY (status IS NOT NULL), checked_at, program, mapping, key LIMIT ?`);
  const writeColumns = `w.seq, w.role, w.data, w.attestation_timestamp AS attestationTimestamp, u.transaction_id AS transactionId, w.transition_id AS transitionId,
       u.block_height AS blockHeight, u.outcome, json_extract(u.record, '$.program') AS program, json_extract(u.record, '$.function') AS function
     FROM mapping_writes w JOIN updates u ON u.transition_id = w.transition_id`;
  const writesOfKey = db.prepare(`SELECT ${writeColumns} WHERE w.program = ? AND w.mapping = ? AND w.key = ? ORDER BY u.block_height, w.seq`);
  const writesOfValue = db.prepare(`SELECT w.key, ${writeColumns} WHERE w.program = ? AND w.mapping = ? AND w.attestation_timestamp = ? AND w.data = ? ORDER BY u.block_height, w.seq`);
  const keysOfMapping = db.prepare(`SELECT key FROM mapping_keys WHERE program = ? AND mapping = ? ORDER BY key`);
  const putCompleteness = db.prepare(`INSERT OR REPLACE INTO completeness (id, status, checked_at, result) VALUES (1, ?, ?, ?)`);
  const getCompleteness = db.prepare(`SELECT result FROM completeness WHERE id = 1`);
  const putCheck = db.prepare(`INSERT OR REPLACE INTO mapping_checks (program, mapping, key, status, checked_seq, checked_at, result) VALUES (?, ?, ?, ?, ?, ?, ?)`);
  const countMapping = db.prepare(`SELECT substr(name, 9) AS what, n FROM store_counts WHERE name LIKE 'mapping:%'`);

  return {
    mappingKeysToCheck: read((limit: number) => keysToCheck.all(limit) as MappingKeyRef[]),
    mappingWritesOf: read((ref: MappingKeyRef) => {
      const rows = writesOfKey.all(ref.program, ref.mapping, ref.key) as WriteRow[];
      return { writes: rows.map(writeRef), lastSeq: rows.reduce((m, r) => Math.max(m, r.seq), 0) };
    }),
    mappingKeysOf: read((program: string, mapping: string) => (keysOfMapping.all(program, mapping) as { key: string }[]).map((r) => r.key)),
    mappingWritesOfValue: read((program: string, mapping: string, v: AttestedValue) =>
      (writesOfValue.all(program, mapping, v.attestationTimestamp, v.data) as (WriteRow & { key: string })[]).map(({ key, ...row }) => ({ ...writeRef(row), key })),
    ),
    saveCompleteness: write(fenced((r: CompletenessResult) => {
      putCompleteness.run(r.status, r.checkedAt, JSON.stringify(r));
    })),
    completeness: read(() => {
      const row = getCompleteness.get() as { result: string } | undefined;
      return row ? (JSON.parse(row.result) as CompletenessResult) : undefined;
    }),
    saveMappingChecks: write(fenced((checks: readonly { check: MappingCheck; lastSeq: number }[]) => {
      for (const { check: c, lastSeq } of checks) putCheck.run(c.program, c.mapping, c.key, c.status, lastSeq, c.checkedAt, JSON.stringify(c));
    })),
    mappingCounts: read(() => {
      const out: MappingCounts = { keys: 0, consistent: 0, inconsistent: 0, notChecked: 0 };
      for (const row of countMapping.all() as { what: 'keys' | MappingStatus; n: number }[]) {
        if (row.what === 'keys') out.keys = row.n;
        else if (row.what === 'consistent') out.consistent = row.n;
        else if (row.what === 'inconsistent') out.inconsistent = row.n;
      }
      out.notChecked = out.keys - out.consistent - out.inconsistent;
      return out;
    }),
    listMappingChecks: read((status: MappingStatus, limit: number, after?: MappingKeyRef) => {
      const rows = db
        .prepare(
          `SELECT k.program, k.mapping, k.key, c.result, c.checked_seq < k.last_seq AS stale FROM mapping_keys k JOIN mapping_checks c
             ON c.program = k.program AND c.mapping = k.mapping AND c.key = k.key
           WHERE ${status === 'not_checked' ? "(k.status IS NULL OR k.status = 'not_checked')" : 'k.status = ?'}
             ${after ? 'AND (k.program, k.mapping, k.key) > (?, ?, ?)' : ''}
           ORDER BY k.program, k.mapping, k.key LIMIT ?`,
        )
        .all(...(status === 'not_checked' ? [] : [status]), ...(after ? [after.program, after.mapping, after.key] : []), limit + 1) as (MappingKeyRef & { result: string; stale: number })[];
      const page = rows.slice(0, limit);
      const last = page[page.length - 1];
      return {
        checks: page.map((r): MappingCheck => {
          const c = JSON.parse(r.result) as MappingCheck;
          // Written again since: the verdict is not current any more.
          return r.stale ? { ...c, status: 'not_checked', reason: `written again since this check (${c.status}${c.reason ? `: ${c.reason}` : ''}); checked again at the next round` } : c;
        }),
        ...(rows.length > limit && last ? { next: { program: last.program, mapping: last.mapping, key: last.key } } : {}),
      };
    }),
  };
}
