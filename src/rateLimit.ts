/**
 * Pacing of ledger-node requests and of verifications, shared by `reverify` and the server's ledger
 * watcher (src/ledger/node/blockScanner.ts, src/ledger/watch/watcher.ts, src/cli/reverify.ts).
 */

/** Spaces calls at least 1/rps seconds apart (no burst), in arrival order. */
export class RateLimiter {
  private next = 0;
  private readonly interval: number;

  constructor(rps: number) {
    this.interval = rps > 0 && Number.isFinite(rps) ? 1000 / rps : 0;
  }

  async acquire(): Promise<void> {
    if (this.interval === 0) return;
    const now = Date.now();
    const at = Math.max(now, this.next);
    this.next = at + this.interval;
    if (at > now) await new Promise((r) => setTimeout(r, at - now));
  }
}

/** At most `limit` tasks at once; the others wait in order. */
export class Semaphore {
  private active = 0;
  private readonly waiting: (() => void)[] = [];

  constructor(private readonly limit: number) {}

  async run<T>(fn: () => Promise<T>): Promise<T> {
    if (this.active >= this.limit) await new Promise<void>((r) => this.waiting.push(r));
    this.active++;
    try {
      return await fn();
    } finally {
      this.active--;
      this.waiting.shift()?.();
    }
  }
}
