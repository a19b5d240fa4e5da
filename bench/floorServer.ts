/**
 * The HTTP floor for bench/http-load.ts: the least a Node service can do per request on this
 * machine with the same verification core. node:http (no framework, no JSON parsing, no schema,
 * no struct parsing, no metrics), the request body copied into one buffer and transferred to a
 * raw worker_threads worker (no pool library, no time limit), which runs the core path on the
 * next report of the same minted mix (bench/corePath.ts `runOne`: the real verification, checked
 * valid) and not on the request's own content; the answer is a fixed body of typical size. The
 * difference between this and the service prices our own front end; the gap between this and
 * workers ÷ core prices the machine (HTTP on loopback, thread hand-over, the load generator).
 * Usage (by http-load.ts): node --import tsx bench/floorServer.ts <port> <workers> <core-input.v8>
 */
import http from 'node:http';
import { readFileSync } from 'node:fs';
import { deserialize } from 'node:v8';
import { Worker } from 'node:worker_threads';

const [port, count, inputFile] = process.argv.slice(2);
const input = deserialize(readFileSync(inputFile!));

// Typical answer size (a typeB answer carries its certificates): reportValid true, padded to ≈ 3 KB.
const ANSWER = Buffer.from(JSON.stringify({ reportType: 'floor', reportValid: true, pad: 'x'.repeat(3000) }));

interface Job {
  body: Uint8Array;
  done: (ok: boolean) => void;
}
interface Slot {
  w: Worker;
  job: Job | undefined;
}

const queue: Job[] = [];
let k = 0;
const slots: Slot[] = [];

function dispatch(slot: Slot, job: Job): void {
  slot.job = job;
  slot.w.postMessage({ k: k++, body: job.body }, [job.body.buffer as ArrayBuffer]);
}

await Promise.all(
  Array.from({ length: Number(count) }, () =>
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

http
  .createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const all = Buffer.concat(chunks);
      const body = new Uint8Array(all.length);
      body.set(all);
      const job: Job = {
        body,
        done: (ok) => {
          res.writeHead(ok ? 200 : 500, { 'content-type': 'application/json', 'content-length': ANSWER.length });
          res.end(ANSWER);
        },
      };
      const free = slots.find((s) => s.job === undefined);
      if (free) dispatch(free, job);
      else queue.push(job);
    });
  })
  .listen(Number(port), '127.0.0.1', () => process.send?.('listening'));
process.on('SIGTERM', () => process.exit(0));
