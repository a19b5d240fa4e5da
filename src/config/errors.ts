import { codesOf, type DomainCode } from '../errorCodes.js';
export const ConfigCodes = codesOf('config');
export type ConfigCode = DomainCode<'config'>;
