/** Closed set of codes of the /ledger routes (README "Ledger"). */
import { codesOf, type DomainCode } from '../../errorCodes.js';
export const LedgerWatchCodes = codesOf('ledgerWatch');
export type LedgerWatchCode = DomainCode<'ledgerWatch'>;
