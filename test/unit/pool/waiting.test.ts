import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { describe, expect, it } from 'vitest';
import { Deadline } from '../../../src/pool/deadlines.js';
import { COALESCE_MAX, Waiting, type Job } from '../../../src/pool/waiting.js';
import type { VerifyTask } from '../../../src/pool/task.js';

const bytes: VerifyTask = { op: 'bytes', userData: new Uint8Array(1), report: new Uint8Array(1) };
const response = { op: 'response', entry: {} } as unknown as VerifyTask;
const job = (task: VerifyTask, name: string, alone = false): Job & { name: string } => ({
  name,
  task,
  transfer: [],
  mayNeedCollateral: false,
  deadline: new Deadline(0),
  submittedAt: 0,
  t0: 0,
  ...(alone ? { alone } : {}),
  settle: () => undefined,
});
setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;

const names = (js: Job[]) => js.map((j) => (j as Job & { name: string }).name);

describe('Waiting: which waiting tasks a free worker takes together', () => {
  it('takes a single report with the single reports right behind it, at most COALESCE_MAX, in order', () => {
    const w = new Waiting();
    for (let i = 0; i < COALESCE_MAX + 2; i++) w.push(job(bytes, `b${i}`));
    expect(names(w.take())).toEqual(Array.from({ length: COALESCE_MAX }, (_, i) => `b${i}`));
    expect(names(w.take())).toEqual([`b${COALESCE_MAX}`, `b${COALESCE_MAX + 1}`]);
    expect(w.take()).toEqual([]);
    expect(w.size).toBe(0);
  });

  it("takes at most a worker's share of the backlog: a short queue one at a time, a long one in batches", () => {
    const w = new Waiting();
    for (let i = 0; i < 3; i++) w.push(job(bytes, `s${i}`));
    // 3 waiting, 2 workers: a share of 1 each
    expect(names(w.take(2))).toEqual(['s0']);
    for (let i = 0; i < 8; i++) w.push(job(bytes, `l${i}`));
    // 10 waiting: a share of 5, capped at COALESCE_MAX
    expect(w.take(2)).toHaveLength(COALESCE_MAX);
    // 6 waiting: a share of 3
    expect(w.take(2)).toHaveLength(3);
    expect(w.size).toBe(3);
  });

  it('never joins a POST /verify entry or a task that already failed in a shared batch', () => {
    const w = new Waiting();
    for (const j of [job(response, 'r0'), job(bytes, 'b0'), job(bytes, 'b1'), job(bytes, 'a0', true), job(bytes, 'b2'), job(response, 'r1'), job(bytes, 'b3')]) w.push(j);
    const order: string[][] = [];
    while (w.size > 0) order.push(names(w.take()));
    expect(order).toEqual([['r0'], ['b0', 'b1'], ['a0'], ['b2'], ['r1'], ['b3']]);
  });

  it('puts jobs back at the front in their order, and removes a job that no longer waits', () => {
    const w = new Waiting();
    const [x, y, z] = [job(bytes, 'x'), job(bytes, 'y', true), job(bytes, 'z', true)];
    w.push(x);
    w.unshift([y, z]);
    expect(w.remove(z)).toBe(true);
    expect(w.remove(z)).toBe(false);
    expect(names(w.take())).toEqual(['y']);
    expect(names(w.take())).toEqual(['x']);
  });

  it('keeps no job once taken: a long queue taken job by job holds nothing of them (their bytes, their settled results)', async () => {
    const w = new Waiting();
    const refs: WeakRef<Job>[] = [];
    // Fewer taken than the compaction threshold (1,024), so that only clearing the slots frees them.
    for (let i = 0; i < 200; i++) {
      const j = job({ op: 'bytes', userData: new Uint8Array(1024), report: new Uint8Array(1024) }, `k${i}`);
      refs.push(new WeakRef(j));
      w.push(j);
    }
    w.push(job(response, 'last'));
    // One at a time (a share of the backlog of less than one per worker).
    let taken = 0;
    for (let i = 0; i < 200; i++) taken += w.take(1_000).length;
    expect(taken).toBe(200);
    expect(w.size).toBe(1);
    // WeakRefs hold their targets until the current job ends: collect after a turn of the loop.
    await new Promise((r) => setImmediate(r));
    gc();
    // (A stray reference of the engine's to the last one or two is not the queue's: all 200 were kept before.)
    expect(refs.filter((r) => r.deref() !== undefined).length).toBeLessThan(5);
    expect(names(w.take())).toEqual(['last']);
  });
});
