/**
 * Collateral for a worker's report, asked for by the worker when the report's kind reaches its
 * collateral step (after every collateral-free check: a forged report never makes the verifier
 * contact a PCCS) and answered by the main thread, which owns the collateral source and its caches.
 * One pair of BroadcastChannels per pool, not a MessageChannel per task (creating, transferring
 * and closing one cost the HTTP thread more than the rest of the hand-over): a task that may need
 * collateral carries a ticket; the worker posts the ticket and the subject (what identifies the
 * platform) on the pool's `ask` channel, the main thread answers on its `answer` channel with the
 * collateral packed once per version (collateralPack.ts) or the failure the source gave, and the
 * worker holding the ticket takes it. The same channel says when collateral changed (a version
 * not packed before), so that workers drop what they reuse (collateralReuse.ts).
 */
import { BroadcastChannel } from 'node:worker_threads';
import { VerifierError } from '../errors.js';
import { toFailure } from '../verify/failure.js';
import type { FailureInfo } from '../verify/types.js';
import type { CollateralFetcher } from '../verify/kinds/index.js';
import { CollateralPacker, type PackedCollateral } from './collateralPack.js';

export type { CollateralFetcher };
/** What identifies the collateral a report needs (its kind's collateral port says: typeA, the PCK chain). */
export type CollateralSubject = unknown;

type Reply = { collateral: PackedCollateral } | { error: FailureInfo };
type Ask = { ticket: number; subject: CollateralSubject; asOf?: number };
type Answer = { ticket: number; reply: Reply } | { changed: true };

const askChannel = (name: string) => `${name}:ask`;
const answerChannel = (name: string) => `${name}:answer`;

/**
 * Main thread: answers the workers' questions for the tickets it opened. `hold(true)` while a
 * ticket's question is being answered (the task's deadline is held meanwhile: the source has its
 * own time limits), `hold(false)` after. A question for a closed ticket (its task ended) is dropped.
 */
export class CollateralDesk {
  private readonly packer = new CollateralPacker();
  private readonly tickets = new Map<number, (on: boolean) => void>();
  private next = 1;
  private readonly asks: BroadcastChannel;
  private readonly answers: BroadcastChannel;

  constructor(
    private readonly source: CollateralFetcher,
    readonly channel: string,
  ) {
    this.asks = new BroadcastChannel(askChannel(channel));
    this.answers = new BroadcastChannel(answerChannel(channel));
    this.asks.onmessage = (m) => this.answer((m as { data: Ask }).data);
    this.asks.unref();
    this.answers.unref();
  }

  /** A ticket for one task; `hold` is told while its question is being answered. */
  open(hold: (on: boolean) => void): number {
    const t = this.next++;
    this.tickets.set(t, hold);
    return t;
  }

  close(ticket: number): void {
    this.tickets.delete(ticket);
  }

  shutdown(): void {
    this.tickets.clear();
    this.asks.close();
    this.answers.close();
  }

  private answer({ ticket, subject, asOf }: Ask): void {
    const hold = this.tickets.get(ticket);
    if (!hold) return;
    hold(true);
    const source = this.source;
    // History collateral (judged as of a past time) is no refresh of the current collateral: packed without telling the workers.
    const raw =
      asOf === undefined
        ? source.rawForSubject(subject).then((r) => this.pack(r.version, r.collateral as object, true))
        : source.rawAsOf
          ? source.rawAsOf(subject, asOf).then((r) => this.pack(`asOf:${r.version}`, r.collateral as object, false))
          : Promise.reject(new VerifierError('INTERNAL_ERROR', 'the pool was given no history collateral source'));
    void raw.then(
      (collateral): Reply => ({ collateral }),
      (e: unknown): Reply => ({ error: toFailure(e) }),
    ).then((reply) => {
      if (!this.tickets.has(ticket)) return;
      hold(false);
      this.answers.postMessage({ ticket, reply } satisfies Answer);
    });
  }

  /** Packs once per version; a current version not packed before is a refresh (or the first): the workers are told. */
  private pack(version: string, collateral: object, current: boolean): PackedCollateral {
    const fresh = current && !this.packer.has(version);
    const p = this.packer.pack(version, collateral);
    if (fresh) this.answers.postMessage({ changed: true } satisfies Answer);
    return p;
  }
}

/** Worker: asks the main thread for a ticket's collateral; `changed` is called when the main thread says collateral changed. */
export class CollateralLine {
  private readonly waiting = new Map<number, { resolve: (p: PackedCollateral) => void; reject: (e: unknown) => void }>();
  private readonly asks: BroadcastChannel;
  private readonly answers: BroadcastChannel;

  constructor(channel: string, changed: () => void) {
    this.asks = new BroadcastChannel(askChannel(channel));
    this.answers = new BroadcastChannel(answerChannel(channel));
    this.answers.onmessage = (m) => {
      const a = (m as { data: Answer }).data;
      if ('changed' in a) return changed();
      const w = this.waiting.get(a.ticket);
      if (!w) return; // another worker's ticket
      this.waiting.delete(a.ticket);
      if ('error' in a.reply) w.reject(new VerifierError(a.reply.error.code, a.reply.error.message));
      else w.resolve(a.reply.collateral);
    };
    this.asks.unref();
    this.answers.unref();
  }

  /** The collateral the main thread has for `subject` (with `asOf`: its history collateral for that time), or its failure thrown. */
  request(ticket: number, subject: CollateralSubject, asOf?: number): Promise<PackedCollateral> {
    return new Promise((resolve, reject) => {
      this.waiting.set(ticket, { resolve, reject });
      this.asks.postMessage({ ticket, subject, ...(asOf !== undefined ? { asOf } : {}) } satisfies Ask);
    });
  }

  /** A task ended: an answer for its ticket no longer has a taker. */
  forget(ticket: number): void {
    this.waiting.delete(ticket);
  }

  close(): void {
    this.waiting.clear();
    this.asks.close();
    this.answers.close();
  }
}
