/**
 * Open-loop POST /decodeReport load at a fixed rate, shared by bench/http-load.ts and
 * bench/http-ab.ts: one request every 1/rate s on a keep-alive agent, whatever the answers
 * (autocannon's overallRate refills once a second and sends bursts, which inflates p99).
 */
import http from 'node:http';

/** What one paced slice saw: each answer's latency (ms), the slice's length (s) and the failures. */
export interface PacedRaw {
  lat: number[];
  elapsed: number;
  non2xx: number;
  errors: number;
  invalid: number;
}

/** `bodies` in turn to `url`/decodeReport at `rate` a second for `seconds`; an answer is valid when it says `"reportValid":true`. */
export async function pacedPosts(url: string, bodies: readonly string[], rate: number, seconds: number): Promise<PacedRaw> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  const target = new URL(`${url}/decodeReport`);
  const lat: number[] = [];
  let non2xx = 0;
  let errors = 0;
  let invalid = 0;
  const total = Math.round(rate * seconds);
  const t0 = performance.now();
  const pending: Promise<void>[] = [];
  for (let n = 0; n < total; n++) {
    const wait = t0 + (n * 1000) / rate - performance.now();
    if (wait > 0) await new Promise((r) => setTimeout(r, wait));
    const body = bodies[n % bodies.length]!;
    const start = performance.now();
    pending.push(
      new Promise<void>((res) => {
        const req = http.request(target, { method: 'POST', agent, headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) } }, (r) => {
          let text = '';
          r.setEncoding('utf8');
          r.on('data', (d: string) => (text += d));
          r.on('end', () => {
            lat.push(performance.now() - start);
            if (r.statusCode !== 200) non2xx++;
            else if (!text.includes('"reportValid":true')) invalid++;
            res();
          });
        });
        req.on('error', () => {
          errors++;
          res();
        });
        req.end(body);
      }),
    );
  }
  await Promise.all(pending);
  const elapsed = (performance.now() - t0) / 1000;
  agent.destroy();
  return { lat, elapsed, non2xx, errors, invalid };
}

/**
 * How many rounds of turns give each of `peers` at least `seconds` in turns of `slice` s: whole
 * cycles of turnOrder (a multiple of the peer count), so that every peer takes every place equally
 * often and waits as long between its turns. With three peers in five rounds, one peer waited
 * 4, 8, 2, 2 and 8 s before its turns and another 4, 2, 8, 2, 4 s (test/unit/repo/bench-turns.test.ts).
 */
export function turnRounds(seconds: number, slice: number, peers: number): number {
  const n = Math.max(1, peers);
  return Math.ceil(Math.ceil(seconds / slice) / n) * n;
}

/** The peers' order in paced round `round`: each round starts with the next peer, so that no peer always takes the same place in the turns. */
export function turnOrder<T>(peers: readonly T[], round: number): T[] {
  return peers.map((_, i) => peers[(i + round) % peers.length]!);
}

/** The peers' turns over `rounds` rounds, one after the other (turnOrder of each round). */
export function* turns<T>(peers: readonly T[], rounds: number): Generator<T> {
  for (let round = 0; round < rounds; round++) yield* turnOrder(peers, round);
}
