import type { DomainCode } from '../errorCodes.js';
export type ConfigCode = DomainCode<'config'>;
