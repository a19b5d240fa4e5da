/**
 * Closed set of codes raised when reading blocks and transactions from a ledger node (the HTTP
 * failures themselves keep the client's LEDGER_NODE_* codes, src/startup/errors.ts).
 */
export const LedgerNodeCodes = [
  /** `/blocks` or `/block/height/latest` answered something else than the blocks asked for. */
  'LEDGER_NODE_BAD_BLOCKS',
  /** `/transaction/{id}` answered something that is not a transaction. */
  'LEDGER_NODE_BAD_TRANSACTION',
  /** The node does not know the transaction. */
  'LEDGER_TX_NOT_FOUND',
] as const;
export type LedgerNodeCode = (typeof LedgerNodeCodes)[number];
