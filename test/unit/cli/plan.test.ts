/**
 * The public-API plan of `reverify --node` (src/cli/plan.ts: requests and time under a budget of
 * requests/s and requests/day) and the daily request budget (src/requestBudget.ts) with an
 * injected clock: the day's count continued from a saved state, the reservation saved before a
 * request is used, the wait for the next day and the stop.
 */
import { describe, expect, it } from 'vitest';
import { duration, planScan } from '../../../src/cli/plan.js';
import { DAY_MS, RequestBudget, type BudgetState } from '../../../src/requestBudget.js';

const DAY0 = Date.parse('2026-11-28T00:00:00Z');

describe('planScan', () => {
  it('the whole chain from a public API (5 rps, 100,000 requests/day) with /blocks: 442,000 requests, 4 d 2 h 20 min from midnight', () => {
    const p = planScan({ blocks: 22_100_000, blocksPerRequest: 50, source: '/blocks', rps: 5, requestsPerDay: 100_000, now: DAY0 });
    expect(p.requests).toBe(442_000);
    // 100,000 today (5.6 h at 5/s), 3 more whole days, then 42,000 at 5/s = 8,400 s on the 5th day.
    expect(p.seconds).toBe(4 * 86_400 + 8_400);
    expect(p.days).toBe(5);
    expect(duration(p.seconds)).toBe('4 d 2 h 20 min');
    expect(p.line).toBe(
      'plan: 22,100,000 blocks from /blocks (50 blocks a request) = 442,000 requests; under 5 requests/s and 100,000 requests/day (0 spent today): ≈ 4 d 2 h 20 min over 5 days, the last request ≈ 2026-12-02T02:20Z\n',
    );
  });

  it('with /blocks/transactions (160 blocks a request): 138,125 requests, 1 d 2 h 7 min 5 s', () => {
    const p = planScan({ blocks: 22_100_000, blocksPerRequest: 160, source: '/blocks/transactions', rps: 5, requestsPerDay: 100_000, now: DAY0 });
    expect(p.requests).toBe(138_125);
    expect(p.seconds).toBe(86_400 + 38_125 / 5);
    expect(duration(p.seconds)).toBe('1 d 2 h 7 min');
    expect(p.line).toContain('from /blocks/transactions (160 blocks a request) = 138,125 requests');
  });

  it("a resumed run's spent requests and the hour it starts count; without a day budget, the rate alone", () => {
    // 18:00 UTC, 90,000 spent: 10,000 left today but 6 h at 5/s allow 108,000 — the budget binds.
    const evening = DAY0 + 18 * 3_600_000;
    const p = planScan({ blocks: 1_000_000, blocksPerRequest: 50, source: '/blocks', rps: 5, requestsPerDay: 100_000, spentToday: 90_000, now: evening });
    expect(p.requests).toBe(20_000);
    expect(p.seconds).toBe(6 * 3600 + 10_000 / 5); // 10,000 today, the rest after midnight
    expect(p.line).toContain('(90,000 spent today)');
    // 23:00 UTC, nothing spent: the rate binds (1 h at 5/s = 18,000 today).
    const late = planScan({ blocks: 1_000_000, blocksPerRequest: 50, source: '/blocks', rps: 5, requestsPerDay: 100_000, now: DAY0 + 23 * 3_600_000 });
    expect(late.seconds).toBe(3600 + 2_000 / 5);
    // Fits today.
    expect(planScan({ blocks: 5_000, blocksPerRequest: 50, source: '/blocks', rps: 5, requestsPerDay: 100_000, now: DAY0 }).seconds).toBe(20);
    // Own node: 230 rps, no day budget; a partial last batch is one more request.
    const own = planScan({ blocks: 22_100_001, blocksPerRequest: 160, source: '/blocks/transactions', rps: 230, now: DAY0 });
    expect(own.requests).toBe(138_126);
    expect(own.seconds).toBeCloseTo(138_126 / 230, 6);
    expect(own.line).toContain('under 230 requests/s: ≈ 10 min 1 s,');
  });
});

