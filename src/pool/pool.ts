/**
 * The verification worker pool shared by the server, the bulk CLI and the benchmarks. It transports
 * bytes (or a POST /verify entry) and results: a Piscina worker runs the verification core, and
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
import type { DecodeOutcome, ReportTexts, VerifierService, VerifyOutcome } from '../verify/types.js';
import type { ReportCheck } from '../verify/types.js';
import type { AttestationResponse } from '../verify/attestationResponseSchema.js';
import { findReportKind, wireKind } from '../verify/kinds/index.js';
import type { PoolCode } from './errors.js';
import type { VerifyTask, WorkerSetup } from './task.js';
import type { RequestLayout } from '../encoding/eras/index.js';
import { CollateralDesk, type CollateralFetcher } from './collateralPort.js';
import { Deadlines, type Deadline } from './deadlines.js';
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

  constructor(private readonly opts: PoolOptions) {
    this.deadlines = new Deadlines(opts.taskTimeoutMs);
    this.desk = opts.collateral ? new CollateralDesk(opts.collateral, `verifier-collateral-${randomUUID()}`) : undefined;
    const collateralSetup = this.desk ? { collateralChannel: this.desk.channel, collateralReuseMs: opts.collateralReuseMs ?? 0 } : {};
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

  async decodeReport(userDataText: string, reportText: string, o: { nonce?: string } = {}): Promise<VerifyOutcome> {
    const task = parseReportTexts(userDataText, reportText, o);
    return 'error' in task ? structFailure(task.error) : this.verifyBytes(task);
  }

  /** Verifies parsed bytes; the byte arrays are transferred to the worker (unusable afterwards). */
  async verifyBytes(t: { userData: Uint8Array; report: Uint8Array; nonce?: Uint8Array }): Promise<VerifyOutcome> {
    const task: VerifyTask = { op: 'bytes', userData: t.userData, report: t.report, ...(t.nonce ? { nonce: t.nonce } : {}) };
    const transfer = [t.userData.buffer, t.report.buffer].filter((b, i, all) => all.indexOf(b) === i) as ArrayBuffer[];
    return (await this.run(task, transfer, findReportKind(t.report)?.collateral !== undefined)) as VerifyOutcome;
  }

  /**
   * Verifies several parsed reports in one worker task (their userData hashed in one call; the
   * arrays are transferred). One task for the queue bound and the time limit: callers keep batches
   * small (the CLI and the watcher send at most UPDATE_BATCH).
   */
  async verifyBytesMany(items: readonly { userData: Uint8Array; report: Uint8Array; nonce?: Uint8Array; requestKeys?: RequestLayout }[]): Promise<VerifyOutcome[]> {
    if (items.length === 0) return [];
    const task: VerifyTask = {
      op: 'bytesMany',
      items: items.map((t) => ({ userData: t.userData, report: t.report, ...(t.nonce ? { nonce: t.nonce } : {}), ...(t.requestKeys !== undefined ? { requestKeys: t.requestKeys } : {}) })),
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
      return 'error' in t || p.requestKeys === undefined ? t : { ...t, requestKeys: p.requestKeys };
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

  private async run(task: VerifyTask, transferList: ArrayBuffer[], mayNeedCollateral: boolean): Promise<unknown> {
    // The bound is enforced before anything is handed over, so an overloaded verifier answers at once.
    this.refusal(1);
    this.inFlight++;
    const t0 = performance.now();
    const submittedAt = epochMs();
    const deadline = this.deadlines.start();
    const ticket = mayNeedCollateral ? this.desk?.open((on) => this.hold(deadline, on)) : undefined;
    if (ticket !== undefined) task.collateralTicket = ticket;
    try {
      const { result, stamps } = (await this.piscina.run(task, { transferList, signal: deadline })) as StampedResult<unknown>;
      this.opts.onTaskStages?.(stagesOf(submittedAt, stamps));
      return result;
    } catch (e) {
      // The deadline knows whether it fired; anything else failed the worker.
      if (deadline.aborted) throw poolError('POOL_TASK_TIMEOUT', `verification did not finish within ${this.opts.taskTimeoutMs} ms`, e);
      throw poolError('POOL_WORKER_FAILED', 'the verification worker failed on this request; retry', e);
    } finally {
      if (ticket !== undefined) this.desk?.close(ticket);
      this.deadlines.end(deadline);
      this.inFlight--;
      this.opts.onTaskDone?.((performance.now() - t0) / 1000);
    }
  }

  /** While the main thread fetches a task's collateral, its time limit is held. */
  private hold(deadline: Deadline, on: boolean): void {
    if (on) this.deadlines.suspend(deadline);
    else this.deadlines.resume(deadline);
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
      queueSize: Math.max(0, this.inFlight - this.piscina.threads.length),
      utilization: this.piscina.utilization,
      completed: this.piscina.completed,
    };
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    await this.piscina.close();
    this.deadlines.stop();
    this.desk?.shutdown();
  }
}
