/**
 * The line `reverify --node` prints before it starts: how many requests the range takes with the
 * block source in use (its name and blocks per request are inputs: `/blocks` serves 50 blocks a
 * call, `/blocks/transactions` 160), and how long they take under the request budget it was
 * given (requests/s, and requests per UTC day with what this day has already spent). Pure.
 */
import { DAY_MS } from '../requestBudget.js';

export interface PlanInput {
  /** Blocks still to scan (this shard's). */
  blocks: number;
  /** Blocks one request brings (the source's, or --batch when smaller). */
  blocksPerRequest: number;
  /** The block source, as shown: e.g. `/blocks`, `/blocks/transactions`. */
  source: string;
  rps: number;
  requestsPerDay?: number;
  /** Requests already spent on the current day (a resumed run's). */
  spentToday?: number;
  now: number;
  dayMs?: number;
}

export interface Plan {
  requests: number;
  /** Time until the last request is sent, under the budget (seconds). */
  seconds: number;
  /** Days on which requests are sent (1 = all today). */
  days: number;
  endsAt: number;
  line: string;
}

const int = (n: number) => Math.round(n).toLocaleString('en-US');

/** "4 d 2 h 20 min", "3 h 5 min", "12 min 5 s", "40 s". */
export function duration(seconds: number): string {
  const s = Math.ceil(seconds);
  const d = Math.floor(s / 86_400);
  const h = Math.floor((s % 86_400) / 3600);
  const m = Math.floor((s % 3600) / 60);
  const r = s % 60;
  if (d > 0) return `${d} d${h ? ` ${h} h` : ''}${m ? ` ${m} min` : ''}`;
  if (h > 0) return `${h} h${m ? ` ${m} min` : ''}`;
  if (m > 0) return `${m} min${r ? ` ${r} s` : ''}`;
  return `${r} s`;
}

export function planScan(p: PlanInput): Plan {
  const dayMs = p.dayMs ?? DAY_MS;
  const requests = Math.ceil(p.blocks / p.blocksPerRequest);
  let seconds: number;
  let days = 1;
  if (p.requestsPerDay === undefined) {
    seconds = requests / p.rps;
  } else {
    // Today: what is left of its budget, and what the rate allows before it ends.
    const untilNextDay = (Math.floor(p.now / dayMs) + 1) * dayMs - p.now;
    const leftToday = Math.max(0, p.requestsPerDay - (p.spentToday ?? 0));
    const today = Math.min(requests, leftToday, Math.floor((untilNextDay / 1000) * p.rps));
    if (today === requests) {
      seconds = requests / p.rps;
    } else {
      // Each later day: its whole budget, or what the rate allows in a day.
      const perDay = Math.min(p.requestsPerDay, Math.floor((dayMs / 1000) * p.rps));
      const rest = requests - today;
      const fullDays = Math.ceil(rest / perDay) - 1;
      const last = rest - fullDays * perDay;
      seconds = untilNextDay / 1000 + (fullDays * dayMs) / 1000 + last / p.rps;
      days = fullDays + 2;
    }
  }
  const endsAt = p.now + seconds * 1000;
  const budget = `${p.rps} requests/s${p.requestsPerDay !== undefined ? ` and ${int(p.requestsPerDay)} requests/day (${int(p.spentToday ?? 0)} spent today)` : ''}`;
  const line =
    `plan: ${int(p.blocks)} blocks from ${p.source} (${p.blocksPerRequest} blocks a request) = ${int(requests)} requests; ` +
    `under ${budget}: ≈ ${duration(seconds)}${days > 1 ? ` over ${days} days` : ''}, the last request ≈ ${new Date(endsAt).toISOString().replace(/:\d\d\.\d+Z$/, 'Z')}\n`;
  return { requests, seconds, days, endsAt, line };
}
