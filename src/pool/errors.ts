import type { DomainCode } from '../errorCodes.js';
export type PoolCode = DomainCode<'pool'>;
