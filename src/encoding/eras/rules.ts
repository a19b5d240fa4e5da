/** Header rules shared by the eras: reserved meta-header bytes and the price-feed token ids. */
import { META_HEADER_BYTES, readU16LE } from '../blocks.js';
import { encodeProofData, TOKEN_ID_BYTE, type EncodeOptions } from '../encode.js';
import { PRICE_FEED_LENGTHS } from '../attestationData.js';
import type { ProofDataInput } from '../types.js';

export { TOKEN_ID_BYTE };
/** Meta-header byte 20 comes first after the ten u16 lengths. */
const RESERVED_FROM = 20;

/**
 * Token ids of the price-feed URLs of the second oracle generation (notarizer docs and the
 * multi-token vector: aleo 8, usdt 9, usdc 10, eth 11, btc 12).
 */
export const TOKEN_IDS: Readonly<Record<string, number>> = Object.freeze({
  'price_feed: aleo': 8,
  'price_feed: usdt': 9,
  'price_feed: usdc': 10,
  'price_feed: eth': 11,
  'price_feed: btc': 12,
});

export function tokenIdOfUrl(url: string): number | undefined {
  return Object.hasOwn(TOKEN_IDS, url) ? TOKEN_IDS[url] : undefined;
}

/** Meta-header bytes 20–31 are zero except possibly `except` (a byte index, e.g. 21). */
export function reservedZero(message: Uint8Array, except?: number): boolean {
  if (message.length < META_HEADER_BYTES) return false;
  for (let i = RESERVED_FROM; i < META_HEADER_BYTES; i++) if (i !== except && message[i] !== 0) return false;
  return true;
}

/** The meta-header attestation data length (bytes 0–1). */
export function attestationLength(message: Uint8Array): number {
  return readU16LE(message, 0);
}

/** First-generation rule: a price-feed URL (btc/eth/aleo) puts its id in byte 0, the attestation length. */
export function byte0TokenId(message: Uint8Array, url: string): number | undefined {
  const id = Object.hasOwn(PRICE_FEED_LENGTHS, url) ? PRICE_FEED_LENGTHS[url] : undefined;
  return id !== undefined && attestationLength(message) === id ? id : undefined;
}

/** Second-generation rule: byte 21 (0 = no token). */
export function byte21TokenId(message: Uint8Array): number | undefined {
  const id = message[TOKEN_ID_BYTE] ?? 0;
  return id === 0 ? undefined : id;
}

/** The encoder's output, or none when this era's notarizer would have refused the request. */
export function tryEncode(input: ProofDataInput, opts: EncodeOptions): Uint8Array[] {
  try {
    return [encodeProofData(input, opts)];
  } catch {
    return [];
  }
}
