/**
 * The one reader of upstream bodies (the PCCS, the ledger node, notarizers): read as a stream and
 * abandoned at its cap (a body declaring more than the cap in Content-Length is not read at all),
 * so a service answering 200 MB costs the cap, not 200 MB. A `ByteBudget` bounds the bytes of one
 * service's bodies held at once over every concurrent request: a body that would pass it is
 * abandoned too (`overBudget`), and its reader fails with a retryable error.
 */

/** Bytes of upstream bodies in flight, process-wide for one service: taken while read, given back by `release`. */
export class ByteBudget {
  private used = 0;
  constructor(readonly limit: number) {}

  /** Takes `n` bytes when they fit under the limit; false (nothing taken) when they do not. */
  take(n: number): boolean {
    if (this.used + n > this.limit) return false;
    this.used += n;
    return true;
  }

  give(n: number): void {
    this.used = Math.max(0, this.used - n);
  }

  /** Bytes taken now. */
  get inUse(): number {
    return this.used;
  }
}

/** First allocation for a body of unknown length. */
const INITIAL_BYTES = 64 * 1024;
/** What a too-large body keeps of its start, for messages. */
const EXCERPT_BYTES = 64 * 1024;

export type CappedBody =
  /** The whole body; `release` gives its bytes back to the budget (call it once the bytes are no longer needed, e.g. parsed). */
  | { ok: true; bytes: Buffer; release: () => void }
  /** More than `limit` bytes (declared or read): `bytes` holds the first of them (at most 64 KiB, an excerpt for messages). */
  | { ok: false; reason: 'tooLarge'; bytes: Buffer; declared?: number }
  /** The budget had no room for the body's bytes: nothing more was read. */
  | { ok: false; reason: 'overBudget'; budget: number };

/**
 * Reads `res`'s body up to `limit` bytes, cancelling the stream (which closes the connection) as
 * soon as it is known to be larger, or as soon as `budget` has no room for a chunk. The bytes read
 * are held against the budget until `release` (or the failure) gives them back.
 */
export async function readCapped(res: Response, limit: number, budget?: ByteBudget): Promise<CappedBody> {
  if (!res.body) return { ok: true, bytes: Buffer.alloc(0), release: () => undefined };
  const declaredText = res.headers.get('content-length');
  const declared = declaredText !== null && /^\d+$/.test(declaredText) ? Number(declaredText) : undefined;
  if (declared !== undefined && declared > limit) {
    await res.body.cancel().catch(() => undefined);
    return { ok: false, reason: 'tooLarge', bytes: Buffer.alloc(0), declared };
  }
  // A declared length is taken from the budget whole before anything is read: bodies that fit
  // complete, the others are refused at once (rather than all of them reading part and failing).
  if (budget && declared !== undefined && !budget.take(declared)) {
    await res.body.cancel().catch(() => undefined);
    return { ok: false, reason: 'overBudget', budget: budget.limit };
  }
  let held = budget && declared !== undefined ? declared : 0;
  const giveBack = (): void => {
    budget?.give(held);
    held = 0;
  };
  const reader = res.body.getReader();
  // One buffer, sized to the declared length (else grown by doubling up to the limit): the body's
  // bytes are held once, never as chunks and a copy of them all besides.
  let buf = Buffer.allocUnsafe(Math.min(limit, declared ?? INITIAL_BYTES));
  let size = 0;
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      if (size + value.length > limit) {
        await reader.cancel().catch(() => undefined);
        giveBack();
        const excerpt = Buffer.concat([buf.subarray(0, Math.min(size, EXCERPT_BYTES)), value.subarray(0, Math.max(0, Math.min(limit, EXCERPT_BYTES) - size))]);
        return { ok: false, reason: 'tooLarge', bytes: excerpt, ...(declared !== undefined ? { declared } : {}) };
      }
      const more = size + value.length - held;
      if (budget && more > 0) {
        if (!budget.take(more)) {
          await reader.cancel().catch(() => undefined);
          giveBack();
          return { ok: false, reason: 'overBudget', budget: budget.limit };
        }
        held += more;
      }
      if (size + value.length > buf.length) {
        const grown = Buffer.allocUnsafe(Math.min(limit, Math.max(size + value.length, buf.length * 2)));
        buf.copy(grown, 0, 0, size);
        buf = grown;
      }
      buf.set(value, size);
      size += value.length;
    }
  } catch (e) {
    giveBack();
    throw e;
  }
  const bytes = buf.subarray(0, size);
  let released = false;
  return {
    ok: true,
    bytes,
    release: () => {
      if (released) return;
      released = true;
      giveBack();
    },
  };
}
