/**
 * The ledger watcher: follows a ledger node from the store's scannedHeight + 1 (or `fromHeight` on
 * a fresh store) to the tip and on, in ranges of `batchBlocks`; verifies every update transition
 * of the followed programs and commits the range's records together with the new scannedHeight
 * (src/ledger/store/updateStore.ts), so a crash or kill at any moment loses or repeats nothing.
 *
 * A node that is down, slow, rate limiting or lying (another height range, garbage) only delays
 * the watcher: the failed range is retried after `pollIntervalMs`, nothing of it is stored. A range
 * whose verification was refused by the local pool (POOL_* codes: HTTP requests have priority, or
 * the server is closing) is not stored either and retried later. At most `concurrency` of its
 * verifications are in flight, leaving the pool's queue to HTTP requests.
 *
 * Updates that could not be verified (`unverifiable`: PCCS down, collateral missing) are
 * re-verified once the scan has reached the tip: each poll takes up to `retry.batch` due ones,
 * fetches their blocks again and replaces their records in place (src/ledger/store/updateStore.ts), so an
 * update is never stored twice. An attempt that is still unverifiable is retried after
 * `retry.intervalMs`, doubling with each attempt up to 64 × `retry.intervalMs`.
 *
 * The completeness check (docs/completeness.md) runs at a poll where the scan is at the tip: the
 * first time the scan gets there, then again once `completeness.intervalMs` passed since the last
 * check, at the next such poll after a range stored new records of the followed programs, and at
 * the next poll after a check the node could not answer (a retryable code). Each result replaces
 * the last in the store, which the metric and GET /ledger/completeness read.
 *
 * With `inclusion` (watch.proveInclusion, docs/inclusion.md) every update is proven committed in
 * its block before it is stored, and again when it is re-verified; a proof the node could not
 * serve leaves the update unverifiable, so it is retried like any other.
 */
import { isVerifierError, VerifierError } from '../../errors.js';
import { publicText } from '../../upstream/publicUrl.js';
import { Semaphore } from '../../rateLimit.js';
import { itemsOfTransaction, type LedgerItem } from '../records/transitions.js';
import { judgeAtBlockTimes, timesOfBlocks } from '../records/blockTimes.js';
import { blockTimestamp } from '../node/mappingListing.js';
import type { ProgramRegistry } from '../programs.js';
import type { OutputRecord } from '../records/updateRecord.js';
import { blockSourceRoute, blocksPerCall, type BlockScanner, type ScannedBlock } from '../node/blocks/fetchBlocks.js';
import type { DueUpdate, StoredUpdate, UpdateStore } from '../store/updateStore.js';
import { storedUpdates, verifyUpdates, type Verify, type VerifyMany } from './verifyUpdates.js';
import { traitsOf, type ErrorCode } from '../../errorCodes.js';
import { checkMappingRound, type MappingRoundResult } from './mappingCheck.js';
import { checkCompleteness, COMPLETENESS_DEFAULTS, type CompletenessOptions } from './completeness.js';
import type { CompletenessResult } from '../records/completeness.js';
import { PROGRAMS } from '../programs.js';
import type { InclusionProver } from '../inclusion/prover.js';

