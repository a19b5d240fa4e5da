/** How the store fails: its own codes, with SQLite's named (STORE_READ_FAILED / STORE_WRITE_FAILED). */
import { VerifierError } from '../../errors.js';
import type Database from 'better-sqlite3';
import type { StoreCode } from './errors.js';

export const fail = (code: StoreCode, message: string): never => {
  throw new VerifierError<StoreCode>(code, message);
};

/** The cause of a failed SQLite call as SQLite names it: `SQLITE_FULL: database or disk is full`. */
function sqliteCause(e: unknown): string {
  const err = e as { code?: unknown; message?: unknown };
  const message = typeof err?.message === 'string' ? err.message : String(e);
  return typeof err?.code === 'string' ? `${err.code}: ${message}` : message;
}

/**
 * `fn` with SQLite's failures turned into the store's: STORE_WRITE_FAILED or STORE_READ_FAILED
 * naming the file and SQLite's code, so that whoever shows the failure (the watcher's lastError)
 * shows its real cause.
 */
export function guarded<A extends unknown[], R>(code: 'STORE_WRITE_FAILED' | 'STORE_READ_FAILED', file: string, fn: (...a: A) => R): (...a: A) => R {
  const what = code === 'STORE_WRITE_FAILED' ? 'writing to' : 'reading';
  return (...a: A): R => {
    try {
      return fn(...a);
    } catch (e) {
      if (e instanceof VerifierError) throw e;
      throw new VerifierError<StoreCode>(code, `store: ${what} ${file} failed: ${sqliteCause(e)}`, { cause: e });
    }
  };
}

/** A store method wrapped: SQLite's failures turned into the store's, or run in a transaction that checks the lease first. */
export type Wrap = <A extends unknown[], R>(fn: (...a: A) => R) => (...a: A) => R;

/** What each part of the store is built on: the database, its file, and the wrappers of its methods. */
export interface StoreContext {
  readonly db: Database.Database;
  readonly file: string;
  /** Reads: SQLite's failures as STORE_READ_FAILED. */
  readonly read: Wrap;
  /** Writes: SQLite's failures as STORE_WRITE_FAILED. */
  readonly write: Wrap;
  /** One write statement in a transaction with the lease check (STORE_LEASE_LOST). */
  readonly fenced: Wrap;
  /** Fails STORE_LEASE_LOST when a lease was taken and is not this store's holder's any more. */
  readonly checkFence: () => void;
}
