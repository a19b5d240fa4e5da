/**
 * Tasks submitted to the pool while every worker is busy, in submission order. When a worker
 * frees up, the next task is handed over, and with it the single-report tasks (`op: 'bytes'`,
 * POST /decodeReport) that follow it, up to its share of the backlog and `COALESCE_MAX` in all,
 * as one batch task: the worker
 * verifies them in a row (their userData hashed in one call) instead of waiting, between each,
 * for the main thread to hand it the next. Tasks are coalesced only when they were going to wait
 * anyway, so an idle pool runs each task alone at once, and a task that failed in a shared batch
 * (its worker crashed, the batch hit a member's time limit) is run again alone (`alone`): a worker
 * failure still fails only the task that caused it.
 */
import type { Deadline } from './deadlines.js';
import type { VerifyTask } from './task.js';

/** Most single-report tasks handed to one worker at once. */
export const COALESCE_MAX = 4;

export interface Job {
  task: VerifyTask;
  /** Buffers transferred with the task when it runs alone (a shared batch copies them, so that its members can run again). */
  transfer: ArrayBuffer[];
  mayNeedCollateral: boolean;
  deadline: Deadline;
  /** Epoch ms of submission (the queue wait's start). */
  submittedAt: number;
  /** performance.now() at submission (the task's duration's start). */
  t0: number;
  /** Run it alone: it failed once in a shared batch. */
  alone?: boolean;
  settle(result: { ok: true; value: unknown } | { ok: false; error: unknown }): void;
}

const coalescible = (j: Job): boolean => j.task.op === 'bytes' && j.alone !== true;

export class Waiting {
  /** Jobs from `head` on wait; the slots before it are cleared as they are taken (no task's bytes kept). */
  private jobs: (Job | undefined)[] = [];
  private head = 0;

  get size(): number {
    return this.jobs.length - this.head;
  }

  push(j: Job): void {
    this.jobs.push(j);
  }

  /** Puts jobs back at the front, in their order (they run before anything submitted later). */
  unshift(js: readonly Job[]): void {
    this.jobs = [...js, ...this.jobs.slice(this.head)];
    this.head = 0;
  }

  /** Removes one job (its time limit passed while it waited); false when it is no longer waiting. */
  remove(j: Job): boolean {
    const i = this.jobs.indexOf(j, this.head);
    if (i < 0) return false;
    this.jobs.splice(i, 1);
    return true;
  }

  /**
   * The next job, and the single-report jobs right behind it when it is one: at most `workers`' fair
   * share of the jobs waiting (their number divided by the workers, rounded down) and at most
   * COALESCE_MAX in all. A short queue (moderate load) is thus taken one job at a time, so that no
   * report waits for others verified before it in its task; only a backlog is taken in batches.
   */
  take(workers = 1): Job[] {
    if (this.size === 0) return [];
    const most = Math.max(1, Math.min(COALESCE_MAX, Math.floor(this.size / Math.max(1, workers))));
    const first = this.next();
    const group = [first];
    if (coalescible(first)) {
      while (group.length < most && this.head < this.jobs.length && coalescible(this.jobs[this.head]!)) group.push(this.next());
    }
    if (this.head > 1024 && this.head * 2 > this.jobs.length) {
      this.jobs = this.jobs.slice(this.head);
      this.head = 0;
    }
    return group;
  }

  private next(): Job {
    const j = this.jobs[this.head]!;
    this.jobs[this.head++] = undefined;
    return j;
  }
}
