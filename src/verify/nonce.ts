import { VerifierError } from '../errors.js';
import type { VerifyCode } from './errors.js';

/** A request nonce as hex (even length) or base64; at most 1024 bytes like the document field. */
export function decodeNonce(s: string): Uint8Array {
  const t = s.trim();
  let b: Buffer | undefined;
  if (t.length % 2 === 0 && /^[0-9a-fA-F]+$/.test(t)) b = Buffer.from(t, 'hex');
  else if (/^[A-Za-z0-9+/]+={0,2}$/.test(t) && t.length % 4 === 0) b = Buffer.from(t, 'base64');
  if (!b || b.length === 0 || b.length > 1024) {
    throw new VerifierError<VerifyCode>('REQUEST_BAD_NONCE', 'request: nonce must be 1–1024 bytes as hex or base64');
  }
  return Uint8Array.from(b);
}
