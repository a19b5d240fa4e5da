/**
 * Era 3 (2025-09-26 – 2026-02, Gramine): 8 chunks, one request; a token price feed carries its
 * token id in meta-header byte 21 (non-zero) and its value unpadded (attestation length 8).
 * A request without a token id is encoded as in era 2 (byte 21 zero) and is detected as era 1/2.
 */
import { TOKEN_ID_BYTE, byte21TokenId, reservedZero, tokenIdOfUrl, tryEncode } from './rules.js';
import type { Era } from './types.js';

export const era3: Era = {
  id: 3,
  name: 'Gramine, token id in byte 21',
  dates: '2025-09-26 – 2026-02',
  chunks: 8,
  requestPerChunk: false,
  fits: (m) => reservedZero(m, TOKEN_ID_BYTE) && m[TOKEN_ID_BYTE] !== 0,
  tokenId: (m) => byte21TokenId(m),
  encodeRequest: (input) => {
    const tokenId = tokenIdOfUrl(input.url);
    return tokenId === undefined ? [] : tryEncode(input, { era: 'current', tokenId });
  },
};
