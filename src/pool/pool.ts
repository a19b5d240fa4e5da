/**
 * The verification worker pool shared by the server, the bulk CLI and the benchmarks. It transports
 * bytes (or a POST /verify entry) and results (for POST /decodeReport, the answer's bytes made in
 * the worker: decodeReportAnswer): a Piscina worker runs the verification core, and
 * asks the main thread for collateral when a report reaches its collateral step
 * (collateralPort.ts; the task's deadline is held while the source answers). The queue is
 * bounded (POOL_OVERLOADED at once when full), every task has a time limit (POOL_TASK_TIMEOUT,
 * the worker is replaced), and a crashed worker fails only its own task (POOL_WORKER_FAILED).
 */
import { randomUUID } from 'node:crypto';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Piscina } from 'piscina';
import { VerifierError } from '../errors.js';
import { PACKAGE_ROOT } from '../packageRoot.js';
import { decodeUserDataText, parseReportTexts, structFailure } from '../verify/verifyReport.js';
import type { DecodeOutcome, DecodeReportOptions, ReportAnswer, ReportTexts, VerifierService, VerifyOutcome } from '../verify/types.js';
import { decodeReportAnswer } from '../verify/decodeReportAnswer.js';
import type { ReportCheck } from '../verify/types.js';
import type { AttestationResponse } from '../verify/attestationResponseSchema.js';
import { findReportKind, wireKind } from '../verify/kinds/index.js';
import type { PoolCode } from './errors.js';
import type { BatchItem, BytesTask, VerifyTask, WorkerSetup } from './task.js';
import { CollateralDesk, type CollateralFetcher } from './collateralPort.js';
import { Deadline, Deadlines } from './deadlines.js';
import { Waiting, type Job } from './waiting.js';
import { epochMs, stagesOf, type StampedResult, type TaskStages } from './stages.js';

export interface PoolOptions {
  threads: number;
  maxQueue: number;
  taskTimeoutMs: number;
  /**
   * V8 limits of each worker (Node's Worker resourceLimits). A verification keeps little past its
   * task: the server and the CLI cap the young generation (config workerYoungGenerationMb), whose
   * semi-spaces otherwise grow to 16 MiB each per busy worker. No old generation limit: a worker
   * over it is not reliably stopped alone, one large allocation aborts the whole process
   * (nodejs/node#47224), where the young generation's limit only makes objects move on sooner.
   * A --max-semi-space-size node flag takes precedence over it (V8 reads the flag last).
   */
  resourceLimits?: WorkerResourceLimits;
  setup: WorkerSetup;
  collateral?: CollateralFetcher;
  /**
   * How long a worker reuses the collateral it was given for a subject before asking the main
   * thread again (ms; default 0: every task that reaches its collateral step asks). A version the
   * main thread had not packed before makes every worker drop what it reuses (collateralReuse.ts).
   */
  collateralReuseMs?: number;
  /** Called with the duration of each task from submission to result (queueing included). */
  onTaskDone?: (seconds: number) => void;
  /** Called with the stages of each task a worker answered (queue wait, run, collateral wait, GC pauses: stages.ts). */
  onTaskStages?: (stages: TaskStages) => void;
}

/** The part of Node's ResourceLimits the pool passes on (MiB). */
export interface WorkerResourceLimits {
  maxYoungGenerationSizeMb?: number;
}

export interface PoolStats {
  threads: number;
  queueSize: number;
  utilization: number;
  completed: number;
  /** Reports verified in a batch task shared with other single reports because every worker was busy (waiting.ts). */
  coalesced: number;
}

/** The worker entry: compiled JS next to dist/, or the TypeScript source run through tsx. */
function workerEntry(): { filename: string; execArgv: string[] } {
  const fromSource = import.meta.url.endsWith('.ts');
  if (fromSource) return { filename: resolve(PACKAGE_ROOT, 'workers/verifyWorker.ts'), execArgv: ['--import', pathToFileURL(createRequire(import.meta.url).resolve('tsx')).href] };
  const js = resolve(PACKAGE_ROOT, 'dist/workers/verifyWorker.js');
  if (!existsSync(js)) throw new Error(`worker entry ${js} is missing: run npm run build`);
  return { filename: js, execArgv: [] };
}

function poolError(code: PoolCode, message: string, cause?: unknown): VerifierError<PoolCode> {
  return new VerifierError<PoolCode>(code, message, cause === undefined ? undefined : { cause });
}

