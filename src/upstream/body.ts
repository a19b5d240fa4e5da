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
    if (n > 0 && this.waiters.length > 0) for (const w of this.waiters.splice(0)) w();
  }

  private readonly waiters: (() => void)[] = [];

  /**
   * Takes `n` bytes once they fit, waiting for bodies in flight to give theirs back (a bulk reader
   * whose answer is sure to fit once the others are read); false at once when `n` is over the
   * limit, or when `signal` aborts first.
   */
  async takeWhenFree(n: number, signal?: AbortSignal): Promise<boolean> {
    if (n > this.limit) return false;
    while (!this.take(n)) {
      if (signal?.aborted) return false;
      await new Promise<void>((resolve) => {
        const done = (): void => {
          signal?.removeEventListener('abort', done);
          resolve();
        };
        this.waiters.push(done);
        signal?.addEventListener('abort', done, { once: true });
      });
    }
    return true;
  }

  /** Bytes taken now. */
  get inUse(): number {
    return this.used;
  }
}

/**
 * Body buffers kept for reuse by readers that are done with a body's bytes once they give them back
 * (the `/blocks` reader parses a range's 17.5 MB, keeps only strings it decoded, then releases it):
 * the next body of a known length is read into a buffer already mapped, not a fresh allocation
 * each time (no page faults on 17.5 MB per range, no external memory piling up for the GC, a flat
 * RSS). At most `maxFreeBytes` of free buffers are kept, the largest ones first; a buffer is handed
 * out only for a body of at least a quarter of its size. A new buffer is made an eighth larger than
 * asked, so that the next bodies, a little larger or smaller (ranges differ by some percent), fit
 * in it too rather than each larger one taking a fresh buffer. `alloc` makes the new ones (a reader
 * may want its bodies where it reads them best, e.g. the `/blocks` reader's WebAssembly memory).
 */
export class BufferPool {
  private readonly free: Buffer[] = [];
  private freeBytes = 0;
  constructor(
    readonly maxFreeBytes: number,
    private readonly alloc: (n: number) => Buffer = (n) => Buffer.allocUnsafeSlow(n),
  ) {}

  /** A buffer of at least `n` bytes (its first `n` to be written), from the free ones or new. */
  take(n: number): Buffer {
    let best = -1;
    for (let i = 0; i < this.free.length; i++) {
      const l = this.free[i]!.length;
      if (l >= n && l <= 4 * n && (best < 0 || l < this.free[best]!.length)) best = i;
    }
    if (best < 0) return this.alloc(n + (n >>> 3));
    const [b] = this.free.splice(best, 1);
    this.freeBytes -= b!.length;
    return b!;
  }

