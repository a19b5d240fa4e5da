import type { DomainCode } from '../errorCodes.js';
import { VerifierError } from '../errors.js';

/** Closed list of the codes raised by the ledger struct codecs (u128, chunked structs, ids, Leo values). */
export type LedgerCode = DomainCode<'aleo'>;

/** `at offset N (line L, column C)`: offset is 0-based (UTF-16 units), line and column 1-based. */
export function describePosition(text: string, offset: number): string {
  let line = 1;
  let lineStart = 0;
  const end = Math.min(offset, text.length);
  for (let i = 0; i < end; i++) {
    if (text.charCodeAt(i) === 10) {
      line++;
      lineStart = i + 1;
    }
  }
  return `at offset ${offset} (line ${line}, column ${offset - lineStart + 1})`;
}

const MAX_SHOWN = 40;

/**
 * What stands at `offset`, for error messages: `end of input`, a quoted identifier / number run,
 * a quoted printable character, or `U+XXXX` for control, non-ASCII and other invisible characters.
 */
export function describeFound(text: string, offset: number): string {
  if (offset >= text.length) return 'end of input';
  let end = offset;
  while (end < text.length && end - offset < MAX_SHOWN && isWordChar(text.charCodeAt(end))) end++;
  if (end > offset) {
    const more = end < text.length && isWordChar(text.charCodeAt(end)) ? '…' : '';
    return `"${text.slice(offset, end)}${more}"`;
  }
  const cp = text.codePointAt(offset) ?? 0;
  if (cp > 0x20 && cp < 0x7f) return JSON.stringify(String.fromCharCode(cp));
  const hex = cp.toString(16).toUpperCase().padStart(4, '0');
  return cp > 0x7f && cp !== 0xfeff && !(cp >= 0xd800 && cp <= 0xdfff)
    ? `"${String.fromCodePoint(cp)}" (U+${hex})`
    : `U+${hex}`;
}

/** ASCII letter, digit or underscore. */
export function isWordChar(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

/** A VerifierError whose message ends with the position of the offending text. */
export function errorAt(code: LedgerCode, text: string, offset: number, what: string): VerifierError<LedgerCode> {
  return new VerifierError(code, `${what} ${describePosition(text, offset)}`);
}
