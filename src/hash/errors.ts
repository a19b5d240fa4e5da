/** Closed list of the codes raised by the binding-hash module (struct → fields → Poseidon8). */
import { codesOf, type DomainCode } from '../errorCodes.js';
export const HashCodes = codesOf('hash');
export type HashCode = DomainCode<'hash'>;
