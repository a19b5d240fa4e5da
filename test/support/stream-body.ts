/**
 * A huge or endless response body written as the peer reads it (backpressure respected), for the
 * stand-ins of upstream services: what a hostile upstream sends. `sent` counts the bytes the
 * socket took before the peer closed it, so a test sees where the reader stopped.
 */
import type { ServerResponse } from 'node:http';

export interface StreamedBody {
  /** Bytes of body written to the socket so far. */
  sent: number;
  /** Resolves with `sent` once the connection closed (the reader abandoned it) or the body ended. */
  ended: Promise<number>;
}

const CHUNK = Buffer.alloc(64 * 1024, 0x20); // JSON whitespace: a reader learns nothing until the end

export function streamBody(res: ServerResponse, status: number, bytes: number, declareLength: boolean, headers: Record<string, string> = {}): StreamedBody {
  const out: StreamedBody = { sent: 0, ended: Promise.resolve(0) };
  out.ended = new Promise<number>((resolve) => {
    let closed = false;
    res.once('close', () => {
      closed = true;
      resolve(out.sent);
    });
    res.writeHead(status, { 'content-type': 'application/json', ...(declareLength && Number.isFinite(bytes) ? { 'content-length': String(bytes) } : {}), ...headers });
    const pump = (): void => {
      while (!closed && out.sent < bytes) {
        const n = Math.min(CHUNK.length, bytes - out.sent);
        out.sent += n;
        if (!res.write(n === CHUNK.length ? CHUNK : CHUNK.subarray(0, n))) {
          res.once('drain', pump);
          return;
        }
      }
      if (!closed) res.end();
    };
    pump();
  });
  return out;
}
