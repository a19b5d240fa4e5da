/** Closed list of the codes raised by the binding-hash module (struct → fields → Poseidon8). */
import type { DomainCode } from '../errorCodes.js';
export type HashCode = DomainCode<'hash'>;
