/** Closed set of codes of the /ledger routes (README "Ledger"). */
export const LedgerWatchCodes = [
  /** GET /ledger/status or /ledger/updates while no watcher (`watch.enabled`) is configured: 503. */
  'LEDGER_WATCH_NOT_CONFIGURED',
  /** GET /ledger/transactions/{id} while no ledger node (`liveCheck.apiBaseUrl`) is configured: 503. */
  'LEDGER_NODE_NOT_CONFIGURED',
  /** A path parameter or query parameter of a /ledger route is not valid: 400. */
  'LEDGER_BAD_REQUEST',
  /** The `cursor` of GET /ledger/updates is not one this server handed out: 400. */
  'LEDGER_BAD_CURSOR',
] as const;
export type LedgerWatchCode = (typeof LedgerWatchCodes)[number];
