/** Closed set of codes raised by the store of ledger update records (src/store/updates.ts). */
export const StoreCodes = [
  /** The database file cannot be opened or created. */
  'STORE_OPEN_FAILED',
  /** The file is a database of another schema (or not one of ours). */
  'STORE_SCHEMA_MISMATCH',
] as const;
export type StoreCode = (typeof StoreCodes)[number];
