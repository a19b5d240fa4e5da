/**
 * Where a pool task's time goes, measured per stage so that an operator (verifier_pool_* metrics)
 * and the HTTP load bench can tell a queue from a collateral wait from a GC pause. The worker
 * stamps when it took the task up and how long it ran, the time it waited for the main thread's
 * collateral, and the GC pauses its thread had since its previous result; the main thread adds
 * the queue wait (submission → worker start). Times across threads are compared on the shared
 * epoch clock (performance.timeOrigin + performance.now(): the same in every thread of a process).
 */
import { PerformanceObserver } from 'node:perf_hooks';

/** Epoch ms with sub-ms resolution, comparable between the threads of one process. */
export const epochMs = (): number => performance.timeOrigin + performance.now();

/** What a worker sends back with each result. */
export interface WorkerStamps {
  /** Epoch ms at which the worker took the task up. */
  startedAt: number;
  /** Worker start → result, seconds. */
  runSeconds: number;
  /** Seconds waited for the main thread's collateral (undefined: the task did not ask). */
  collateralWaitSeconds?: number;
  /** GC pauses (seconds) of the worker's thread since its previous result (at most GC_PAUSES_KEPT). */
  gcPauses: number[];
}

/** The stages of one task as the pool reports them (PoolOptions.onTaskStages). */
export interface TaskStages {
  /** Submission → the worker took the task up. */
  queueWaitSeconds: number;
  /** The worker took it up → its result. */
  runSeconds: number;
  collateralWaitSeconds?: number;
  gcPauses: number[];
}

/** The worker's answer: the result and its stamps. */
export interface StampedResult<R> {
  result: R;
  stamps: WorkerStamps;
}

const GC_PAUSES_KEPT = 64;

/** Worker: GC pauses of this thread as perf_hooks reports them, taken (and cleared) with each result. */
export function gcPauseLog(): () => number[] {
  let pauses: number[] = [];
  const obs = new PerformanceObserver((list) => {
    for (const e of list.getEntries()) if (pauses.length < GC_PAUSES_KEPT) pauses.push(e.duration / 1000);
  });
  obs.observe({ entryTypes: ['gc'] });
  return () => {
    const out = pauses;
    pauses = [];
    return out;
  };
}

/** Main thread: the task's stages from its submission time (epoch ms) and the worker's stamps. */
export function stagesOf(submittedAt: number, s: WorkerStamps): TaskStages {
  return {
    queueWaitSeconds: Math.max(0, (s.startedAt - submittedAt) / 1000),
    runSeconds: s.runSeconds,
    ...(s.collateralWaitSeconds !== undefined ? { collateralWaitSeconds: s.collateralWaitSeconds } : {}),
    gcPauses: s.gcPauses,
  };
}
