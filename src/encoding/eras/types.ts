/** What one encoding era of the oracle's userData is (see ./index.ts for the rules and the registry). */
import type { ProofDataInput } from '../types.js';

export interface Era {
  /** 1, 2, 3, 4 … in the order the oracle used them. */
  readonly id: number;
  /** Short description: SGX build and where the token id sits. */
  readonly name: string;
  /** When the oracle wrote this era (from the public repositories' history). */
  readonly dates: string;
  /** userData chunk count (512 bytes each). */
  readonly chunks: number;
  /**
   * true: one request per 512-byte chunk, unused chunks zero, requestHash/timestampedRequestHash
   * per chunk; false: one request spanning the whole userData.
   */
  readonly requestPerChunk: boolean;
  /** Whether one request's message (its chunk, or the whole userData) fits this era's header rules. */
  fits(message: Uint8Array): boolean;
  /** The token id the message carries in this era (undefined: none), given its decoded url. */
  tokenId(message: Uint8Array, url: string): number | undefined;
  /**
   * The request encoded as this era's notarizer did (unpadded message bytes), one entry per
   * variant the era produced; empty when this era never produced data for such a request.
   */
  encodeRequest(input: ProofDataInput): Uint8Array[];
}
