/**
 * verifyUpdates with a batch verifier (the pool's decodeReports): the same records in item order
 * as one verify call per update, updates sent in runs of at most UPDATE_BATCH, the items that are
 * no updates passed through and owner records left out.
 */
import { describe, expect, it } from 'vitest';
import type { LedgerItem } from '../../../../src/ledger/records/transitions.js';
import type { OutputRecord } from '../../../../src/ledger/records/updateRecord.js';
import { chunked, UPDATE_BATCH, verifyUpdates } from '../../../../src/ledger/watch/verifyUpdates.js';
import type { ReportTexts, VerifyOutcome } from '../../../../src/verify/types.js';

/** A fake verification whose outcome depends on the pair (valid iff the report text ends in an even digit). */
const outcomeOf = (userData: string, report: string): VerifyOutcome =>
  Number(report.at(-1)) % 2 === 0 ? { reportValid: true, reportType: 'typeB' } : { reportValid: false, reportType: 'typeA', error: { code: 'USERDATA_HASH_MISMATCH', message: `mismatch ${userData}` } as never };

function items(n: number): LedgerItem[] {
  const out: LedgerItem[] = [];
  for (let i = 0; i < n; i++) {
    const base = { transactionId: `at${i}`, transitionId: `au${i}`, blockHeight: 100 + i, program: 'p.aleo', function: 'f' };
    if (i % 7 === 3) out.push({ type: 'unattested', record: { ...base, kind: 'unattested' } as OutputRecord });
    else if (i % 11 === 5) out.push({ type: 'owner', record: { ...base, kind: 'measurement' } as OutputRecord });
    else out.push({ type: 'update', base, userData: `u${i}`, report: `r${i}` });
  }
  return out;
}

describe('verifyUpdates in batches', () => {
  it('gives the records of one verify call per update, in item order, in runs of at most UPDATE_BATCH', async () => {
    const list = items(45);
    const one = await verifyUpdates(list, async (u, r) => outcomeOf(u, r));
    const runs: number[] = [];
    const many = await verifyUpdates(
      list,
      async () => {
        throw new Error('verify must not be called when verifyMany is given');
      },
      async (pairs: readonly ReportTexts[]) => {
        runs.push(pairs.length);
        return pairs.map((p) => outcomeOf(p.userData, p.report));
      },
    );
    expect(many).toEqual(one);
    const updates = list.filter((it) => it.type === 'update').length;
    expect(runs.reduce((a, b) => a + b, 0)).toBe(updates);
    expect(Math.max(...runs)).toBe(UPDATE_BATCH);
    expect(many.some((r) => r.kind === 'measurement')).toBe(false);
    expect(many.filter((r) => r.kind === 'unattested').length).toBe(list.filter((it) => it.type === 'unattested').length);
  });

  it('chunked cuts a list into runs of the size, the last shorter', () => {
    expect(chunked([1, 2, 3, 4, 5], 2)).toEqual([[1, 2], [3, 4], [5]]);
    expect(chunked([], 8)).toEqual([]);
  });
});
