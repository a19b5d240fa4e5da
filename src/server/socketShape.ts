/**
 * Every connection's socket of one hidden class. Node caches a socket's peer address on the
 * socket (`_peername`) the first time `remoteAddress` is read, and the app reads it only for a
 * request with a body (inflight.ts, bytes per address): a connection that served only GETs kept
 * a socket of another class. One GET /metrics among the POST /decodeReport load then met Node's
 * socket and stream functions (and inflight.ts's own) optimised for the one class, and
 * deoptimised them; they were compiled again for both (issue 35: 47 functions deoptimised by
 * that GET, 36 for a wrong map; with this, 35 and 23, none of them socket functions;
 * BENCHMARKS.md). Reading the address as each connection opens gives every socket the same
 * properties in the same order.
 */
import type { Server } from 'node:http';
import type { Socket } from 'node:net';

/** `tls`: the server is HTTPS (a request's socket is the TLS socket, opened after its handshake; as shutdown.ts's Connections). */
export function peerAddressOnConnect(server: Server, tls: boolean): void {
  server.on(tls ? 'secureConnection' : 'connection', (socket: Socket) => void socket.remoteAddress);
}
