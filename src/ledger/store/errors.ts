/** Closed set of codes raised by the store of ledger update records (src/ledger/store/updateStore.ts). */
import type { DomainCode } from '../../errorCodes.js';
export type StoreCode = DomainCode<'store'>;
