/**
 * combinedSignal (src/upstream/abort.ts): a source shared by many requests at once holds one 'abort'
 * listener whatever their number (no MaxListenersExceededWarning), the last done() removes it, and
 * aborting any source aborts every combination still pending with its reason.
 */
import { getEventListeners } from 'node:events';
import { describe, expect, it } from 'vitest';
import { combinedSignal } from '../../../src/upstream/abort.js';

describe('combinedSignal', () => {
  it('keeps one listener on a shared source for 1 000 concurrent combinations, and none once all are done', () => {
    const shutdown = new AbortController();
    const warnings: Error[] = [];
    const onWarning = (w: Error) => warnings.push(w);
    process.on('warning', onWarning);
    try {
      const list = Array.from({ length: 1000 }, () => combinedSignal([shutdown.signal, new AbortController().signal]));
      expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(1);
      for (const c of list.slice(0, 999)) c.done();
      expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(1);
      list[999]!.done();
      expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
      // A later combination subscribes again.
      const again = combinedSignal([shutdown.signal]);
      expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(1);
      again.done();
    } finally {
      process.off('warning', onWarning);
    }
    expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
  });

  it('aborts every pending combination with the source reason, and not those already done', () => {
    const shutdown = new AbortController();
    const pending = Array.from({ length: 20 }, () => combinedSignal([new AbortController().signal, shutdown.signal]));
    const finished = combinedSignal([shutdown.signal]);
    finished.done();
    shutdown.abort(new Error('shutting down'));
    for (const c of pending) {
      expect(c.signal.aborted).toBe(true);
      expect((c.signal.reason as Error).message).toBe('shutting down');
    }
    expect(finished.signal.aborted).toBe(false);
    expect(getEventListeners(shutdown.signal, 'abort')).toHaveLength(0);
  });

  it('follows a timeout source and is aborted at once by an already aborted one', async () => {
    const t = combinedSignal([new AbortController().signal, AbortSignal.timeout(1)]);
    await new Promise<void>((res) => t.signal.addEventListener('abort', () => res(), { once: true }));
    expect((t.signal.reason as Error).name).toBe('TimeoutError');
    t.done();
    const gone = new AbortController();
    gone.abort('early');
    expect(combinedSignal([gone.signal]).signal.reason).toBe('early');
  });
});
