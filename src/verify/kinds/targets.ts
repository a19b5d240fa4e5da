/**
 * What the kinds' targets share. Target measurements arrive in config.json as hex (any case) or
 * standard/URL-safe base64 and are normalised to bytes of an exact length. Hex is tried first: a
 * 64-character hex string is also valid base64, but the reference backend and every notarizer
 * /info output treat such a value as hex.
 */
import { VerifierError } from '../../errors.js';
import type { DomainCode } from '../../errorCodes.js';

type ConfigCode = DomainCode<'config'>;

const HEX = /^[0-9a-fA-F]*$/;
const B64 = /^[A-Za-z0-9+/]*={0,2}$/;
const B64URL = /^[A-Za-z0-9_-]*={0,2}$/;

export function decodeTarget(key: string, value: string, length: number): Uint8Array {
  const v = value.trim();
  if (v.length === length * 2 && HEX.test(v)) return Uint8Array.from(Buffer.from(v, 'hex'));
  if ((B64.test(v) || B64URL.test(v)) && v.length % 4 === 0) {
    // Canonical check: re-encoding must give the same text (no stray bits in the last character).
    const std = v.replace(/-/g, '+').replace(/_/g, '/');
    const bytes = Buffer.from(std, 'base64');
    if (bytes.length === length && bytes.toString('base64') === std) return Uint8Array.from(bytes);
  }
  throw new VerifierError<ConfigCode>(
    'CONFIG_BAD_TARGET',
    `config: ${key} = ${JSON.stringify(value)}: expected ${length} bytes as hex (${length * 2} hex digits) or base64`,
  );
}

export function isAllZero(b: Uint8Array): boolean {
  for (const x of b) if (x !== 0) return false;
  return true;
}

/** The config problem of a target value (CONFIG_BAD_TARGET). */
export function badTarget(message: string): never {
  throw new VerifierError<ConfigCode>('CONFIG_BAD_TARGET', message);
}

export const base64 = (b: Uint8Array): string => Buffer.from(b).toString('base64');