export interface WatcherLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface WatcherOptions {
  scanner: BlockScanner;
  store: UpdateStore;
  programs: readonly string[];
  /** The program registry the followed programs' roles come from (default: the built-in one). */
  registry?: ProgramRegistry;
  verify: Verify;
  /**
   * Hides the configured secrets (the node's API key and JWT, in any encoding: src/upstream/publicUrl.ts
   * redactorOf) in the text of an unexpected error before lastError shows it to anyone.
   */
  redact?: (text: string) => string;
  /** Several updates at once (the pool's batch task); absent: `verify` one by one. */
  verifyMany?: VerifyMany;
  /** Judge each update as it stood at its block's timestamp (a collateral archive is configured: docs/history.md); else now. */
  judgeAtBlock?: boolean;
  fromHeight: number;
  pollIntervalMs: number;
  /** Blocks per range (one request), at most the block source's size (default). */
  batchBlocks?: number;
  concurrency: number;
  log: WatcherLog;
  /** Called after each stored range with the updates that were new. */
  onStored?: (added: readonly StoredUpdate[]) => void;
  /** Re-verification of unverifiable updates (absent: never retried). */
  retry?: RetryOptions;
  /** Called with each re-verified update (its new record and outcome). */
  onRetried?: (update: StoredUpdate) => void;
  /** The mapping cross-check, run each poll once the scan reached the tip (absent: never). */
  mappingCheck?: { keysPerRound: number; uncertain?: (program: string) => string | undefined };
  /** Called after each cross-check round. */
  onMappingChecked?: (r: MappingRoundResult) => void;
  /**
   * The completeness check (docs/completeness.md), run at the tip: once the scan first reaches it,
   * then every `intervalMs` (default COMPLETENESS_DEFAULTS.intervalMs), after new records were
   * stored, and at the next poll when the node could not answer; each result is kept in the store.
   */
  completeness?: Omit<CompletenessOptions, 'scanner' | 'store' | 'programs' | 'registry'> & { intervalMs?: number };
  /** Called with each completeness result. */
  onCompleteness?: (r: CompletenessResult) => void;
  /** Proves each update's inclusion in its block before it is stored (absent: not proven). */
  inclusion?: Pick<InclusionProver, 'annotate'>;
}

export interface RetryOptions {
  /** Delay before the first re-verification; doubles per attempt up to 64 × this. */
  intervalMs: number;
  /** Most updates re-verified per poll. */
  batch: number;
  /** The clock (ms since the epoch); default Date.now. */
  now?: () => number;
}

/** The most the retry delay grows: intervalMs × 2^MAX_DOUBLINGS. */
const MAX_DOUBLINGS = 6;

export interface WatcherStatus {
  running: boolean;
  /** The route blocks are read from (`/blocks/transactions` or `/blocks`), once detected. */
  blockSource?: string;
  lastError?: { errorCode: ErrorCode; errorString: string; at: string };
  /** Not started yet: another watcher holds the store's lease (its holder and expiry, ISO 8601). */
  waitingForLease?: { holder: string; expiresAt: string };
}

const STOPPED = Symbol('stopped');

/**
 * What a failed step shows in lastError (GET /ledger/status, anyone can read it): its real cause.
 * The verifier's own errors carry their code and message (the store's name SQLite's code, e.g.
 * STORE_WRITE_FAILED "… SQLITE_FULL: database or disk is full"); anything else is INTERNAL_ERROR
 * with its name and message, URLs in it shown without credentials and query, and the configured
 * secrets hidden by `redact` (before the 300-character cut, so that no part of one survives it).
 */
function stepFailure(e: unknown, redact: (text: string) => string = (t) => t): { code: ErrorCode; message: string } {
  if (isVerifierError(e)) return { code: e.code, message: e.message };
  const err = e as { name?: unknown; code?: unknown; message?: unknown };
  const name = typeof err?.name === 'string' ? err.name : 'Error';
  const code = typeof err?.code === 'string' ? ` ${err.code}` : '';
  const text = redact(publicText(typeof err?.message === 'string' ? err.message : String(e)));
  return { code: 'INTERNAL_ERROR', message: `ledger watcher: ${name}${code}: ${text.length > 300 ? `${text.slice(0, 300)}…` : text}` };
}

/** A verification the local pool refused or dropped (the code's traits): the range is retried, not stored. */
const isRefused = (code: ErrorCode | undefined): boolean => code !== undefined && traitsOf(code).refused === true;

export class LedgerWatcher {
  private stopped = false;
  private loop: Promise<void> | undefined;
  private wake: (() => void) | undefined;
  /**
   * What stop() settles: the pending race() calls' own resolvers, each removed once its promise
   * settled. Not a long-lived promise raced against: every Promise.race on one would leave a
   * reaction on it holding the race's promise and so its value (a range's blocks) until stop.
   */
  private readonly onStop = new Set<() => void>();
  private lastError: WatcherStatus['lastError'];
  /** When the last completeness check ended, and whether it is due again at once (the node could not answer). */
  private lastCompleteness: { at: number; again: boolean } | undefined;
  /** Records of the followed programs were stored since the last completeness check. */
  private storedSinceCompleteness = false;
  private readonly sem: Semaphore;

