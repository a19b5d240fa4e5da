/**
 * Era 4 (from 2026-02-02, notarizer v1.5.0, Gramine): 10 chunks, one request per chunk (its
 * proof data cut to the first 512 bytes), unused chunks zero. In each chunk byte 21 is the token
 * id (0: none) and bytes 20, 22–31 are zero; token price feeds as in era 3.
 */
import { CHUNK_BYTES } from '../../aleo/struct.js';
import { TOKEN_ID_BYTE, byte21TokenId, reservedZero, tokenIdOfUrl, tryEncode } from './rules.js';
import type { Era } from './types.js';

export const era4: Era = {
  id: 4,
  name: 'Gramine, 10 chunks, one request per chunk, token id in byte 21',
  dates: 'from 2026-02-02',
  chunks: 10,
  requestPerChunk: true,
  fits: (m) => reservedZero(m, TOKEN_ID_BYTE),
  tokenId: (m) => byte21TokenId(m),
  encodeRequest: (input) => {
    const tokenId = tokenIdOfUrl(input.url);
    return tryEncode(input, tokenId === undefined ? { era: 'current' } : { era: 'current', tokenId }).map((m) => m.slice(0, CHUNK_BYTES));
  },
};
