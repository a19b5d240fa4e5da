/**
 * Pacing of ledger-node requests and of verifications, shared by `reverify` and the server's ledger
 * watcher (src/ledger/node/blocks/fetchBlocks.ts, src/ledger/watch/watcher.ts, src/cli/reverify.ts), and
 * the bound on the server's transaction lookups waiting for the node (src/server/ledgerFeature.ts).
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

/**
 * At most `size` holders at once, the others refused at once (not queued): a bounded waiting
 * room. `enter` gives the release function (idempotent), or undefined when full.
 */
export class BoundedRoom {
  private held = 0;

  constructor(readonly size: number) {}

  /** Holders now. */
  get count(): number {
    return this.held;
  }

  enter(): (() => void) | undefined {
    if (this.held >= this.size) return undefined;
    this.held++;
    let left = false;
    return () => {
      if (left) return;
      left = true;
      this.held--;
    };
  }
}
