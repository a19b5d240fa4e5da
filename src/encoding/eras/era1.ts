/**
 * Era 1 (2023 – early 2025, EGo SGX builds and Nitro): 8 chunks, one request. Meta-header bytes
 * 20–31 zero; a price feed (btc/eth/aleo) carries its token id in byte 0. Before Feb 2025 the
 * attestation data was encoded raw ("legacy": byte 0 = the raw length), after it padded.
 */
import { byte0TokenId, reservedZero, tryEncode } from './rules.js';
import type { Era } from './types.js';

export const era1: Era = {
  id: 1,
  name: 'EGo, token id in byte 0',
  dates: '2023 – early 2025',
  chunks: 8,
  requestPerChunk: false,
  fits: (m) => reservedZero(m),
  tokenId: byte0TokenId,
  encodeRequest: (input) => [...tryEncode(input, { era: 'current' }), ...tryEncode(input, { era: 'legacy' })],
};