  constructor(private readonly o: WatcherOptions) {
    this.sem = new Semaphore(Math.max(1, o.concurrency));
  }

  start(): void {
    this.loop ??= this.run();
  }

  /** Stops after the step in progress (a node request or verification in progress is abandoned). */
  async stop(): Promise<void> {
    this.stopped = true;
    this.signalStop();
    this.wake?.();
    await this.loop;
  }

  /**
   * Stops for good with `error` as lastError (the store's lease was lost: another watcher follows
   * the ledger into it now).
   */
  halt(error: VerifierError<ErrorCode>): void {
    this.lastError = { errorCode: error.code, errorString: error.message, at: new Date().toISOString() };
    this.o.log.warn({ code: error.code, err: error.message }, 'ledger watcher stopped');
    this.stopped = true;
    this.signalStop();
    this.wake?.();
  }

  status(): WatcherStatus {
    const kind = this.o.scanner.knownBlockSource;
    return { running: this.loop !== undefined && !this.stopped, ...(kind ? { blockSource: blockSourceRoute(kind) } : {}), ...(this.lastError ? { lastError: this.lastError } : {}) };
  }

  private signalStop(): void {
    for (const f of this.onStop) f();
    this.onStop.clear();
  }

  /** `p`, or STOPPED as soon as stop() is called; nothing of `p` is kept once it settled. */
  private race<T>(p: Promise<T>): Promise<T | typeof STOPPED> {
    p.catch(() => undefined); // an abandoned request may fail later
    if (this.stopped) return Promise.resolve(STOPPED);
    return new Promise((resolve, reject) => {
      const stop = () => resolve(STOPPED);
      this.onStop.add(stop);
      p.then(
        (v) => {
          this.onStop.delete(stop);
          resolve(v);
        },
        (e: unknown) => {
          this.onStop.delete(stop);
          reject(e);
        },
      );
    });
  }

  private sleep(ms: number): Promise<void> {
    return new Promise((r) => {
      const t = setTimeout(r, ms);
      this.wake = () => {
        clearTimeout(t);
        r();
      };
    });
  }

  private async run(): Promise<void> {
    const { store, scanner } = this.o;
    while (!this.stopped) {
      try {
        const tip = await this.race(scanner.latestHeight());
        if (tip === STOPPED) break;
        store.setTip(tip);
        // The block source (detected once) sets the blocks per request.
        const kind = await this.race(scanner.blockSource());
        if (kind === STOPPED) break;
        const perRange = Math.min(this.o.batchBlocks ?? blocksPerCall(kind), blocksPerCall(kind));
        for (;;) {
          // Every followed program's own coverage: a program scanned less far (or not yet) is caught up.
          const scanned = store.state({ programs: this.o.programs, from: this.o.fromHeight }).scannedHeight;
          const start = scanned === null ? this.o.fromHeight : scanned + 1;
          if (this.stopped || start > tip) break;
          const end = Math.min(tip, start + perRange - 1);
          if (!(await this.scanRange(start, end, tip))) break;
        }
        if (!this.stopped) await this.retryDue();
        if (!this.stopped) await this.checkMappings(tip);
        if (!this.stopped) await this.checkCompletenessDue(tip);
        this.lastError = undefined;
      } catch (e) {
        // A store whose lease another watcher took: this one writes nothing more.
        if (isVerifierError(e) && e.code === 'STORE_LEASE_LOST') {
          this.halt(e);
          break;
        }
        const f = stepFailure(e, this.o.redact);
        this.lastError = { errorCode: f.code, errorString: f.message, at: new Date().toISOString() };
        this.o.log.warn({ code: f.code, err: f.message }, 'ledger watcher: step failed, retrying after the poll interval');
      }
      if (!this.stopped) await this.sleep(this.o.pollIntervalMs);
    }
  }

