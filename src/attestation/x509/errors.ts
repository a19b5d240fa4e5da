/** Closed list of the codes raised by the X.509 certificate parser and chain validator. */
import { codesOf, type DomainCode } from '../../errorCodes.js';
export const X509Codes = codesOf('x509');
export type X509Code = DomainCode<'x509'>;
