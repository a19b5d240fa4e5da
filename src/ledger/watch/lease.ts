/**
 * The ledger watcher's lease on its store (src/ledger/store/updateStore.ts): one watcher per store.
 * Taken at startup; while another watcher that may be alive holds it, the server starts all the same
 * and its watcher waits for the lease, saying so with the holder's expiry (acquireWaiting). Renewed
 * every third of its TTL (the heartbeat), given up when the watcher stops. A heartbeat that fails
 * (a full disk) is tried again for as long as it takes: the lease is lost only when another watcher
 * took it over. A lease whose holder died is taken over once it
 * expires, or at once when its holder was a process of this host that no longer runs (a kill -9
 * followed by a restart, its process perhaps still a zombie), or an earlier process with this very
 * pid (a container's pid 1).
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { hostname } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { VerifierError } from '../../errors.js';
import type { Lease, UpdateStore } from '../store/updateStore.js';

export interface LeaseLog {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
}

export interface StoreLeaseOptions {
  ttlMs: number;
  log: LeaseLog;
  /** Called once when the lease is lost (taken over, or not renewable in time): the watcher stops. */
  onLost(error: VerifierError<'STORE_LEASE_LOST'>): void;
}

/** Holders of this process that are alive: a lease of this pid not among them is an earlier process's. */
const LIVE_HOLDERS = new Set<string>();

/**
 * The state letter of process `pid` from /proc (`Z` zombie, `X` dead, …), or undefined where /proc
 * has none. The letter follows the command name, which may itself hold spaces and parentheses.
 */
function procState(pid: number): string | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return undefined;
  }
  return stat.slice(stat.lastIndexOf(')') + 1).trim().split(' ')[0];
}

/**
 * Whether process `pid` of this host runs (EPERM: it runs under another user). A zombie — killed,
 * not yet reaped by its parent (a supervisor restarting the watcher right after a kill -9) — holds
 * nothing and never runs again: it counts as gone.
 */
function running(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  const state = procState(pid);
  return state !== 'Z' && state !== 'X';
}

/** A lease of this host whose process is gone (or an earlier process with our pid). */
export function holderGone(l: Lease, host = hostname()): boolean {
  if (l.host !== host) return false;
  if (l.pid === process.pid) return !LIVE_HOLDERS.has(l.holder);
  return !running(l.pid);
}

/** The longest wait between two tries of a held lease (ms). */
const WAIT_RETRY_MS = 2_000;

export class StoreLease {
  readonly holder = `${hostname()}/${process.pid}/${randomUUID().slice(0, 8)}`;
  private timer: NodeJS.Timeout | undefined;
  private expiresAt = 0;
  private lost = false;
  /** The lease expired while its heartbeat failed: renewed when the store takes writes again. */
  private lapsed = false;

  constructor(
    private readonly store: UpdateStore,
    private readonly o: StoreLeaseOptions,
  ) {}

  /** Takes the lease (throws STORE_LEASE_HELD naming the holder when another watcher has it). */
  acquire(): void {
    const now = Date.now();
    const { takenOver } = this.store.acquireLease({ holder: this.holder, host: hostname(), pid: process.pid, ttlMs: this.o.ttlMs, now, holderGone: (l) => holderGone(l) });
    LIVE_HOLDERS.add(this.holder);
    this.expiresAt = now + this.o.ttlMs;
    if (takenOver) {
      const why = takenOver.expiresAt <= now ? `it expired at ${new Date(takenOver.expiresAt).toISOString()}` : 'its process no longer runs';
      this.o.log.warn({ previous: takenOver.holder, database: this.store.file }, `ledger watcher: took over the store's lease from ${takenOver.holder} (${why})`);
    }
  }

