/**
 * reverify's runs of updates across batches (src/cli/updateRuns.ts): runs go out full, or when a
 * batch whose updates wait is needed; each batch's records come in item order, with the verdicts
 * of its own updates; a failed run fails the batches it served.
 */
import { describe, expect, it } from 'vitest';
import { UpdateRuns } from '../../../src/cli/updateRuns.js';
import type { LedgerItem } from '../../../src/ledger/records/transitions.js';
import type { OutputRecord } from '../../../src/ledger/records/updateRecord.js';
import type { ReportTexts, VerifyOutcome } from '../../../src/verify/types.js';

const outcomeOf = (p: ReportTexts): VerifyOutcome =>
  Number(p.report.slice(1)) % 2 === 0 ? { reportValid: true, reportType: 'typeB' } : { reportValid: false, reportType: 'typeA', error: { code: 'USERDATA_HASH_MISMATCH', message: `mismatch ${p.userData}` } as never };

let n = 0;
function batch(updates: number, withRecord = false): LedgerItem[] {
  const out: LedgerItem[] = [];
  if (withRecord) out.push({ type: 'unattested', record: { transactionId: `x${n}`, kind: 'unattested' } as OutputRecord });
  for (let i = 0; i < updates; i++, n++) out.push({ type: 'update', base: { transactionId: `at${n}`, transitionId: `au${n}`, blockHeight: n, program: 'p.aleo', function: 'f' }, userData: `u${n}`, report: `r${n}` });
  return out;
}

describe('UpdateRuns', () => {
  it('sends full runs across batches, the rest only when a waiting batch is needed, and gives each batch its records in order', async () => {
    const runs: string[][] = [];
    const r = new UpdateRuns(4, async (pairs) => {
      runs.push(pairs.map((p) => p.report));
      return pairs.map(outcomeOf);
    });
    const b1 = batch(1, true);
    const b2 = batch(2);
    const b3 = batch(0, true);
    const b4 = batch(3);
    const t = [b1, b2, b3].map((b) => r.add(b));
    expect(runs).toHaveLength(0); // 3 updates wait after b1..b3
    expect(t[2]!.lastSeq).toBe(-1); // no update of its own: needs no run
    // b4 fills a run of 4 (b1's, b2's and b4's first); b4's other two wait.
    t.push(r.add(b4));
    expect(runs).toEqual([['r0', 'r1', 'r2', 'r3']]);
    const first = await Promise.all([t[0]!.records, t[1]!.records, t[2]!.records]);
    expect(first.map((recs) => recs.map((x) => x.transactionId))).toEqual([['x0', 'at0'], ['at1', 'at2'], ['x3']]);
    expect(first[0]![1]!.reportValid).toBe(true);
    expect(first[1]!.map((x) => x.reportValid)).toEqual([false, true]);
    r.needed(t[2]!.lastSeq); // all of b3's updates were sent: nothing goes out
    expect(runs).toHaveLength(1);
    r.needed(t[3]!.lastSeq);
    expect(runs.map((x) => x.length)).toEqual([4, 2]);
    expect((await t[3]!.records).map((x) => x.transactionId)).toEqual(['at3', 'at4', 'at5']);
  });

  it('fails the batches a failed run served', async () => {
    const r = new UpdateRuns(8, async () => {
      throw new Error('pool closed');
    });
    const a = r.add(batch(1));
    const b = r.add(batch(1));
    r.needed(b.lastSeq);
    await expect(a.records).rejects.toThrow('pool closed');
    await expect(b.records).rejects.toThrow('pool closed');
  });
});
