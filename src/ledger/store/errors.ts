/** Closed set of codes raised by the store of ledger update records (src/ledger/store/updateStore.ts). */
import { codesOf, type DomainCode } from '../../errorCodes.js';
export const StoreCodes = codesOf('store');
export type StoreCode = DomainCode<'store'>;
