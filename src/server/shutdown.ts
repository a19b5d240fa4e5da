/**
 * Bounded shutdown of the HTTP server (README "Operations"): on SIGTERM the server stops accepting,
 * answers the requests in flight, and closes every other connection — idle keep-alive ones, and
 * slow ones whose request line and headers are still coming (Node stops enforcing its header and
 * request timeouts once the server is closing, so a single slow client would otherwise hold the
 * shutdown open) — and a connection whose request body is still coming once its request time
 * limit is over. The answers of in-flight requests close their connections (no keep-alive).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';

interface InFlight {
  req: IncomingMessage;
  res: ServerResponse;
  /** When the request arrived (ms since the epoch). */
  at: number;
}

export class Connections {
  private readonly sockets = new Map<Socket, Set<InFlight>>();
  private draining = false;
  private readonly timers = new Set<NodeJS.Timeout>();

  /** HTTPS: connections whose TLS handshake is not done, by remote address and port (the TLS socket has the raw one's). */
  private readonly handshaking = new Map<string, Socket>();

  /** `tls`: the server is HTTPS (its HTTP connections are the TLS sockets). */
  constructor(server: Server, tls: boolean) {
    if (tls) {
      server.on('connection', (raw: Socket) => {
        const key = endpoint(raw);
        this.handshaking.set(key, raw);
        raw.once('close', () => this.handshaking.get(key) === raw && this.handshaking.delete(key));
      });
      server.on('secureConnection', (s: Socket) => this.handshaking.delete(endpoint(s)));
    }
    server.on(tls ? 'secureConnection' : 'connection', (s: Socket) => this.add(s));
    server.on('request', (req: IncomingMessage, res: ServerResponse) => this.request(req, res));
  }

  private add(s: Socket): void {
    if (this.draining) {
      s.destroy();
      return;
    }
    this.sockets.set(s, new Set());
    s.once('close', () => this.sockets.delete(s));
  }

  private request(req: IncomingMessage, res: ServerResponse): void {
    const socket = req.socket;
    let inFlight = this.sockets.get(socket);
    if (!inFlight) {
      inFlight = new Set();
      this.sockets.set(socket, inFlight);
      socket.once('close', () => this.sockets.delete(socket));
    }
    const r: InFlight = { req, res, at: Date.now() };
    inFlight.add(r);
    if (this.draining) res.shouldKeepAlive = false;
    res.once('close', () => {
      inFlight.delete(r);
      // Answered while draining: nothing more is read from this connection.
      if (this.draining && inFlight.size === 0 && !socket.destroyed) socket.destroySoon();
    });
  }

  /** Requests being answered now. */
  get inFlight(): number {
    let n = 0;
    for (const s of this.sockets.values()) n += s.size;
    return n;
  }

  /**
   * Starts draining: connections without a request being answered (idle, or a request line and
   * headers still coming) are closed now; answers of the requests in flight close their
   * connection; a request whose body is still coming is cut when its time limit (from its arrival)
   * is over.
   */
  drain(requestTimeoutMs: number): { closed: number; inFlight: number } {
    this.draining = true;
    let closed = 0;
    const now = Date.now();
    // A handshake still going on (or never started) carries no request.
    for (const raw of this.handshaking.values()) {
      raw.destroy();
      closed++;
    }
    this.handshaking.clear();
    for (const [socket, inFlight] of this.sockets) {
      if (inFlight.size === 0) {
        socket.destroy();
        closed++;
        continue;
      }
      for (const r of inFlight) {
        if (!r.res.headersSent) r.res.shouldKeepAlive = false;
        if (!r.req.complete) {
          const t = setTimeout(() => {
            this.timers.delete(t);
            if (!r.req.complete) socket.destroy();
          }, Math.max(0, r.at + requestTimeoutMs - now));
          t.unref();
          this.timers.add(t);
        }
      }
    }
    return { closed, inFlight: this.inFlight };
  }

  /** Closes every connection at once (the grace period is over); returns how many requests were cut. */
  destroyAll(): number {
    const cut = this.inFlight;
    for (const t of this.timers) clearTimeout(t);
    this.timers.clear();
    for (const socket of this.sockets.keys()) socket.destroy();
    for (const raw of this.handshaking.values()) raw.destroy();
    return cut;
  }
}

const endpoint = (s: Socket): string => `${s.remoteAddress ?? ''}|${s.remotePort ?? ''}`;
