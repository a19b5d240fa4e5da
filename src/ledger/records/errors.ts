/** Codes of the ledger items and records (src/ledger/records): a followed transition that cannot be read. */
import { codesOf, type DomainCode } from '../../errorCodes.js';
export const LedgerRecordCodes = codesOf('ledgerRecords');
export type LedgerRecordCode = DomainCode<'ledgerRecords'>;
