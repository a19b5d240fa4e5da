/** The codes an inclusion proof fails with (src/errorCodes.ts, domain `inclusion`). */
import type { DomainCode } from '../../errorCodes.js';
export type InclusionCode = DomainCode<'inclusion'>;
