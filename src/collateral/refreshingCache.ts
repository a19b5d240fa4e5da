/**
 * A cache of collateral components, each kept until its own nextUpdate. Concurrent misses for a
 * key share one fetch (single flight). Shortly before nextUpdate an entry is refreshed in the
 * background while the current one keeps serving. When a fetch fails, an entry that is still
 * cached is served (an outage while cached collateral is valid does not fail verification; the
 * verifier still checks every validity window at its verification time).
 */
import { LRUCache } from 'lru-cache';

export interface Fetched<T> {
  value: T;
  /** Epoch ms after which the value must not be served as current. */
  nextUpdate: number;
  /** Epoch ms from which the value is valid. */
  thisUpdate: number;
}

export interface CacheEvents {
  hit?(cache: string): void;
  miss?(cache: string): void;
  refreshError?(cache: string, key: string, err: unknown): void;
  staleServed?(cache: string, key: string, err: unknown): void;
}

export class RefreshingCache<T extends object> {
  private readonly entries: LRUCache<string, Fetched<T>>;
  private readonly inflight = new Map<string, Promise<Fetched<T>>>();
  /** Lookups served from a current entry. */
  hits = 0;
  /** Lookups that had to fetch. */
  misses = 0;

  constructor(
    readonly name: string,
    private readonly opts: { max?: number; now?: () => number; events?: CacheEvents; refreshAheadMs?: number } = {},
  ) {
    this.entries = new LRUCache<string, Fetched<T>>({ max: opts.max ?? 256 });
  }

  private now(): number {
    return (this.opts.now ?? Date.now)();
  }

  private refreshAhead(e: Fetched<T>): number {
    const lifetime = Math.max(0, e.nextUpdate - e.thisUpdate);
    return Math.min(this.opts.refreshAheadMs ?? 3_600_000, lifetime / 10);
  }

  private fetchOnce(key: string, fetcher: () => Promise<Fetched<T>>): Promise<Fetched<T>> {
    let p = this.inflight.get(key);
    if (!p) {
      p = fetcher().then(
        (v) => {
          this.entries.set(key, v);
          this.inflight.delete(key);
          return v;
        },
        (e: unknown) => {
          this.inflight.delete(key);
          throw e;
        },
      );
      this.inflight.set(key, p);
    }
    return p;
  }

  async get(key: string, fetcher: () => Promise<Fetched<T>>): Promise<T> {
    const cached = this.entries.get(key);
    const now = this.now();
    if (cached && now < cached.nextUpdate) {
      this.hits++;
      this.opts.events?.hit?.(this.name);
      if (now >= cached.nextUpdate - this.refreshAhead(cached) && !this.inflight.has(key)) {
        this.fetchOnce(key, fetcher).catch((e: unknown) => this.opts.events?.refreshError?.(this.name, key, e));
      }
      return cached.value;
    }
    this.misses++;
    this.opts.events?.miss?.(this.name);
    try {
      return (await this.fetchOnce(key, fetcher)).value;
    } catch (e) {
      if (cached) {
        this.opts.events?.staleServed?.(this.name, key, e);
        return cached.value;
      }
      throw e;
    }
  }

  /** Entries currently held (for tests and metrics). */
  get size(): number {
    return this.entries.size;
  }
}