  /**
   * Takes the lease, waiting while another watcher that may be alive holds it (STORE_LEASE_HELD):
   * said once per holder, with its expiry, and tried again every third of the TTL, at most every
   * WAIT_RETRY_MS (a holder of this host that dies is taken over at the next try) and at the
   * holder's expiry, until it is taken (true) or `signal` aborts (false). `onWaiting` gets the
   * holder waited for, undefined once taken.
   */
  async acquireWaiting(signal: AbortSignal, onWaiting?: (held: Lease | undefined) => void): Promise<boolean> {
    let told: string | undefined;
    for (;;) {
      if (signal.aborted) return false;
      try {
        this.acquire();
        onWaiting?.(undefined);
        return true;
      } catch (e) {
        if (!(e instanceof VerifierError) || e.code !== 'STORE_LEASE_HELD') throw e;
      }
      const held = this.store.lease();
      if (held && held.holder !== told) {
        told = held.holder;
        onWaiting?.(held);
        this.o.log.warn(
          { holder: held.holder, expiresAt: new Date(held.expiresAt).toISOString(), database: this.store.file },
          `ledger watcher: the store's lease is held by ${held.holder} until ${new Date(held.expiresAt).toISOString()}; this watcher waits for it and starts once it is given up, expires, or its process no longer runs (verification is served meanwhile)`,
        );
      }
      const untilExpiry = (held?.expiresAt ?? Date.now()) - Date.now() + 1;
      try {
        await sleep(Math.max(10, Math.min(Math.floor(this.o.ttlMs / 3), WAIT_RETRY_MS, untilExpiry)), undefined, { signal });
      } catch {
        return false;
      }
    }
  }

  /** Starts the heartbeat: a renewal every third of the TTL. */
  start(): void {
    if (this.timer || this.lost) return;
    this.timer = setInterval(() => this.beat(), Math.max(100, Math.floor(this.o.ttlMs / 3)));
    this.timer.unref();
  }

  private beat(): void {
    const now = Date.now();
    let held: boolean;
    try {
      held = this.store.renewLease(this.holder, this.o.ttlMs, now);
    } catch (e) {
      // The store is busy or failing (a full disk, a write error). The heartbeat goes on: once the
      // store takes writes again the lease is renewed, unless another watcher took it over after
      // it lapsed (then this one is lost). Writes meanwhile are fenced by the holder in the store.
      const err = e instanceof Error ? e.message : String(e);
      if (now < this.expiresAt) this.o.log.warn({ err }, 'ledger watcher: lease heartbeat failed; retried');
      else if (!this.lapsed) {
        this.lapsed = true;
        this.o.log.warn({ err, expiredAt: new Date(this.expiresAt).toISOString() }, 'ledger watcher: the store lease lapsed while the store failed; its heartbeat goes on, and the watcher resumes once the store takes writes again (unless another watcher takes the store over)');
      }
      return;
    }
    if (!held) return this.lose(`another watcher took it over${this.store.lease() ? ` (${this.store.lease()!.holder})` : ''}`);
    if (this.lapsed) {
      this.lapsed = false;
      this.o.log.info({ database: this.store.file }, 'ledger watcher: the store takes writes again; the lease is renewed');
    }
    this.expiresAt = now + this.o.ttlMs;
  }

  private lose(why: string): void {
    if (this.lost) return;
    this.lost = true;
    this.stopTimer();
    LIVE_HOLDERS.delete(this.holder);
    this.o.onLost(new VerifierError('STORE_LEASE_LOST', `store: ${this.store.file}: this watcher lost its lease: ${why}; it stops following the ledger`));
  }

  private stopTimer(): void {
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
  }

  /** Stops the heartbeat and gives the lease up. */
  release(): void {
    this.stopTimer();
    LIVE_HOLDERS.delete(this.holder);
    if (this.lost) return;
    try {
      this.store.releaseLease(this.holder);
    } catch (e) {
      this.o.log.warn({ err: e instanceof Error ? e.message : String(e) }, 'ledger watcher: could not give up the store lease; it expires by itself');
    }
  }
}
