/** Codes of the era detection of userData (src/encoding/eras). */
import { codesOf, type DomainCode } from '../../errorCodes.js';
export const EraCodes = codesOf('era');
export type EraCode = DomainCode<'era'>;
