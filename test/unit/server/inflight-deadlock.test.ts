/**
 * The request-bytes bound counts bodies as they arrive (src/server/inflight.ts), so two bodies
 * can each hold part of the bound and both wait for the rest: no answer would ever free room. The
 * youngest is then refused at once (503, saying why) and the oldest goes on, without waiting for
 * the refusal timer (set here far beyond the test's own limit, so that only the deadlock rule can
 * end the wait). Driven with in-memory streams in place of the sockets.
 */
import { EventEmitter } from 'node:events';
import { PassThrough, type Transform } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { addChunkCheck, inflightBytes } from '../../../src/server/inflight.js';
import { until } from '../../support/wait.js';

/** A request's body handed to the counter: the raw payload, the response's raw socket stand-in and the counted stream. */
function counted(f: ReturnType<typeof inflightBytes>, length: number, remoteAddress = '127.0.0.1') {
  const payload = new PassThrough();
  const raw = Object.assign(new EventEmitter(), { setHeader: () => undefined });
  let counter!: Transform;
  (f.preParsing as any)({ headers: { 'content-length': String(length) }, socket: { remoteAddress } }, { raw }, payload, (_e: unknown, c: Transform) => (counter = c));
  return { payload, raw, counter };
}

function request(f: ReturnType<typeof inflightBytes>, length: number) {
  const { payload, raw, counter } = counted(f, length);
  let forwarded = 0;
  let error: Error | undefined;
  counter.on('data', (d: Buffer) => (forwarded += d.length));
  counter.on('error', (e) => (error = e));
  return { send: (n: number) => payload.write(Buffer.alloc(n, 0x20)), forwarded: () => forwarded, error: () => error, answered: () => raw.emit('close') };
}

describe('request bytes counted as they arrive', () => {
  it('when every holder waits for room, the youngest is refused at once and the oldest goes on', async () => {
    const f = inflightBytes({ maxBytes: 100_000, waitMs: 600_000 });
    const a = request(f, 100_000);
    const b = request(f, 100_000);
    a.send(50_000);
    await until('A counted', () => a.forwarded() === 50_000);
    b.send(40_000);
    await until('B counted', () => b.forwarded() === 40_000);
    // A's rest does not fit (90 000 held): it waits, while B is still arriving.
    a.send(50_000);
    await until('A waiting', () => f.waiting === 1);
    expect(b.error()).toBeUndefined();
    // B's rest does not fit either: both wait, nothing would free room.
    b.send(60_000);
    const refused = await until('B refused', () => b.error());
    expect((refused as { code?: string }).code).toBe('HTTP_INFLIGHT_LIMIT');
    expect(refused.message).toMatch(/had 40000 bytes of its body in and every request holding bytes is waiting for room/);
    await until('A taken', () => a.forwarded() === 100_000);
    expect([f.held, f.waiting, f.refused]).toEqual([100_000, 0, 1]);
    a.answered();
    expect(f.held).toBe(0);
  });

  it('a body promised but not sent holds nothing', async () => {
    const f = inflightBytes({ maxBytes: 100_000 });
    const slow = request(f, 100_000);
    slow.send(1);
    await until('counted', () => slow.forwarded() === 1);
    expect(f.held).toBe(1);
  });

  it('a chunk that waits is passed on once taken, then the rest of its body, in order, and then its end', async () => {
    const f = inflightBytes({ maxBytes: 100, waitMs: 600_000 });
    const a = request(f, 80);
    a.send(80);
    await until('A counted', () => a.forwarded() === 80);
    const { payload, raw, counter } = counted(f, 60, '127.0.0.2');
    const got: Buffer[] = [];
    let ended = false;
    counter.on('data', (d: Buffer) => got.push(d));
    counter.on('end', () => (ended = true));
    // B's first chunk does not fit (80 held): it waits; its second chunk and its end arrive meanwhile.
    payload.write(Buffer.alloc(30, 1));
    await until('B waiting', () => f.waiting === 1);
    payload.end(Buffer.alloc(30, 2));
    await new Promise((r) => setImmediate(r));
    expect([got.length, ended, f.held]).toEqual([0, false, 80]);
    a.answered();
    await until('B ended', () => ended);
    expect(Buffer.concat(got)).toEqual(Buffer.concat([Buffer.alloc(30, 1), Buffer.alloc(30, 2)]));
    expect([f.held, f.waiting, f.refused]).toEqual([60, 0, 0]);
    raw.emit('close');
    expect(f.held).toBe(0);
  });

  it('a body that arrived whole before it is read: its end, come while its chunk waits, is passed on after the chunk', async () => {
    const f = inflightBytes({ maxBytes: 100, waitMs: 600_000 });
    const a = request(f, 80);
    a.send(80);
    await until('A counted', () => a.forwarded() === 80);
    const { payload, raw, counter } = counted(f, 60, '127.0.0.2');
    payload.end(Buffer.alloc(60, 3));
    await new Promise((r) => setImmediate(r));
    const got: Buffer[] = [];
    let ended = false;
    counter.on('data', (d: Buffer) => got.push(d));
    counter.on('end', () => (ended = true));
    await until('B waiting', () => f.waiting === 1);
    await new Promise((r) => setImmediate(r));
    expect([got.length, ended]).toEqual([0, false]);
    a.answered();
    await until('B ended', () => ended);
    expect(Buffer.concat(got)).toEqual(Buffer.alloc(60, 3));
  });

  it('a body refused by a chunk check (the depth scan) is not read further', async () => {
    const f = inflightBytes({ maxBytes: 100_000 });
    const { payload, counter } = counted(f, 50_000);
    expect(addChunkCheck(counter, (chunk) => (chunk[0] === 0x5b ? new Error('too deep') : undefined))).toBe(true);
    let error: Error | undefined;
    counter.on('error', (e) => (error = e));
    counter.on('data', () => undefined);
    payload.write(Buffer.alloc(10_000, 0x20));
    await until('first chunk counted', () => f.held === 10_000);
    payload.write(Buffer.alloc(10_000, 0x5b));
    await until('refused', () => error);
    payload.write(Buffer.alloc(30_000, 0x20));
    await new Promise((r) => setImmediate(r));
    expect(payload.readableLength).toBe(30_000);
  });

  it('a body nobody reads (answered 404, 413… without it) is not pulled in nor counted', async () => {
    const f = inflightBytes({ maxBytes: 100_000 });
    const payload = new PassThrough();
    const raw = Object.assign(new EventEmitter(), { setHeader: () => undefined });
    (f.preParsing as any)({ headers: { 'content-length': '50000' }, socket: { remoteAddress: '127.0.0.1' } }, { raw }, payload, () => undefined);
    payload.write(Buffer.alloc(50_000));
    await new Promise((r) => setImmediate(r));
    expect([f.held, payload.readableLength]).toEqual([0, 50_000]);
  });
});
