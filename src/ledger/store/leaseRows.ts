/**
 * The lease row of the store (one watcher per store): taken by a holder when none is held, it
 * expired, or its holder is gone; renewed by the holder's heartbeat; released. Once taken, every
 * write of the store checks in its own transaction that the lease is still the holder's.
 */
import type Database from 'better-sqlite3';
import { fail, guarded } from './guard.js';
import type { Lease, LeaseClaim, UpdateStore } from './types.js';

export function leaseRows(db: Database.Database, file: string): { checkFence: () => void; methods: Pick<UpdateStore, 'acquireLease' | 'renewLease' | 'releaseLease' | 'lease'> } {
  const getLease = db.prepare(`SELECT holder, host, pid, heartbeat_at AS heartbeatAt, expires_at AS expiresAt FROM lease WHERE id = 1`);
  const putLease = db.prepare(`INSERT OR REPLACE INTO lease (id, holder, host, pid, heartbeat_at, expires_at) VALUES (1, ?, ?, ?, ?, ?)`);
  const renew = db.prepare(`UPDATE lease SET heartbeat_at = ?, expires_at = ? WHERE id = 1 AND holder = ?`);
  const release = db.prepare(`DELETE FROM lease WHERE id = 1 AND holder = ?`);
  /** The holder whose lease every write checks (set by acquireLease). */
  let fencedBy: string | undefined;
  const checkFence = (): void => {
    if (fencedBy === undefined) return;
    const l = getLease.get() as Lease | undefined;
    if (l?.holder !== fencedBy) {
      fail('STORE_LEASE_LOST', `store: ${file}: this watcher's lease was taken over${l ? ` by ${l.holder}` : ''}; it writes nothing more (another watcher follows the ledger into this store now)`);
    }
  };

  const acquire = db.transaction((claim: LeaseClaim, now: number): { takenOver?: Lease } => {
    const cur = getLease.get() as Lease | undefined;
    if (cur && cur.holder !== claim.holder && cur.expiresAt > now && !claim.holderGone?.(cur)) {
      const age = Math.max(0, Math.round((now - cur.heartbeatAt) / 1000));
      fail(
        'STORE_LEASE_HELD',
        `store: ${file} is in use by another ledger watcher (${cur.holder}: host ${cur.host}, pid ${cur.pid}; last heartbeat ${age} s ago, lease valid until ${new Date(cur.expiresAt).toISOString()}). ` +
          'One watcher per store: stop the other one, or give this one its own watch.database; a lease left by a watcher that died is taken over once it expires (watch.leaseTtlMs after its last heartbeat)',
      );
    }
    putLease.run(claim.holder, claim.host, claim.pid, now, now + claim.ttlMs);
    return cur && cur.holder !== claim.holder ? { takenOver: cur } : {};
  });

  const write = <A extends unknown[], R>(fn: (...a: A) => R) => guarded('STORE_WRITE_FAILED', file, fn);
  return {
    checkFence,
    methods: {
      acquireLease: write((claim: LeaseClaim) => {
        const r = acquire.immediate(claim, claim.now ?? Date.now());
        fencedBy = claim.holder;
        return r;
      }),
      renewLease: write((holder: string, ttlMs: number, now = Date.now()) => renew.run(now, now + ttlMs, holder).changes > 0),
      releaseLease: write((holder: string) => {
        release.run(holder);
        if (fencedBy === holder) fencedBy = undefined;
      }),
      lease: guarded('STORE_READ_FAILED', file, () => getLease.get() as Lease | undefined),
    },
  };
}