  /**
   * Gives back a buffer from `take`: its bytes are no longer read by anyone. Kept when it fits under
   * `maxFreeBytes`, smaller free buffers dropped to make room for it if need be.
   */
  give(b: Buffer): void {
    const max = this.maxFreeBytes;
    const smaller = this.free.filter((f) => f.length < b.length).sort((x, y) => x.length - y.length);
    let bytes = this.freeBytes;
    let dropped = 0;
    while (bytes + b.length > max && dropped < smaller.length) bytes -= smaller[dropped++]!.length;
    if (bytes + b.length > max) return;
    for (const f of smaller.slice(0, dropped)) this.free.splice(this.free.indexOf(f), 1);
    this.free.push(b);
    this.freeBytes = bytes + b.length;
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
 * The body being read into one buffer sized to the declared length (else grown by doubling up to
 * the limit): the bytes are held once, never as chunks and a copy of them all besides. The one sink
 * of every body reader: `readCapped` below (a fetch Response's web stream) and the ledger node's
 * HTTP/1.1 reader (src/upstream/http1Agent.ts, which pushes ranges of its socket's chunks),
 * so the cap and the budget hold alike on both.
 */
export class CappedBuffer {
  private held: number;
  private buf: Buffer;
  private size = 0;
  /** The buffer taken from `pool` (a body of declared length), given back with the budget. */
  private pooled: Buffer | undefined;
  /**
   * Told after each landing of the body's bytes: the buffer, and how many of its first bytes are
   * the body's so far (a reader that reads while they arrive, e.g. the `/blocks` reader). The
   * buffer may change while the body grows (its bytes keep their offsets). One that throws is told
   * no more: the body itself is read on.
   */
  onBytes: ((buf: Buffer, size: number) => void) | undefined;
  constructor(
    private readonly limit: number,
    private readonly declared: number | undefined,
    private readonly budget: ByteBudget | undefined,
    private readonly pool?: BufferPool,
  ) {
    this.held = budget && declared !== undefined ? declared : 0;
    const first = Math.min(limit, declared ?? INITIAL_BYTES);
    if (pool && declared !== undefined) this.buf = this.pooled = pool.take(first);
    else this.buf = Buffer.allocUnsafe(first);
  }

  /**
   * Adds `value[start, end)` (a chunk, or the body's part of a socket's chunk: copied once, here); a
   * failure (nothing more to read: the caller abandons the body) gives the budget back.
   */
  push(value: Uint8Array, start = 0, end = value.length): CappedBody | undefined {
    const { size, limit } = this;
    const n = end - start;
    if (size + n > limit) return this.tooLarge(value.subarray(start, end));
    const more = size + n - this.held;
    if (this.budget && more > 0) {
      if (!this.budget.take(more)) {
        this.giveBack();
        return { ok: false, reason: 'overBudget', budget: this.budget.limit };
      }
      this.held += more;
    }
    if (size + n > this.buf.length) {
      const grown = Buffer.allocUnsafe(Math.min(limit, Math.max(size + n, this.buf.length * 2)));
      this.buf.copy(grown, 0, 0, size);
      this.buf = grown;
    }
    this.buf.set(start === 0 && end === value.length ? value : value.subarray(start, end), size);
    this.size = size + n;
    if (this.onBytes) this.landed();
    return undefined;
  }

  private landed(): void {
    try {
      this.onBytes!(this.buf, this.size);
    } catch {
      this.onBytes = undefined;
    }
  }

  /**
   * A view of the buffer where up to `max` of the body's next bytes may be read in place (a body of
   * declared length, whose buffer and budget were taken whole): undefined when there is no such room.
   */
  room(max: number): Buffer | undefined {
    if (this.declared === undefined) return undefined;
    const end = Math.min(this.buf.length, this.declared, this.size + max);
    return end > this.size ? this.buf.subarray(this.size, end) : undefined;
  }

  /** `n` bytes were read in place, into the view `room` gave. */
  filled(n: number): void {
    this.size += n;
    if (this.onBytes) this.landed();
  }

  /**
   * The body is larger than the limit (`next`: the bytes that did not fit, none when only announced):
   * the failure, with the start of the body as an excerpt for messages; the budget is given back.
   */
  tooLarge(next: Uint8Array = new Uint8Array(0)): CappedBody {
    const { size, limit } = this;
    const excerpt = Buffer.concat([this.buf.subarray(0, Math.min(size, EXCERPT_BYTES)), next.subarray(0, Math.max(0, Math.min(limit, EXCERPT_BYTES) - size))]);
    this.giveBack();
    return { ok: false, reason: 'tooLarge', bytes: excerpt, ...(this.declared !== undefined ? { declared: this.declared } : {}) };
  }

  giveBack(): void {
    this.budget?.give(this.held);
    this.held = 0;
    if (this.pooled) {
      // Nothing reads these bytes any more: a failure's excerpt is a copy, a success was released.
      this.pool!.give(this.pooled);
      this.pooled = undefined;
    }
  }

  /** The whole body, held against the budget until `release`. */
  done(): CappedBody {
    const bytes = this.buf.subarray(0, this.size);
    let released = false;
    return {
      ok: true,
      bytes,
      release: () => {
        if (released) return;
        released = true;
        this.giveBack();
      },
    };
  }
}

/** What a declared length allows before anything is read: a failure, or the buffer to read into. */
function start(declared: number | undefined, limit: number, budget?: ByteBudget, pool?: BufferPool): CappedBody | CappedBuffer {
  if (declared !== undefined && declared > limit) return { ok: false, reason: 'tooLarge', bytes: Buffer.alloc(0), declared };
  // A declared length is taken from the budget whole before anything is read: bodies that fit
  // complete, the others are refused at once (rather than all of them reading part and failing).
  if (budget && declared !== undefined && !budget.take(declared)) return { ok: false, reason: 'overBudget', budget: budget.limit };
  return new CappedBuffer(limit, declared, budget, pool);
}

/**
 * Reads `res`'s body up to `limit` bytes, cancelling the stream (which closes the connection) as
 * soon as it is known to be larger, or as soon as `budget` has no room for a chunk. The bytes read
 * are held against the budget until `release` (or the failure) gives them back. `onBytes` is told
 * of the bytes as they land (CappedBuffer.onBytes).
 */
export async function readCapped(res: Response, limit: number, budget?: ByteBudget, onBytes?: CappedBuffer['onBytes']): Promise<CappedBody> {
  if (!res.body) return { ok: true, bytes: Buffer.alloc(0), release: () => undefined };
  const declaredText = res.headers.get('content-length');
  const into = start(declaredText !== null && /^\d+$/.test(declaredText) ? Number(declaredText) : undefined, limit, budget);
  if (!(into instanceof CappedBuffer)) {
    await res.body.cancel().catch(() => undefined);
    return into;
  }
  into.onBytes = onBytes;
  const reader = res.body.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) break;
      const failed = into.push(value);
      if (failed) {
        await reader.cancel().catch(() => undefined);
        return failed;
      }
    }
  } catch (e) {
    into.giveBack();
    throw e;
  }
  return into.done();
}

/**
 * Where a body of `declared` length (undefined: not declared) is to be read, before any of it is: a
 * failure (declared above `limit`, or no room in `budget`), or the sink to push its bytes into,
 * the declared length already taken from the budget. With `waitForRoom` (a bulk reader's 200
 * answer) a declared length that fits the limit waits for room in the budget (the answer's bytes
 * wait in the socket meanwhile, unread) rather than failing `overBudget` at once; `signal`
 * aborting that wait rejects with its reason. With `pool`, a body of declared length is read into
 * a buffer of the pool, given back by `release`: the caller must not keep the bytes (nor a view of
 * them) past it.
 */
export async function openCappedBody(declared: number | undefined, limit: number, budget?: ByteBudget, signal?: AbortSignal, waitForRoom = false, pool?: BufferPool): Promise<CappedBody | CappedBuffer> {
  if (waitForRoom && budget && declared !== undefined && declared <= limit) {
    if (!(await budget.takeWhenFree(declared, signal))) {
      if (signal?.aborted) throw signal.reason;
      return { ok: false, reason: 'overBudget', budget: budget.limit };
    }
    return new CappedBuffer(limit, declared, budget, pool);
  }
  return start(declared, limit, budget, pool);
}
