/** Poseidon8 domain separators (ASCII bytes read as a little-endian integer). */
import { domainFromText } from './field.js';

/** Domain of snarkVM's `hash.psd8` (what the oracle's binding hash uses). */
export const ALEO_POSEIDON8_DOMAIN: bigint = domainFromText('AleoPoseidon8');
