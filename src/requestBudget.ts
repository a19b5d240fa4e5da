/**
 * A daily request budget (e.g. a public API's 100,000 requests a UTC day), kept across restarts.
 * Every HTTP attempt takes one request of the day's budget before it is sent (retries and
 * rate-limited attempts included: the block scanner's client calls `acquire` per attempt). The
 * count is saved before a request goes out: `persist` is called (synchronously) whenever the
 * requests taken pass what was last saved, and then saves a reservation of up to `reserveAhead`
 * more, so a process killed at any point has spent at most what its saved state says. A resumed
 * run starts from that saved count (never less than what was really sent; at most `reserveAhead`
 * more).
 *
 * When the day's budget is spent: `stop` (an error: exit, continue later) or wait until the next day
 * begins (`onWait` says so once, with the time).
 */

export const DAY_MS = 86_400_000;

/** What a checkpoint records: the requests taken (reserved) per day, days by their start (ISO). */
export interface BudgetState {
  perDay: number;
  dayMs: number;
  days: Record<string, number>;
}

export interface RequestBudgetOptions {
  perDay: number;
  /** Length of a "day" (DAY_MS; a test may shorten it). Days start at multiples of it since the epoch (UTC midnight). */
  dayMs?: number;
  /** Requests saved ahead of use (≥ 1): fewer writes, and at most this many counted but unsent. */
  reserveAhead?: number;
  /** A saved state (a resumed run): its days' counts are continued. */
  saved?: BudgetState;
  /**
   * When the day's budget is spent, throw the error this makes (the message says when the next day
   * begins) instead of waiting for the next day.
   */
  stop?: (message: string, nextDay: number) => Error;
  /** Saves the state before the request that needed it is sent. */
  persist?: (s: BudgetState) => void;
  /** Told once per day when the budget is spent and the run waits. */
  onWait?: (message: string) => void;
  /**
   * Asked every second of a wait for the next day: an error ends the wait (the run was asked to
   * stop), thrown by `acquire`.
   */
  interrupted?: () => Error | undefined;
  now?: () => number;
  sleep?: (ms: number) => Promise<void>;
}

const KEPT_DAYS = 8;
const WAIT_SLICE_MS = 1000;
const iso = (ms: number) => new Date(ms).toISOString().replace(/\.000Z$/, 'Z');

export class RequestBudget {
  readonly perDay: number;
  readonly dayMs: number;
  private readonly reserveAhead: number;
  private readonly days: Map<number, { taken: number; saved: number }>;
  private persistFn: ((s: BudgetState) => void) | undefined;
  private readonly now: () => number;
  private readonly sleep: (ms: number) => Promise<void>;
  private waitedFor = -1;

  constructor(private readonly o: RequestBudgetOptions) {
    if (!(o.perDay >= 1) || !Number.isInteger(o.perDay)) throw new Error(`request budget: perDay ${o.perDay} must be a positive integer`);
    this.perDay = o.perDay;
    this.dayMs = o.dayMs ?? DAY_MS;
    this.reserveAhead = Math.max(1, Math.floor(o.reserveAhead ?? 1));
    this.now = o.now ?? Date.now;
    this.sleep = o.sleep ?? ((ms) => new Promise((r) => setTimeout(r, ms)));
    this.persistFn = o.persist;
    this.days = new Map();
    if (o.saved) {
      for (const [start, n] of Object.entries(o.saved.days)) {
        const t = Date.parse(start);
        if (Number.isNaN(t) || !(n >= 0)) continue;
        const day = Math.floor(t / this.dayMs);
        const prev = this.days.get(day)?.saved ?? 0;
        this.days.set(day, { taken: prev + n, saved: prev + n });
      }
    }
  }

  /** Sets where the state is saved (the checkpoint, once the run has one). */
  setPersist(fn: (s: BudgetState) => void): void {
    this.persistFn = fn;
  }

  private dayOf(ms: number): number {
    return Math.floor(ms / this.dayMs);
  }

  /** Start of the day holding `ms`, as shown (ISO UTC). */
  dayStart(ms = this.now()): string {
    return iso(this.dayOf(ms) * this.dayMs);
  }

  /** Requests taken (or reserved by a run before this one) on the day holding `ms`. */
  spent(ms = this.now()): number {
    return this.days.get(this.dayOf(ms))?.taken ?? 0;
  }

  state(): BudgetState {
    const recent = [...this.days.keys()].sort((a, b) => b - a).slice(0, KEPT_DAYS);
    const days: Record<string, number> = {};
    for (const d of recent.sort((a, b) => a - b)) {
      const v = this.days.get(d)!;
      days[iso(d * this.dayMs)] = v.saved; // ≥ taken
    }
    return { perDay: this.perDay, dayMs: this.dayMs, days };
  }

  /** Takes one request of the current day's budget (waiting for the next day, or throwing, when it is spent). */
  async acquire(): Promise<void> {
    for (;;) {
      const now = this.now();
      const day = this.dayOf(now);
      let d = this.days.get(day);
      if (!d) this.days.set(day, (d = { taken: 0, saved: 0 }));
      // A loaded count is spent (taken = saved); this run's own reservation ahead (saved > taken) is not.
      if (d.taken < this.perDay) {
        d.taken++;
        if (d.taken > d.saved) {
          d.saved = Math.min(this.perDay, d.taken + this.reserveAhead - 1);
          this.persistFn?.(this.state());
        }
        return;
      }
      const next = (day + 1) * this.dayMs;
      const message = `request budget spent: ${d.taken} of ${this.perDay} requests on the day from ${iso(day * this.dayMs)} (UTC)`;
      if (this.o.stop) throw this.o.stop(`${message}; continue with --resume from ${iso(next)}`, next);
      if (this.waitedFor !== day) {
        this.waitedFor = day;
        this.o.onWait?.(`${message}; waiting until ${iso(next)}\n`);
      }
      // In slices, so that a request to stop is heard during a wait of hours.
      for (let left = next - this.now(); left > 0; left = next - this.now()) {
        const stop = this.o.interrupted?.();
        if (stop) throw stop;
        await this.sleep(Math.min(left, WAIT_SLICE_MS));
      }
    }
  }
}
