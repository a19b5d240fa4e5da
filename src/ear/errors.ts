import { codesOf, type DomainCode } from '../errorCodes.js';
export const EarCodes = codesOf('ear');
export type EarCode = DomainCode<'ear'>;
