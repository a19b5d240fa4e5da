/**
 * The store of verified ledger updates: one SQLite file shared by the server's ledger watcher and
 * `oracle-verifier reverify --store` (docs/ledger.md). Opened here from its parts: the schema and
 * its migrations (schema.ts), the lease (leaseRows.ts), the updates, scan state and retries
 * (updateRows.ts), and the mapping writes, checks and completeness result (mappingRows.ts). Every
 * method turns SQLite's failures into the store's codes (guard.ts); every write of a watcher that
 * took the lease checks, in its transaction, that the lease is still its own.
 */
import { guarded, type StoreContext } from './guard.js';
import { leaseRows } from './leaseRows.js';
import { mappingRows } from './mappingRows.js';
import { openStoreDatabase } from './schema.js';
import type { UpdateStore } from './types.js';
import { updateRows } from './updateRows.js';

export type * from './types.js';
export { listQuery } from './listQuery.js';

export function openUpdateStore(file: string): UpdateStore {
  const db = openStoreDatabase(file);
  const lease = leaseRows(db, file);
  const { checkFence } = lease;
  const ctx: StoreContext = {
    db,
    file,
    checkFence,
    read: (fn) => guarded('STORE_READ_FAILED', file, fn),
    write: (fn) => guarded('STORE_WRITE_FAILED', file, fn),
    fenced: (fn) => {
      const tx = db.transaction((...a: Parameters<typeof fn>) => {
        checkFence();
        return fn(...a);
      });
      return (...a) => tx(...a);
    },
  };
  return {
    file,
    ...lease.methods,
    ...updateRows(ctx),
    ...mappingRows(ctx),
    close() {
      if (db.open) db.close();
    },
  };
}
