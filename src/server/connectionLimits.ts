/**
 * What one client can make the server hold by connecting and never reading: bounds on connections
 * (in all and per remote address) and on the answers one connection has waiting.
 *
 * - A connection beyond `maxConnections`, or beyond `maxConnectionsPerClient` for its address, is
 *   closed as it opens (before a TLS handshake or a byte is read).
 * - Pipelining: a request that arrives while `maxPipelined` earlier requests of its connection are
 *   not yet answered closes the connection, unhandled. Node parses every request of a received
 *   chunk before any is answered and queues their answers without limit for a client that does
 *   not read them (issue 48: 500 pipelined GETs a send took the process to 4 GiB). Between
 *   chunks, Node itself stops reading a connection whose answers are not drained.
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import type { ConnectionRefusal, ConnectionStats } from '../observability/metrics.js';

export interface ConnectionLimitOptions {
  /** Most connections open at once (config maxConnections). */
  maxConnections: number;
  /** Most connections open at once from one remote address (config maxConnectionsPerClient). */
  maxConnectionsPerClient: number;
  /** Most requests of one connection received and not yet answered (config maxPipelinedRequests). */
  maxPipelined: number;
}

type RequestListener = (req: IncomingMessage, res: ServerResponse) => void;

export class ConnectionLimits {
  private open = 0;
  private readonly perAddress = new Map<string, number>();
  /** Requests received and not yet answered, per connection. */
  private readonly unanswered = new WeakMap<Socket, number>();
  private readonly refused: Record<ConnectionRefusal, number> = { max_connections: 0, max_connections_per_client: 0, pipelined: 0 };

  /** Applies the limits to `server`; call before any other 'request' listener is added after the framework's own. */
  constructor(server: Server, private readonly opts: ConnectionLimitOptions) {
    // 'connection' is the raw TCP socket, for HTTPS too: counted before its handshake.
    server.on('connection', (s: Socket) => this.connected(s));
    // The framework's request handler runs only for a request within the pipelining bound.
    const handlers = server.listeners('request') as RequestListener[];
    server.removeAllListeners('request');
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (!this.admit(req, res)) return;
      for (const h of handlers) h.call(server, req, res);
    });
  }

  stats(): ConnectionStats {
    return { open: this.open, refused: { ...this.refused } };
  }

  private connected(s: Socket): void {
    const address = s.remoteAddress ?? '';
    const fromAddress = this.perAddress.get(address) ?? 0;
    const over: ConnectionRefusal | undefined = this.open >= this.opts.maxConnections ? 'max_connections' : fromAddress >= this.opts.maxConnectionsPerClient ? 'max_connections_per_client' : undefined;
    if (over) {
      this.refused[over]++;
      s.destroy();
      return;
    }
    this.open++;
    this.perAddress.set(address, fromAddress + 1);
    s.once('close', () => {
      this.open--;
      const n = (this.perAddress.get(address) ?? 1) - 1;
      if (n > 0) this.perAddress.set(address, n);
      else this.perAddress.delete(address);
    });
  }

  private admit(req: IncomingMessage, res: ServerResponse): boolean {
    const socket = req.socket;
    const n = (this.unanswered.get(socket) ?? 0) + 1;
    if (n > this.opts.maxPipelined) {
      if (!socket.destroyed) this.refused.pipelined++;
      socket.destroy();
      return false;
    }
    this.unanswered.set(socket, n);
    // 'close': the answer was handed to the socket, or the connection ended first.
    res.once('close', () => this.unanswered.set(socket, (this.unanswered.get(socket) ?? 1) - 1));
    return true;
  }
}
