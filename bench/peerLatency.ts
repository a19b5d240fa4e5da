/**
 * A bench peer's own view of its requests' latency (receipt → response sent), in the bounds of the
 * service's HTTP histogram (verifier_http_request_duration_seconds, src/observability/metrics.ts),
 * so that bench/http-load.ts can set a floor's count of slow requests beside the service's in the
 * same paced run. The peer counts (`countLatency`) and answers the bench's IPC question
 * (`LATENCY_QUESTION`) with its cumulative counts; asking over IPC, not HTTP, leaves the peer's
 * request path untouched (a GET would meet the POSTs' optimised code, as a scrape does the
 * service's). A peer that counts says so in its ready message (bench/peerProcess.ts).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { LATENCY_BUCKETS } from '../src/observability/metrics.js';

/** What the bench sends to ask, and the shape of the answer. */
export const LATENCY_QUESTION = 'latency?';
export interface LatencyAnswer {
  /** Cumulative counts: [i] = requests answered within LATENCY_BUCKETS[i]; the last entry is every request (+Inf). */
  latency: number[];
}

/** Cumulative counts by Prometheus `le` label ('0.001', …, '+Inf'), the form http-load.ts reads a scrape into. */
export function byLe(counts: readonly number[]): Map<string, number> {
  return new Map(counts.map((n, i) => [i < LATENCY_BUCKETS.length ? String(LATENCY_BUCKETS[i]) : '+Inf', n]));
}

/**
 * Counts every request of `server` from its 'request' event to its response's 'finish', and
 * answers LATENCY_QUESTION on this process's IPC channel. Call before the server listens.
 */
export function countLatency(server: Server): void {
  const within = new Array<number>(LATENCY_BUCKETS.length + 1).fill(0);
  server.prependListener('request', (_req: IncomingMessage, res: ServerResponse) => {
    const t0 = performance.now();
    res.once('finish', () => {
      const s = (performance.now() - t0) / 1000;
      let i = LATENCY_BUCKETS.findIndex((b) => s <= b);
      if (i < 0) i = LATENCY_BUCKETS.length;
      within[i]!++;
    });
  });
  process.on('message', (m) => {
    if (m !== LATENCY_QUESTION) return;
    let sum = 0;
    const answer: LatencyAnswer = { latency: within.map((n) => (sum += n)) };
    process.send?.(answer);
  });
}
