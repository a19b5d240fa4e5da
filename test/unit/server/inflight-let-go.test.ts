/**
 * A keep-alive connection's HTTP parser keeps its last request, and so that request's listeners,
 * until the next request on the connection. The counted body (src/server/inflight.ts) listens on
 * the request and held the Fastify reply (its refusal path) and the chunk checks (jsonDepth.ts's
 * closes over the reply too): every open connection kept its last request's graph, body text and
 * parse included, alive across young-generation GCs, which promoted it (issue 35). Once the body
 * has ended, or was refused, the counted body lets go of them while the request stays reachable.
 */
import { EventEmitter, once } from 'node:events';
import { PassThrough, type Readable } from 'node:stream';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { addChunkCheck, inflightBytes } from '../../../src/server/inflight.js';

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

/** A body counted on `payload` (kept by the caller, as the parser keeps its request); WeakRefs to its reply and to what its check holds. */
async function countedBody(payload: PassThrough, body: Buffer, refuse: boolean): Promise<{ reply: WeakRef<object>; held: WeakRef<object> }> {
  const f = inflightBytes({ maxBytes: 1 << 20 });
  const reply = { raw: Object.assign(new EventEmitter(), { setHeader: () => undefined, headersSent: false }), text: 'x'.repeat(10_000) };
  const held = { parsed: 'y'.repeat(10_000) };
  let counter!: Readable;
  (f.preParsing as any)({ headers: { 'content-length': String(body.length) }, socket: { remoteAddress: '127.0.0.1' } }, reply, payload, (_e: unknown, c: Readable) => (counter = c));
  expect(addChunkCheck(counter, () => (refuse && held.parsed.length > 0 ? new Error('refused by the check') : undefined))).toBe(true);
  if (refuse) {
    const failed = once(counter, 'error');
    counter.resume();
    payload.write(body);
    await failed;
  } else {
    const ended = once(counter, 'end');
    counter.resume();
    payload.end(body);
    await ended;
  }
  reply.raw.emit('close');
  return { reply: new WeakRef(reply), held: new WeakRef(held) };
}

/** Lets the current job end (WeakRef targets are kept until then), then collects. */
async function collect(): Promise<void> {
  await new Promise((r) => setImmediate(r));
  gc();
  await new Promise((r) => setImmediate(r));
  gc();
}

describe('the counted body lets go of its request', () => {
  it('once its body has ended, the reply and what the checks hold are collectable while the request stays', async () => {
    const payload = new PassThrough();
    const refs = await countedBody(payload, Buffer.alloc(20_000, 0x20), false);
    await collect();
    expect(payload.readableEnded).toBe(true);
    expect(refs.reply.deref()).toBeUndefined();
    expect(refs.held.deref()).toBeUndefined();
  });

  it('once a check refused it, likewise (the rest of the body unread)', async () => {
    const payload = new PassThrough();
    const refs = await countedBody(payload, Buffer.alloc(20_000, 0x20), true);
    await collect();
    expect(payload.isPaused()).toBe(true);
    expect(refs.reply.deref()).toBeUndefined();
    expect(refs.held.deref()).toBeUndefined();
  });
});
