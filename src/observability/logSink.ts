/**
 * Where the service's log lines go (pino's destination for stdout): written without ever
 * blocking the event loop or the exit, whatever the reader of stdout does.
 *
 * pino's own destination flushes synchronously at exit (sonic-boom flushSync), busy-waiting on
 * EAGAIN for as long as the reader of a pipe does not read: with a stalled log shipper (a FIFO
 * whose reader is stopped) SIGTERM never ended the process, and neither did a second one
 * (issue 32 item 9). Here:
 * - the lines of one turn of the event loop are written together with one non-blocking write
 *   (stdout, when a pipe, is non-blocking once Node opened it: main.ts does);
 * - what the fd does not take (EAGAIN) waits, and is tried again RETRY_MS later;
 * - at exit, what is still waiting gets ONE more non-blocking write; what the fd does not take
 *   then is lost (README "Operations", Logs);
 * - at most MAX_BUFFERED bytes wait: lines beyond are dropped (and counted in a line written once
 *   the sink reads again), so a stalled reader cannot grow the process's memory.
 */
import { writeSync } from 'node:fs';

/** Bytes of log lines waiting for the fd at most. */
export const MAX_BUFFERED = 4 * 1024 * 1024;
/** Pause before the fd is tried again after it took nothing. */
export const RETRY_MS = 50;

export class LogSink {
  private queue: Buffer[] = [];
  private queued = 0;
  private scheduled = false;
  private retry: NodeJS.Timeout | undefined;
  /** The fd refused for good (EPIPE, EBADF…): nothing more is written. */
  private broken = false;
  private dropped = 0;

  constructor(
    private readonly fd: number,
    private readonly maxBuffered = MAX_BUFFERED,
  ) {
    process.once('exit', () => this.flushOnce());
  }

  /** pino's destination interface: one log line. */
  write(line: string): boolean {
    if (this.broken) return false;
    const b = Buffer.from(line);
    if (this.queued + b.length > this.maxBuffered) {
      this.dropped++;
      return false;
    }
    this.queue.push(b);
    this.queued += b.length;
    if (!this.scheduled && this.retry === undefined) {
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.flushOnce();
      });
    }
    return true;
  }

  /** Bytes waiting for the fd. */
  get pending(): number {
    return this.queued;
  }

  /** Writes what waits, as much as the fd takes now, without waiting; schedules a retry for the rest. */
  private flushOnce(): void {
    if (this.broken || this.queued === 0) return;
    if (this.retry !== undefined) {
      clearTimeout(this.retry);
      this.retry = undefined;
    }
    let chunk = this.queue.length === 1 ? this.queue[0]! : Buffer.concat(this.queue, this.queued);
    this.queue = [];
    while (chunk.length > 0) {
      let n: number;
      try {
        n = writeSync(this.fd, chunk);
      } catch (e) {
        const code = (e as NodeJS.ErrnoException).code;
        if (code === 'EAGAIN' || code === 'EWOULDBLOCK') break;
        // The reader is gone: logging stops here (pino's destination does the same on EPIPE).
        this.broken = true;
        this.queue = [];
        this.queued = 0;
        return;
      }
      chunk = chunk.subarray(n);
      this.queued -= n;
    }
    if (chunk.length > 0) {
      this.queue = [chunk];
      this.retry = setTimeout(() => {
        this.retry = undefined;
        this.flushOnce();
      }, RETRY_MS);
      // A log line waiting never keeps the process alive.
      this.retry.unref();
      return;
    }
    if (this.dropped > 0) {
      const dropped = this.dropped;
      this.dropped = 0;
      this.write(`${JSON.stringify({ level: 40, time: Date.now(), pid: process.pid, dropped, msg: `${dropped} log line(s) dropped: the reader of the log did not keep up` })}\n`);
    }
  }
}
