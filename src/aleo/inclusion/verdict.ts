/**
 * What a record says of an update's inclusion proof (`inclusion`, docs/inclusion.md):
 *   proven       the block hash reached, and who confirmed it is the chain's
 *   failed       the link that broke (its code, src/errorCodes.ts `inclusion`) and what was found
 *   not_checked  why no proof was tried
 */
import type { InclusionCode } from './errors.js';
import type { InclusionLink } from './prove.js';

export type Inclusion =
  | { status: 'proven'; blockHash: string; confirmedBy: string }
  | { status: 'failed'; link: InclusionLink | 'block' | 'confirmation'; code: InclusionCode; detail: string }
  | { status: 'not_checked'; why: string };
