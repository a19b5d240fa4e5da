/** Codes of the era detection of userData (src/encoding/eras). */
import type { DomainCode } from '../../errorCodes.js';
export type EraCode = DomainCode<'era'>;