export class VerifierPool implements VerifierService {
  private readonly piscina: Piscina;
  private closed = false;
  /** Tasks handed to Piscina and not yet settled (running + queued). */
  private inFlight = 0;
  private readonly desk: CollateralDesk | undefined;
  private readonly deadlines: Deadlines;
  /** Tasks submitted and not yet handed to a worker (waiting.ts). */
  private readonly waiting = new Waiting();
  /** Piscina tasks running (at most one per worker: each is abortable). */
  private running = 0;
  /** Reports verified in a shared batch task since start (waiting.ts). */
  private coalesced = 0;
  /** Called when the last task in flight settles (close() waits for it). */
  private onDrained: (() => void) | undefined = undefined;

  constructor(private readonly opts: PoolOptions) {
    this.deadlines = new Deadlines(opts.taskTimeoutMs);
    this.desk = opts.collateral ? new CollateralDesk(opts.collateral, `verifier-collateral-${randomUUID()}`) : undefined;
    const collateralSetup = this.desk
      ? { collateralChannel: this.desk.channel, collateralReuseMs: opts.collateralReuseMs ?? 0, ...(opts.collateral?.rawAsOf ? { collateralAsOf: true as const } : {}) }
      : {};
    const entry = workerEntry();
    this.piscina = new Piscina({
      filename: entry.filename,
      execArgv: entry.execArgv,
      minThreads: opts.threads,
      maxThreads: opts.threads,
      // Piscina's own queue limit is not applied to abortable tasks; VerifierPool bounds it.
      idleTimeout: 60_000,
      ...(opts.resourceLimits ? { resourceLimits: { ...opts.resourceLimits } } : {}),
      workerData: { ...opts.setup, ...collateralSetup },
    });
  }

  decode(userData: string): DecodeOutcome {
    return decodeUserDataText(userData);
  }

  async decodeReport(userDataText: string, reportText: string, o: DecodeReportOptions = {}): Promise<VerifyOutcome> {
    const task = parseReportTexts(userDataText, reportText, o);
    if ('error' in task) return structFailure(task.error);
    return o.asOf === undefined ? this.verifyBytes(task) : (await this.verifyBytesMany([{ ...task, asOf: o.asOf }]))[0]!;
  }

  /**
   * POST /decodeReport's answer: the worker verifies and serialises it, and transfers its bytes
   * (the HTTP thread receives no outcome to deserialise and serialise again); a struct text that
   * does not parse is answered here, as decodeReport's outcome would be.
   */
  async decodeReportAnswer(userDataText: string, reportText: string, o: { nonce?: string } = {}): Promise<ReportAnswer> {
    const task = parseReportTexts(userDataText, reportText, o);
    return 'error' in task ? decodeReportAnswer(structFailure(task.error)) : ((await this.runBytes(task, true)) as ReportAnswer);
  }

  /** Verifies parsed bytes; the byte arrays are transferred to the worker (unusable afterwards). */
  async verifyBytes(t: { userData: Uint8Array; report: Uint8Array; nonce?: Uint8Array }): Promise<VerifyOutcome> {
    return (await this.runBytes(t, false)) as VerifyOutcome;
  }

  /** One report's task, its bytes transferred: its outcome, or its answer (`answer`). */
  private runBytes(t: { userData: Uint8Array; report: Uint8Array; nonce?: Uint8Array }, answer: boolean): Promise<unknown> {
    const task: VerifyTask = { op: 'bytes', userData: t.userData, report: t.report, ...(t.nonce ? { nonce: t.nonce } : {}), ...(answer ? { answer: true as const } : {}) };
    const transfer = [t.userData.buffer, t.report.buffer].filter((b, i, all) => all.indexOf(b) === i) as ArrayBuffer[];
    return this.run(task, transfer, findReportKind(t.report)?.collateral !== undefined);
  }

