/** Closed list of the codes raised by the typeB (AWS Nitro) verifier itself. CBOR_* and X509_* codes pass through. */
import type { DomainCode } from '../../errorCodes.js';
export type TypeBCode = DomainCode<'typeB'>;
