/** Stamping ledger update items with their blocks' timestamps (src/ledger/records/blockTimes.ts). */
import { describe, expect, it } from 'vitest';
import { judgeAtBlockTimes, timesOfBlocks } from '../../../../src/ledger/records/blockTimes.js';
import type { LedgerItem } from '../../../../src/ledger/records/transitions.js';

const update = (h: number | undefined, id: string): LedgerItem => ({
  type: 'update',
  base: { transitionId: id, program: 'p.aleo', function: 'set_data_sgx', ...(h !== undefined ? { blockHeight: h } : {}) },
  userData: 'u',
  report: 'r',
});

describe('judgeAtBlockTimes', () => {
  it('uses the timestamps the blocks carry, reads each missing one once, and leaves heightless items and other records alone', async () => {
    const items: LedgerItem[] = [update(5, 'a'), update(7, 'b'), update(7, 'c'), update(undefined, 'd'), { type: 'unattested', record: { kind: 'unattested' } }];
    const asked: number[] = [];
    await judgeAtBlockTimes(items, timesOfBlocks([{ height: 5, timestamp: 1_700_000_000 }, { height: 6 }]), async (h) => {
      asked.push(h);
      return 1_700_000_021;
    });
    expect(asked).toEqual([7]);
    const u = items.filter((i): i is Extract<LedgerItem, { type: 'update' }> => i.type === 'update');
    expect(u.map((i) => [i.base.transitionId, i.base.blockTimestamp, i.asOf])).toEqual([
      ['a', '2023-11-14T22:13:20.000Z', 1_700_000_000_000],
      ['b', '2023-11-14T22:13:41.000Z', 1_700_000_021_000],
      ['c', '2023-11-14T22:13:41.000Z', 1_700_000_021_000],
      ['d', undefined, undefined],
    ]);
    expect(items[4]).toEqual({ type: 'unattested', record: { kind: 'unattested' } });
  });

  it('a header that cannot be read fails the whole batch (the caller retries it), not one update judged now', async () => {
    const items = [update(9, 'x')];
    await expect(judgeAtBlockTimes(items, new Map(), () => Promise.reject(new Error('node down')))).rejects.toThrow('node down');
    expect((items[0] as Extract<LedgerItem, { type: 'update' }>).asOf).toBeUndefined();
  });
});
