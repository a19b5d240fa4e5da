import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Deadline, Deadlines } from '../../../src/pool/deadlines.js';

// Fake timers and a fake performance clock: the sweep is checked at exact instants.
const sleep = async (ms: number) => {
  await vi.advanceTimersByTimeAsync(ms);
};

describe('pool task deadlines', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setInterval', 'clearInterval', 'setTimeout', 'clearTimeout', 'performance'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  it('fires a deadline once its limit has passed, not before, with a reason', async () => {
    const dl = new Deadlines(40);
    expect(dl.periodMs).toBe(4);
    const d = dl.start();
    let fired = 0;
    d.once('abort', () => fired++);
    await sleep(39);
    expect(fired).toBe(0);
    expect(d.aborted).toBe(false);
    await sleep(5);
    expect(fired).toBe(1);
    expect(d.aborted).toBe(true);
    expect(String(d.reason)).toMatch(/40 ms/);
    expect(dl.size).toBe(0);
    d.fire(new Error('again'));
    expect(fired).toBe(1);
  });
  it('never fires a deadline that was ended, or whose listener was removed', async () => {
    const dl = new Deadlines(10);
    const a = dl.start();
    const b = dl.start();
    let fa = 0;
    let fb = 0;
    a.once('abort', () => fa++);
    const lb = () => fb++;
    b.once('abort', lb);
    dl.end(a);
    b.removeListener('abort', lb);
    await sleep(40);
    expect(fa).toBe(0);
    expect(a.aborted).toBe(false);
    expect(fb).toBe(0);
    expect(b.aborted).toBe(true); // expired, with nobody listening any more
    dl.stop();
  });
  it('expires deadlines in start order and leaves later ones running', async () => {
    const dl = new Deadlines(30);
    const early = dl.start();
    await sleep(20);
    const late = dl.start();
    await sleep(13); // early is past its limit, late is not
    expect(early.aborted).toBe(true);
    expect(late.aborted).toBe(false);
    expect(dl.size).toBe(1);
    await sleep(30);
    expect(late.aborted).toBe(true);
    expect(dl.size).toBe(0);
  });
  it('clamps the sweep period and refuses a non-positive limit', () => {
    expect(new Deadlines(1).periodMs).toBe(1);
    expect(new Deadlines(60_000).periodMs).toBe(100);
    expect(() => new Deadlines(0)).toThrow(RangeError);
    expect(() => new Deadlines(Number.NaN)).toThrow(RangeError);
    expect(new Deadline(0).aborted).toBe(false);
  });
});

describe('pool task deadlines, real timers', () => {
  it('the sweep timer does not keep the process alive and stops when nothing is outstanding', async () => {
    const dl = new Deadlines(5);
    const d = dl.start();
    const timer = (dl as unknown as { timer?: NodeJS.Timeout }).timer;
    expect(timer?.hasRef()).toBe(false);
    // The deadline's own abort is the event waited for (then the sweep that fired it has returned).
    await new Promise<void>((r) => d.once('abort', () => setImmediate(r)));
    expect(d.aborted).toBe(true);
    expect((dl as unknown as { timer?: NodeJS.Timeout }).timer).toBeUndefined();
  });
});
