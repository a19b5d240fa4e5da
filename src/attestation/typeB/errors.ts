/** Closed list of the codes raised by the typeB (AWS Nitro) verifier itself. CBOR_* and X509_* codes pass through. */
import { codesOf, type DomainCode } from '../../errorCodes.js';
export const TypeBCodes = codesOf('typeB');
export type TypeBCode = DomainCode<'typeB'>;
