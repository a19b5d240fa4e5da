import { codesOf, type DomainCode } from '../errorCodes.js';
export const PoolCodes = codesOf('pool');
export type PoolCode = DomainCode<'pool'>;
