/** Codes of the ledger items and records (src/ledger/records): a followed transition that cannot be read. */
import type { DomainCode } from '../../errorCodes.js';
export type LedgerRecordCode = DomainCode<'ledgerRecords'>;
