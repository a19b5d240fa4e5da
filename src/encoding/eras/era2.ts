/**
 * Era 2 (mid 2025 – 2025-09, Gramine SGX builds): era 1's current (padded) encoding. Its data is
 * indistinguishable from era 1 data encoded after Feb 2025; both decode the same way.
 */
import { NUMBER_PADDED_CHARS, PRICE_FEED_LENGTHS, STRING_PADDED_BYTES } from '../attestationData.js';
import { attestationLength, byte0TokenId, reservedZero, tryEncode } from './rules.js';
import type { Era } from './types.js';

const PADDED_LENGTHS = new Set([NUMBER_PADDED_CHARS, STRING_PADDED_BYTES, ...Object.values(PRICE_FEED_LENGTHS)]);

export const era2: Era = {
  id: 2,
  name: 'Gramine, token id in byte 0',
  dates: 'mid 2025 – 2025-09',
  chunks: 8,
  requestPerChunk: false,
  fits: (m) => reservedZero(m) && PADDED_LENGTHS.has(attestationLength(m)),
  tokenId: byte0TokenId,
  encodeRequest: (input) => tryEncode(input, { era: 'current' }),
};