  /** Judged at their own time (judgeAtBlock): the update items stamped with their blocks' timestamps (blockTimes.ts). */
  private async atBlockTimes(items: LedgerItem[], blocks: readonly ScannedBlock[]): Promise<void> {
    if (!this.o.judgeAtBlock) return;
    const client = this.o.scanner.client;
    await judgeAtBlockTimes(items, timesOfBlocks(blocks), (h) => blockTimestamp(client, h));
  }

  /** Scans, verifies and stores blocks [start, end]; false when stopped meanwhile. */
  private async scanRange(start: number, end: number, tip: number): Promise<boolean> {
    const blocks = await this.race(this.o.scanner.fetchRange(start, end + 1));
    if (blocks === STOPPED) return false;
    const items = blocks.flatMap((b) => b.transactions.flatMap((tx) => itemsOfTransaction(tx, this.o.programs, b.height, this.o.registry)));
    if ((await this.race(this.atBlockTimes(items, blocks))) === STOPPED) return false;
    const records = await this.verifyItems(items, `blocks ${start}..${end}`, 'the range is retried');
    if (records === STOPPED) return false;
    const added = this.o.store.commit(storedUpdates(records), { start, end }, this.now() + (this.o.retry?.intervalMs ?? 0), this.o.programs);
    // Progress: whatever failed before (the node, the store) works again.
    this.lastError = undefined;
    if (added.length > 0) this.storedSinceCompleteness = true;
    this.o.onStored?.(added);
    this.o.log.info({ scannedHeight: end, tipHeight: tip, updates: records.length, added: added.length }, 'ledger range stored');
    return true;
  }

  private now(): number {
    return this.o.retry?.now?.() ?? Date.now();
  }

  /** When an update that has had `attempts` re-verifications is due next. */
  private nextRetry(attempts: number): number {
    return this.now() + this.o.retry!.intervalMs * 2 ** Math.min(attempts, MAX_DOUBLINGS);
  }

  /** The items' output records (proven in their blocks with `inclusion`), through the semaphore; throws when the pool refused one (nothing is stored then). */
  private async verifyItems(items: LedgerItem[], what: string, then: string): Promise<OutputRecord[] | typeof STOPPED> {
    const verify: Verify = (u, r) => this.sem.run(() => this.o.verify(u, r));
    const many = this.o.verifyMany;
    const verifyMany: VerifyMany | undefined = many ? (pairs) => this.sem.run(() => many(pairs)) : undefined;
    const verified = await this.race(verifyUpdates(items, verify, verifyMany));
    if (verified === STOPPED || this.stopped) return STOPPED;
    const refused = verified.find((r) => isRefused(r.errorCode));
    if (refused) throw new VerifierError(refused.errorCode!, `verification of ${what} refused (${refused.errorString}); ${then}`);
    if (!this.o.inclusion) return verified;
    const proven = await this.race(this.o.inclusion.annotate(verified));
    return proven === STOPPED || this.stopped ? STOPPED : proven;
  }

  /** One round of the mapping cross-check, when every followed program is scanned to `tip`. */
  private async checkMappings(tip: number): Promise<void> {
    const mc = this.o.mappingCheck;
    if (!mc) return;
    const scanned = this.o.store.state({ programs: this.o.programs, from: this.o.fromHeight }).scannedHeight;
    if (scanned === null || scanned < tip) return;
    const r = await this.race(
      checkMappingRound(
        {
          client: this.o.scanner.client,
          store: this.o.store,
          keysPerRound: mc.keysPerRound,
          latestHeight: () => this.o.scanner.latestHeight(),
          ...(mc.uncertain ? { uncertain: mc.uncertain } : {}),
          stopped: () => this.stopped,
          ...(this.o.retry?.now ? { now: this.o.retry.now } : {}),
        },
        scanned,
      ),
    );
    if (r === STOPPED) return;
    this.o.onMappingChecked?.(r);
    if (r.error) this.o.log.warn({ scannedHeight: scanned, ...r, code: r.error.code, err: r.error.message }, 'ledger mapping check: the node failed, the round ended early');
    else if (r.checked > 0) this.o.log.info({ scannedHeight: scanned, ...r }, 'ledger mapping checked');
  }