  /**
   * Verifies several parsed reports in one worker task (their userData hashed in one call; the
   * arrays are transferred). One task for the queue bound and the time limit: callers keep batches
   * small (the CLI and the watcher send at most UPDATE_BATCH).
   */
  async verifyBytesMany(items: readonly Omit<BatchItem, 'answer'>[]): Promise<VerifyOutcome[]> {
    if (items.length === 0) return [];
    const task: VerifyTask = {
      op: 'bytesMany',
      items: items.map((t) => ({
        userData: t.userData,
        report: t.report,
        ...(t.nonce ? { nonce: t.nonce } : {}),
        ...(t.requestKeys !== undefined ? { requestKeys: t.requestKeys } : {}),
        ...(t.asOf !== undefined ? { asOf: t.asOf } : {}),
      })),
    };
    const buffers = items.flatMap((t) => [t.userData.buffer, t.report.buffer]);
    const transfer = buffers.filter((b, i) => buffers.indexOf(b) === i) as ArrayBuffer[];
    const mayNeedCollateral = items.some((t) => findReportKind(t.report)?.collateral !== undefined);
    return (await this.run(task, transfer, mayNeedCollateral)) as VerifyOutcome[];
  }

  /** decodeReport of each pair: the pairs that parse are verified in one verifyBytesMany task. */
  async decodeReports(pairs: readonly ReportTexts[]): Promise<VerifyOutcome[]> {
    const parsed = pairs.map((p) => {
      const t = parseReportTexts(p.userData, p.report);
      return 'error' in t ? t : { ...t, ...(p.requestKeys !== undefined ? { requestKeys: p.requestKeys } : {}), ...(p.asOf !== undefined ? { asOf: p.asOf } : {}) };
    });
    const ok = parsed.filter((t): t is Exclude<typeof t, { error: unknown }> => !('error' in t));
    const verified = await this.verifyBytesMany(ok);
    let next = 0;
    return parsed.map((t) => ('error' in t ? structFailure(t.error) : verified[next++]!));
  }

  /** Checks one POST /verify entry in a worker (structured-cloned). */
  async checkResponse(entry: AttestationResponse): Promise<ReportCheck> {
    return (await this.run({ op: 'response', entry }, [], wireKind(entry.reportType).collateral !== undefined)) as ReportCheck;
  }

  /**
   * Throws what run() would throw for the last of `count` tasks submitted now (POOL_CLOSED,
   * POOL_OVERLOADED); nothing is reserved, so a caller that submits them in the same turn of the
   * event loop has them all taken (POST /verify: a batch is taken whole or refused whole).
   */
  admit(count: number): void {
    this.refusal(count);
  }

  /** The most tasks the pool ever holds at once (running + waiting): threads + maxQueue. */
  get capacity(): number {
    return this.opts.threads + this.opts.maxQueue;
  }

  /** The queue bound (running + waiting ≤ threads + maxQueue), checked before anything is handed over. */
  private refusal(count: number): void {
    if (this.closed) throw poolError('POOL_CLOSED', 'the verification pool is shut down');
    const capacity = this.capacity;
    if (this.inFlight + count > capacity) {
      const what = count > 1 ? `; a batch of ${count} needs ${count} free places of ${capacity}` : '';
      throw poolError('POOL_OVERLOADED', `the verifier is overloaded: ${this.inFlight} verifications running or queued${what}; retry shortly`);
    }
  }

  private run(task: VerifyTask, transfer: ArrayBuffer[], mayNeedCollateral: boolean): Promise<unknown> {
    // The bound is enforced before anything is handed over, so an overloaded verifier answers at once.
    this.refusal(1);
    this.inFlight++;
    return new Promise((resolve, reject) => {
      const job: Job = {
        task,
        transfer,
        mayNeedCollateral,
        deadline: this.deadlines.start(),
        submittedAt: epochMs(),
        t0: performance.now(),
        settle: (r) => {
          this.deadlines.end(job.deadline);
          this.inFlight--;
          this.opts.onTaskDone?.((performance.now() - job.t0) / 1000);
          if (r.ok) resolve(r.value);
          else reject(r.error);
          if (this.inFlight === 0) this.onDrained?.();
        },
      };
      this.wait(job);
      this.pump();
    });
  }

  /** A job joins the waiting ones; its time limit passing while it waits fails it there. */
  private wait(job: Job): void {
    this.waiting.push(job);
    this.timeWhileWaiting(job);
  }

  /** Until a worker takes the job (Piscina then listens to its deadline instead), its deadline fails it where it waits. */
  private timeWhileWaiting(job: Job): void {
    job.deadline.once('abort', () => {
      if (this.waiting.remove(job)) job.settle({ ok: false, error: this.timeout() });
    });
  }

  private timeout(cause?: unknown): VerifierError<PoolCode> {
    return poolError('POOL_TASK_TIMEOUT', `verification did not finish within ${this.opts.taskTimeoutMs} ms`, cause);
  }

