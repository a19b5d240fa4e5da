/** The listing of stored updates: newest first by (blockHeight, transitionId), keyset pages, on the index of its filters. */
import type { Cursor, UpdateFilter } from './types.js';

/**
 * The index a listing walks: the one whose leading columns are exactly its equality filters, in
 * the listing's order, so that a page reads about `limit` rows however rare the rows it asks for
 * are (a filter that matched nothing walked every update, ≈ 0.3–0.7 s at 100,000, on a public
 * route). Unrecognized updates have a partial index of their own.
 */
function listIndex(f: UpdateFilter): string {
  if (f.unrecognized === true) return 'updates_unrecognized_order';
  const kind = f.kind !== undefined;
  if (f.outcome !== undefined) return kind ? 'updates_kind_outcome_order' : 'updates_outcome_order';
  if (f.valid !== undefined) return kind ? 'updates_kind_valid_order' : 'updates_valid_order';
  return kind ? 'updates_kind_order' : 'updates_order';
}

/**
 * The query of one listing page (`limit` rows after `after`), or none when the filter cannot match
 * (reportValid is true exactly when the outcome is valid: a filter asking both ways finds nothing).
 */
export function listQuery(filter: UpdateFilter, limit: number, after?: Cursor): { sql: string; args: (string | number)[] } | undefined {
  if (filter.valid !== undefined && filter.outcome !== undefined && filter.valid !== (filter.outcome === 'valid')) return undefined;
  const where: string[] = [];
  const args: (string | number)[] = [];
  /** `sql` with its one parameter `value`, when the filter has it. */
  const when = (sql: string, value: string | number | undefined): void => {
    if (value === undefined) return;
    where.push(sql);
    args.push(value);
  };
  when('report_valid = ?', filter.valid === undefined ? undefined : Number(filter.valid));
  when('outcome = ?', filter.outcome);
  when('report_type = ?', filter.kind);
  if (filter.unrecognized !== undefined) where.push(filter.unrecognized ? "json_extract(record, '$.unrecognized') = 1" : "json_extract(record, '$.unrecognized') IS NULL");
  when('block_height >= ?', filter.fromHeight);
  when('block_height <= ?', filter.toHeight);
  if (after) {
    where.push('(block_height, transition_id) < (?, ?)');
    args.push(after.blockHeight, after.transitionId);
  }
  const sql = `SELECT block_height AS h, transition_id AS t, outcome, record FROM updates INDEXED BY ${listIndex(filter)} ${where.length ? `WHERE ${where.join(' AND ')}` : ''} ORDER BY block_height DESC, transition_id DESC LIMIT ?`;
  return { sql, args: [...args, limit] };
}
