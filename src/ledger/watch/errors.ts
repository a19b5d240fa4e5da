/** Closed set of codes of the /ledger routes (README "Ledger"). */
import type { DomainCode } from '../../errorCodes.js';
export type LedgerWatchCode = DomainCode<'ledgerWatch'>;