/** A clock the test moves, and sleeps that move it. */
function clock(start: number) {
  const c = { t: start, slept: [] as number[] };
  return { c, now: () => c.t, sleep: async (ms: number) => void (c.slept.push(ms), (c.t += ms)) };
}

describe('RequestBudget', () => {
  it('saves the reservation before a request goes out, and a run resumed from the saved state continues the day', async () => {
    const { now, sleep } = clock(DAY0 + 1000);
    const saves: BudgetState[] = [];
    const b = new RequestBudget({ perDay: 10, reserveAhead: 4, now, sleep, persist: (s) => saves.push(s), stop: (m) => new Error(m) });
    await b.acquire();
    // Saved before the first request: it and 3 ahead.
    expect(saves.map((s) => s.days)).toEqual([{ '2026-11-28T00:00:00Z': 4 }]);
    for (let i = 0; i < 4; i++) await b.acquire();
    expect(b.spent()).toBe(5);
    expect(saves.at(-1)!.days).toEqual({ '2026-11-28T00:00:00Z': 8 });
    // Killed now: the saved 8 (≥ the 5 sent) is what the next run starts from.
    const resumed = new RequestBudget({ perDay: 10, now, sleep, saved: saves.at(-1)!, stop: (m) => new Error(m) });
    expect(resumed.spent()).toBe(8);
    await resumed.acquire();
    await resumed.acquire();
    await expect(resumed.acquire()).rejects.toThrow(/request budget spent: 10 of 10 requests on the day from 2026-11-28T00:00:00Z \(UTC\); continue with --resume from 2026-11-29T00:00:00Z/);
    // The reservation never passes the budget.
    expect(Math.max(...saves.map((s) => s.days['2026-11-28T00:00:00Z']!))).toBeLessThanOrEqual(10);
  });

  it('waits for the next day when spent, saying until when, then takes from the new day', async () => {
    const { c, now, sleep } = clock(DAY0 + 22 * 3_600_000);
    const said: string[] = [];
    const b = new RequestBudget({ perDay: 3, now, sleep, onWait: (m) => said.push(m) });
    for (let i = 0; i < 3; i++) await b.acquire();
    await b.acquire();
    expect(c.slept).toEqual(Array(2 * 3600).fill(1000)); // in 1 s slices, to hear a stop
    expect(said).toEqual(['request budget spent: 3 of 3 requests on the day from 2026-11-28T00:00:00Z (UTC); waiting until 2026-11-29T00:00:00Z\n']);
    expect(b.spent()).toBe(1);
    expect(b.state().days).toEqual({ '2026-11-28T00:00:00Z': 3, '2026-11-29T00:00:00Z': 1 });
    expect(b.dayMs).toBe(DAY_MS);
  });

  it('a stop requested during the wait ends it with the error the caller gives', async () => {
    const { c, now, sleep } = clock(DAY0 + 23 * 3_600_000);
    const stopAt = DAY0 + 23 * 3_600_000 + 5_500;
    const b = new RequestBudget({ perDay: 1, now, sleep, interrupted: () => (c.t >= stopAt ? new Error('stopped while waiting') : undefined) });
    await b.acquire();
    await expect(b.acquire()).rejects.toThrow('stopped while waiting');
    expect(c.t).toBe(DAY0 + 23 * 3_600_000 + 6_000);
  });

  it('a shorter test day (dayMs) cuts days at its multiples', async () => {
    const { c, now, sleep } = clock(10_500);
    const b = new RequestBudget({ perDay: 2, dayMs: 1000, now, sleep });
    await b.acquire();
    await b.acquire();
    await b.acquire();
    expect(c.t).toBe(11_000);
    expect(b.state().days).toEqual({ '1970-01-01T00:00:10Z': 2, '1970-01-01T00:00:11Z': 1 });
  });
});