  /** Hands waiting jobs to the workers free now: one task per worker, single reports coalesced (waiting.ts). */
  private pump(): void {
    while (this.running < this.opts.threads && this.waiting.size > 0) {
      const group = this.waiting.take(this.opts.threads);
      this.running++;
      const done = (group.length === 1 ? this.runAlone(group[0]!) : this.runShared(group)).finally(() => {
        this.running--;
        this.pump();
      });
      void done;
    }
  }

  /** One job as one Piscina task, its bytes transferred, aborted by its own deadline. */
  private async runAlone(job: Job): Promise<void> {
    const ticket = job.mayNeedCollateral ? this.desk?.open((on) => this.hold([job.deadline], on)) : undefined;
    if (ticket !== undefined) job.task.collateralTicket = ticket;
    try {
      const { result, stamps } = (await this.piscina.run(job.task, { transferList: job.transfer, signal: job.deadline })) as StampedResult<unknown>;
      this.opts.onTaskStages?.(stagesOf(job.submittedAt, stamps));
      job.settle({ ok: true, value: result });
    } catch (e) {
      // The deadline knows whether it fired; anything else failed the worker.
      job.settle({ ok: false, error: job.deadline.aborted ? this.timeout(e) : poolError('POOL_WORKER_FAILED', 'the verification worker failed on this request; retry', e) });
    } finally {
      if (ticket !== undefined) this.desk?.close(ticket);
    }
  }

  /**
   * Single-report jobs as one batch task (bytes copied, not transferred), aborted when the first
   * member's deadline fires; each member gets what it would get alone (its outcome, or its
   * answer). When the batch fails, each member whose own time limit has not passed waits again,
   * at the front, to run alone.
   */
  private async runShared(group: Job[]): Promise<void> {
    const signal = new Deadline(0);
    for (const j of group) j.deadline.once('abort', () => signal.fire(j.deadline.reason));
    const items = group.map((j) => {
      const t = j.task as BytesTask;
      return { userData: t.userData, report: t.report, ...(t.nonce ? { nonce: t.nonce } : {}), ...(t.answer ? { answer: t.answer } : {}) };
    });
    const task: VerifyTask = { op: 'bytesMany', items };
    const ticket = group.some((j) => j.mayNeedCollateral) ? this.desk?.open((on) => this.hold(group.map((j) => j.deadline), on)) : undefined;
    if (ticket !== undefined) task.collateralTicket = ticket;
    this.coalesced += group.length;
    try {
      const { result, stamps } = (await this.piscina.run(task, { signal })) as StampedResult<unknown[]>;
      for (const [i, j] of group.entries()) {
        this.opts.onTaskStages?.(stagesOf(j.submittedAt, stamps));
        j.settle({ ok: true, value: result[i] });
      }
    } catch (e) {
      const again: Job[] = [];
      for (const j of group) {
        if (j.deadline.aborted) j.settle({ ok: false, error: this.timeout(e) });
        else again.push(j);
      }
      for (const j of again) {
        j.alone = true;
        this.timeWhileWaiting(j);
      }
      this.waiting.unshift(again);
    } finally {
      if (ticket !== undefined) this.desk?.close(ticket);
    }
  }

  /** While the main thread fetches a task's collateral, its time limit is held. */
  private hold(deadlines: readonly Deadline[], on: boolean): void {
    for (const d of deadlines) {
      if (on) this.deadlines.suspend(d);
      else this.deadlines.resume(d);
    }
  }

  /** The young generation limit each live worker runs under, as its V8 reports it (MiB). */
  workerResourceLimits(): WorkerResourceLimits[] {
    return this.piscina.threads.map((w) => {
      const l = w.resourceLimits ?? {};
      return l.maxYoungGenerationSizeMb !== undefined ? { maxYoungGenerationSizeMb: l.maxYoungGenerationSizeMb } : {};
    });
  }

  stats(): PoolStats {
    return {
      threads: this.piscina.threads.length,
      queueSize: this.waiting.size,
      utilization: this.piscina.utilization,
      completed: this.piscina.completed,
      coalesced: this.coalesced,
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    // Tasks already taken run to their end (or their time limit): the waiting ones are handed over first.
    if (this.inFlight > 0) await new Promise<void>((resolve) => (this.onDrained = resolve));
    await this.piscina.close();
    this.deadlines.stop();
    this.desk?.shutdown();
  }
}
