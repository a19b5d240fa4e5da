/**
 * `reverify`'s updates gathered across consecutive batches into runs of `size` (one verifyMany
 * call, one pool task each). A batch of `/blocks/transactions` (160 blocks) holds one or two
 * updates at mainnet's density, so runs cut per batch were pool tasks of one or two updates, each
 * paying a task's hand-over. A run goes out when it is full, or when a batch whose updates still
 * wait is about to be written (`needed`): never held by a timer, so nothing waits on a later batch.
 */
import type { LedgerItem, UpdateItem } from '../ledger/records/transitions.js';
import type { OutputRecord } from '../ledger/records/updateRecord.js';
import { updatePair, updateRecordOf, type VerifyMany } from '../ledger/watch/verifyUpdates.js';

interface Waiting {
  seq: number;
  u: UpdateItem;
  ok: (r: OutputRecord) => void;
  fail: (e: unknown) => void;
}

/** What a batch's records need: its last update's sequence number (none: -1). */
export interface RunTicket {
  lastSeq: number;
  records: Promise<OutputRecord[]>;
}

export class UpdateRuns {
  private waiting: Waiting[] = [];
  private seq = 0;

  constructor(
    private readonly size: number,
    private readonly verifyMany: VerifyMany,
  ) {}

  /** The records of the items in item order; their updates join the waiting run (sent once it is full). */
  add(items: readonly LedgerItem[]): RunTicket {
    let lastSeq = -1;
    const records = Promise.all(
      items.map((it) => {
        if (it.type !== 'update') return Promise.resolve(it.record);
        lastSeq = this.seq++;
        const seq = lastSeq;
        return new Promise<OutputRecord>((ok, fail) => this.waiting.push({ seq, u: it, ok, fail }));
      }),
    );
    while (this.waiting.length >= this.size) this.send(this.waiting.splice(0, this.size));
    return { lastSeq, records };
  }

  /** Sends what waits if any update up to `lastSeq` is among it (its batch is to be written now). */
  needed(lastSeq: number): void {
    if (this.waiting.length > 0 && this.waiting[0]!.seq <= lastSeq) this.send(this.waiting.splice(0));
  }

  private send(run: Waiting[]): void {
    this.verifyMany(run.map((w) => updatePair(w.u))).then(
      (outs) => {
        for (const [i, w] of run.entries()) {
          try {
            w.ok(updateRecordOf(w.u, outs[i]!));
          } catch (e) {
            w.fail(e);
          }
        }
      },
      (e: unknown) => {
        for (const w of run) w.fail(e);
      },
    );
  }
}
