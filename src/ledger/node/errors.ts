/**
 * Closed set of codes raised when reading blocks and transactions from a ledger node (the HTTP
 * failures themselves keep the client's LEDGER_NODE_* codes, src/startup/errors.ts).
 */
import type { DomainCode } from '../../errorCodes.js';
export type LedgerNodeCode = DomainCode<'ledgerNode'>;
