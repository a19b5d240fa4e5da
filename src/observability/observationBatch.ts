/**
 * Per-request observations handed to prom-client in batches (issue 35). Each prom-client
 * `observe`/`inc` with labels checks the labels, builds their hash string and looks the series up:
 * ≈ 1 µs hot, several µs on the HTTP thread between two requests (its caches cold), and a
 * POST /decodeReport made about ten of them. Here an observation is one push onto its series'
 * array; the arrays are handed to the same prom-client metrics, in the order observed, whenever
 * a metric is read (the metrics' `collect`, which prom-client runs before every read: a scrape,
 * `get()`, `getSingleMetricAsString`) and whenever `limit` observations wait. So every read sees
 * every observation made before it, exactly as if each had been made at once, and at most `limit`
 * numbers are held.
 */
import type { Counter, Histogram } from 'prom-client';

/** One label set: the histogram it is observed into and/or the counter that counts its observations. */
export interface Series {
  readonly histogram: Histogram<string> | undefined;
  readonly counter: Counter<string> | undefined;
  readonly labels: Record<string, string>;
  /** Observed values not handed over yet (a counter alone: one entry per count). */
  readonly values: number[];
}

/** Default most observations held before they are handed over. */
export const BATCH_LIMIT = 256;

export class ObservationBatch {
  private pending = 0;
  private readonly series: Series[] = [];

  constructor(private readonly limit = BATCH_LIMIT) {}

  /** A series, created once per label set and kept by the caller (the labels object is not copied). */
  open(histogram: Histogram<string> | undefined, counter: Counter<string> | undefined, labels: Record<string, string>): Series {
    const s: Series = { histogram, counter, labels, values: [] };
    this.series.push(s);
    return s;
  }

  /** One observation of `value` in `s` (for a counter alone, the value is ignored: one count). */
  add(s: Series, value: number): void {
    s.values.push(value);
    if (++this.pending >= this.limit) this.flush();
  }

  /** Hands every waiting observation to prom-client, series by series in creation order. */
  readonly flush = (): void => {
    if (this.pending === 0) return;
    this.pending = 0;
    for (const s of this.series) {
      const n = s.values.length;
      if (n === 0) continue;
      if (s.histogram) for (let i = 0; i < n; i++) s.histogram.observe(s.labels, s.values[i]!);
      s.counter?.inc(s.labels, n);
      s.values.length = 0;
    }
  };
}
