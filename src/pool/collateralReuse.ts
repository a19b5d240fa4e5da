/**
 * Worker: the packed collateral it was last given for a subject, reused for `reuseMs` before the
 * worker asks the main thread again. Without it every typeA task waited for a round trip through
 * the main thread's event loop, which under HTTP load is busy parsing requests (BENCHMARKS.md,
 * HTTP load): the collateral wait was most of the tail. What keeps it current:
 * - the window: after `reuseMs` the worker asks again, so the main thread's source sees the
 *   request (its caches refresh ahead of expiry on a request) and answers with its current version;
 * - the main thread's word: when it packs a version it had not packed before (a refresh), it says
 *   so on the pool's answer channel (collateralPort.ts) and every worker drops what it holds, so a
 *   refresh one worker brought back reaches the others at their next task.
 * A forged report still never reaches this (the lookup is the kind's collateral step), and a miss
 * takes the old path (the task's deadline held while the source answers). Bounded: `max` subjects.
 */
import { LRUCache } from 'lru-cache';
import type { PackedCollateral } from './collateralPack.js';

export class CollateralReuse {
  private readonly packs = new LRUCache<string, { pack: PackedCollateral; until: number }>({ max: 64 });

  constructor(private readonly reuseMs: number) {}

  /** The main thread said collateral changed (collateralPort.ts): nothing held is reused. */
  clear(): void {
    this.packs.clear();
  }

  /** The pack held for `key` while its window is open. */
  get(key: string): PackedCollateral | undefined {
    if (!(this.reuseMs > 0)) return undefined;
    const e = this.packs.get(key);
    if (!e) return undefined;
    if (performance.now() >= e.until) {
      this.packs.delete(key);
      return undefined;
    }
    return e.pack;
  }

  set(key: string, pack: PackedCollateral): void {
    if (this.reuseMs > 0) this.packs.set(key, { pack, until: performance.now() + this.reuseMs });
  }
}

/** The reuse key of a subject: the kind and the subject's content (typeA: its PCK chain). */
export const reuseKey = (kind: string, subject: unknown): string => `${kind}:${typeof subject === 'string' ? subject : JSON.stringify(subject)}`;