  /** Whether a completeness check is due now (the scan being at the tip): see the module comment. */
  private completenessDue(now: number, intervalMs: number): boolean {
    const last = this.lastCompleteness;
    return last === undefined || last.again || this.storedSinceCompleteness || now - last.at >= intervalMs;
  }

  /** The completeness check, when every followed program is scanned to `tip` and a check is due. */
  private async checkCompletenessDue(tip: number): Promise<void> {
    const c = this.o.completeness;
    if (!c) return;
    const { intervalMs = COMPLETENESS_DEFAULTS.intervalMs, ...options } = c;
    const clock = c.now ?? Date.now;
    const scanned = this.o.store.state({ programs: this.o.programs, from: this.o.fromHeight }).scannedHeight;
    if (scanned === null || scanned < tip || !this.completenessDue(clock(), intervalMs)) return;
    const r = await this.race(checkCompleteness({ ...options, scanner: this.o.scanner, store: this.o.store, programs: this.o.programs, registry: this.o.registry ?? PROGRAMS }));
    if (r === STOPPED) return;
    this.o.store.saveCompleteness(r);
    // (The scan waits for the check: nothing was stored meanwhile.)
    this.storedSinceCompleteness = false;
    // A node that could not answer (down, rate limited past patience) is asked again at the next poll.
    this.lastCompleteness = { at: clock(), again: r.status === 'not_checked' && r.errorCode !== undefined && traitsOf(r.errorCode).retryable === true };
    this.o.onCompleteness?.(r);
    const fields = { scannedHeight: scanned, status: r.status, keys: r.keys, explained: r.explained, unexplained: r.unexplainedCount, missing: r.missingCount, reason: r.reason, code: r.errorCode };
    if (r.status === 'complete') this.o.log.info(fields, 'ledger completeness checked');
    else this.o.log.warn(fields, `ledger completeness ${r.status === 'incomplete' ? 'incomplete' : 'not checked'}`);
  }

  /** Re-verifies the unverifiable updates that are due, block by block. */
  private async retryDue(): Promise<void> {
    const retry = this.o.retry;
    if (!retry) return;
    const due = this.o.store.dueForRetry(this.now(), retry.batch);
    const byHeight = new Map<number, DueUpdate[]>();
    for (const d of due) {
      const list = byHeight.get(d.blockHeight);
      if (list) list.push(d);
      else byHeight.set(d.blockHeight, [d]);
    }
    for (const [height, list] of byHeight) {
      const blocks = await this.race(this.o.scanner.fetchRange(height, height + 1));
      if (blocks === STOPPED || this.stopped) return;
      const wanted = new Map(list.map((d) => [d.transitionId, d]));
      const items = blocks
        .flatMap((b) => b.transactions.flatMap((tx) => itemsOfTransaction(tx, this.o.programs, b.height, this.o.registry)))
        .filter((it) => it.type === 'update' && it.base.transitionId !== undefined && wanted.has(it.base.transitionId));
      if ((await this.race(this.atBlockTimes(items, blocks))) === STOPPED || this.stopped) return;
      const records = await this.verifyItems(items, `the unverifiable updates of block ${height}`, 'they are retried at the next poll');
      if (records === STOPPED) return;
      for (const u of storedUpdates(records)) {
        const d = wanted.get(u.record.transitionId);
        if (!d) continue;
        wanted.delete(d.transitionId);
        if (!this.o.store.resolveRetry(u, this.nextRetry(d.attempts + 1))) continue;
        this.o.onRetried?.(u);
        this.o.log.info({ transitionId: d.transitionId, blockHeight: height, attempt: d.attempts + 1, outcome: u.outcome, code: u.record.errorCode }, 'ledger update re-verified');
      }
      for (const d of wanted.values()) {
        this.o.store.postponeRetry(d.transitionId, this.nextRetry(d.attempts + 1));
        this.o.log.warn({ transitionId: d.transitionId, blockHeight: height, attempt: d.attempts + 1 }, 'ledger update to re-verify is not in its block as the node answers it now; retried later');
      }
    }
  }
}
