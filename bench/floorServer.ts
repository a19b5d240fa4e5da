/**
 * The HTTP floor for bench/http-load.ts: the least a Node service can do per request on this
 * machine with the same verification core. node:http (no framework, no JSON parsing, no schema,
 * no struct parsing, no metrics), the request body copied into one buffer and transferred to a
 * raw worker_threads worker (no pool library, no time limit), which runs the core path on the
 * next report of the same minted mix (bench/corePath.ts `runOne`: the real verification, checked
 * valid) and not on the request's own content; the answer is a fixed body of typical size. The
 * difference between this and the service prices our own front end; the gap between this and
 * workers ÷ core prices the machine (HTTP on loopback, thread hand-over, the load generator).
 * With `parse` as the fourth argument it is the next rung up: the body is also `JSON.parse`d and its
 * two texts turned into bytes by the service's own struct parse (`parseReportTexts` of
 * dist/src/verify/verifyReport.js, see modules.ts; as the service does before its pool), and those bytes are what is transferred.
 * With `piscina` it parses the same way and hands the bytes to a Piscina pool configured as the
 * service's (bench/floorPiscinaEntry.mjs; fixed thread count, one abort signal per task), so the
 * step from `parse` prices Piscina's hand-over against raw worker_threads.
 * Usage (by http-load.ts): node --import tsx bench/floorServer.ts <port> <workers> <core-input.v8> [parse|piscina]
 */
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { deserialize } from 'node:v8';
import { Worker } from 'node:worker_threads';
import { Piscina } from 'piscina';
import { serviceModule } from './modules.js';
import { countLatency } from './peerLatency.js';

const [port, count, inputFile, mode] = process.argv.slice(2);
const input = deserialize(readFileSync(inputFile!));
const parseTexts =
  mode === 'parse' || mode === 'piscina'
    ? (await serviceModule<typeof import('../src/verify/verifyReport.js')>('verify/verifyReport')).parseReportTexts
    : undefined;

// Typical answer size (a typeB answer carries its certificates): reportValid true, padded to ≈ 3 KB.
const ANSWER = Buffer.from(JSON.stringify({ reportType: 'floor', reportValid: true, pad: 'x'.repeat(3000) }));

interface Job {
  body: Uint8Array[];
  done: (ok: boolean) => void;
}
interface Slot {
  w: Worker;
  job: Job | undefined;
}

const piscina =
  mode === 'piscina'
    ? new Piscina({
        filename: new URL('./floorPiscinaEntry.mjs', import.meta.url).href,
        minThreads: Number(count),
        maxThreads: Number(count),
        idleTimeout: 60_000,
        workerData: input,
      })
    : undefined;

const queue: Job[] = [];
let k = 0;
const slots: Slot[] = [];

/** The distinct buffers under a job's byte arrays, to transfer (a buffer may appear only once). */
const transferables = (body: Uint8Array[]) => [...new Set(body.map((b) => b.buffer as ArrayBuffer))];

function dispatch(slot: Slot, job: Job): void {
  slot.job = job;
  slot.w.postMessage({ k: k++, body: job.body }, transferables(job.body));
}

await Promise.all(
  Array.from({ length: piscina ? 0 : Number(count) }, () =>
    new Promise<void>((ready) => {
      const slot: Slot = { w: new Worker(new URL('./floorWorkerEntry.mjs', import.meta.url), { workerData: input }), job: undefined };
      slots.push(slot);
      slot.w.on('message', (m: { ready?: boolean; ok?: boolean; error?: string }) => {
        if (m.ready) return ready();
        if (!m.ok) console.error('floor: verification failed:', m.error);
        const job = slot.job!;
        slot.job = undefined;
        const next = queue.shift();
        if (next) dispatch(slot, next);
        job.done(m.ok === true);
      });
      slot.w.on('error', (e) => {
        console.error('floor worker failed', e);
        process.exit(1);
      });
    }),
  ),
);

const server = http.createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const all = Buffer.concat(chunks);
    let body: Uint8Array[];
    if (parseTexts) {
      let parsed: ReturnType<typeof parseTexts> | undefined;
      try {
        const texts = JSON.parse(all.toString('utf8')) as { userData: string; report: string };
        parsed = parseTexts(texts.userData, texts.report);
      } catch {
        /* not JSON */
      }
      if (!parsed || 'error' in parsed) {
        res.writeHead(400, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ reportValid: false, errorString: parsed ? parsed.error.message : 'body is not JSON' }));
        return;
      }
      body = [parsed.userData, parsed.report];
    } else {
      const copy = new Uint8Array(all.length);
      copy.set(all);
      body = [copy];
    }
    const job: Job = {
      body,
      done: (ok) => {
        res.writeHead(ok ? 200 : 500, { 'content-type': 'application/json', 'content-length': ANSWER.length });
        res.end(ANSWER);
      },
    };
    if (piscina) {
      (piscina.run({ k: k++, body: job.body }, { transferList: transferables(job.body), signal: new AbortController().signal }) as Promise<boolean>).then(
        (ok) => job.done(ok),
        (e: unknown) => {
          console.error('floor: verification failed:', e);
          job.done(false);
        },
      );
      return;
    }
    const free = slots.find((s) => s.job === undefined);
    if (free) dispatch(free, job);
    else queue.push(job);
  });
});
// Its own latency histogram, read over IPC by http-load.ts beside the service's (peerLatency.ts).
countLatency(server);
server.listen(Number(port), '127.0.0.1', () => {
  process.send?.({ port: (server.address() as { port: number }).port, latency: true });
});
process.on('SIGTERM', () => process.exit(0));
