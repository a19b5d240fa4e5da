/**
 * Parser for the flat Leo struct values a ledger node returns for a mapping entry, e.g.
 * "{\n  chunk_1: 319…u128,\n  chunk_2: 335…u128\n}" (pretty) or `{ chunk_1: 1u128, chunk_2: 2u128 }`.
 * Input is the already JSON-decoded string. Strict: keys exactly as expected, in order, each value
 * a decimal u128 literal without leading zeros; whitespace (space, tab, CR, LF) free between tokens.
 */
import { VerifierError } from '../errors.js';
import { describeFound, describePosition, type LedgerCode } from './errors.js';
import { MAX_U128, u128ToLE } from './u128.js';

const MAX_CHARS_PER_KEY = 256;

function ledgerError(code: LedgerCode, message: string): VerifierError<LedgerCode> {
  return new VerifierError<LedgerCode>(code, message);
}

function isWs(c: number): boolean {
  return c === 32 || c === 10 || c === 13 || c === 9;
}
function isIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95;
}
function isIdentPart(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57);
}

/**
 * Parses `{ k0: <u128>, …, kn: <u128> }` with exactly `expectedKeys` in that order and returns the
 * values. `label` names the value in error messages.
 */
export function parseLeoU128Struct(
  text: string,
  expectedKeys: readonly string[],
  label = 'Leo value',
): bigint[] {
  if (typeof text !== 'string') {
    throw ledgerError('STRUCT_SYNTAX', `${label}: expected a string, got ${text === null ? 'null' : typeof text}`);
  }
  if (expectedKeys.length === 0) {
    throw ledgerError('STRUCT_INVALID_ARGUMENT', `${label}: expectedKeys is empty`);
  }
  const limit = 64 + expectedKeys.length * MAX_CHARS_PER_KEY;
  if (text.length > limit) {
    throw ledgerError('STRUCT_TOO_LONG', `${label}: text is ${text.length} characters, more than the limit ${limit}`);
  }
  const n = text.length;
  let p = 0;
  const at = (o: number): string => describePosition(text, o);
  const skipWs = (): void => {
    while (p < n && isWs(text.charCodeAt(p))) p++;
  };
  const expectChar = (code: number, what: string): void => {
    skipWs();
    if (p >= n || text.charCodeAt(p) !== code) {
      throw ledgerError('STRUCT_SYNTAX', `${label}: expected ${what} ${at(p)}, found ${describeFound(text, p)}`);
    }
    p++;
  };
  const readIdent = (): string | undefined => {
    const s = p;
    if (p < n && isIdentStart(text.charCodeAt(p))) {
      p++;
      while (p < n && isIdentPart(text.charCodeAt(p))) p++;
      return text.slice(s, p);
    }
    return undefined;
  };

  expectChar(123, '"{"');
  const values: bigint[] = [];
  for (let i = 0; i < expectedKeys.length; i++) {
    const want = expectedKeys[i] as string;
    skipWs();
    const keyStart = p;
    const key = readIdent();
    if (key === undefined) {
      if (text.charCodeAt(p) === 125 /* } */) {
        throw ledgerError(
          'STRUCT_FIELD_COUNT',
          `${label}: has ${i} field${i === 1 ? '' : 's'}, expected ${expectedKeys.length}: expected key "${want}" ${at(p)}, found "}"`,
        );
      }
      throw ledgerError('STRUCT_SYNTAX', `${label}: expected key "${want}" ${at(p)}, found ${describeFound(text, p)}`);
    }
    if (key !== want) {
      throw ledgerError('STRUCT_KEY_ORDER', `${label}: expected key "${want}" ${at(keyStart)}, found "${key}"`);
    }
    expectChar(58, `":" after key "${want}"`);
    skipWs();
    const lit = readU128(text, p, label, want);
    values.push(lit.value);
    p = lit.end;
    skipWs();
    const c = p < n ? text.charCodeAt(p) : -1;
    if (i < expectedKeys.length - 1) {
      if (c === 125) {
        throw ledgerError(
          'STRUCT_FIELD_COUNT',
          `${label}: has ${i + 1} field${i === 0 ? '' : 's'}, expected ${expectedKeys.length} (found "}" ${at(p)})`,
        );
      }
      if (c !== 44) {
        throw ledgerError('STRUCT_SYNTAX', `${label}: expected "," after key "${want}" ${at(p)}, found ${describeFound(text, p)}`);
      }
      p++;
    } else if (c === 44) {
      const commaAt = p;
      p++;
      skipWs();
      const s = p;
      const extra = readIdent();
      if (extra !== undefined) {
        throw ledgerError(
          'STRUCT_FIELD_COUNT',
          `${label}: has more than ${expectedKeys.length} fields: unexpected key "${extra}" ${at(s)}`,
        );
      }
      throw ledgerError('STRUCT_SYNTAX', `${label}: trailing comma ${at(commaAt)}`);
    }
  }
  expectChar(125, '"}"');
  skipWs();
  if (p < n) {
    throw ledgerError('STRUCT_TRAILING_DATA', `${label}: unexpected ${describeFound(text, p)} after the closing "}" ${at(p)}`);
  }
  return values;
}

/** Reads `<digits>u128` at `start`; `end` is the offset just past the suffix. */
function readU128(text: string, start: number, label: string, key: string): { value: bigint; end: number } {
  const n = text.length;
  let p = start;
  while (p < n) {
    const c = text.charCodeAt(p);
    if (c < 48 || c > 57) break;
    p++;
  }
  const digits = p - start;
  const where = `${label}: value of "${key}"`;
  if (digits === 0) {
    throw ledgerError(
      'STRUCT_SYNTAX',
      `${where}: expected a decimal u128 literal ${describePosition(text, start)}, found ${describeFound(text, start)}`,
    );
  }
  if (digits > 1 && text.charCodeAt(start) === 48) {
    throw ledgerError('STRUCT_SYNTAX', `${where}: leading zero ${describePosition(text, start)}`);
  }
  if (digits > 39) {
    throw ledgerError('STRUCT_VALUE_OUT_OF_RANGE', `${where}: value ≥ 2^128 (${digits} digits) ${describePosition(text, start)}`);
  }
  if (text.charCodeAt(p) !== 117 || text.charCodeAt(p + 1) !== 49 || text.charCodeAt(p + 2) !== 50 || text.charCodeAt(p + 3) !== 56) {
    throw ledgerError('STRUCT_SYNTAX', `${where}: expected suffix "u128" ${describePosition(text, p)}, found ${describeFound(text, p)}`);
  }
  const v = BigInt(text.slice(start, p));
  if (v > MAX_U128) {
    throw ledgerError('STRUCT_VALUE_OUT_OF_RANGE', `${where}: value ≥ 2^128 ${describePosition(text, start)}`);
  }
  return { value: v, end: p + 4 };
}

export const UNIQUE_ID_KEYS = ['chunk_1', 'chunk_2'] as const;
export const PCR_KEYS = [
  'pcr_0_chunk_1', 'pcr_0_chunk_2', 'pcr_0_chunk_3',
  'pcr_1_chunk_1', 'pcr_1_chunk_2', 'pcr_1_chunk_3',
  'pcr_2_chunk_1', 'pcr_2_chunk_2', 'pcr_2_chunk_3',
] as const;

/** `{ chunk_1, chunk_2 }` → the 32-byte id (two little-endian halves). */
export function uniqueIdFromLeo(text: string): Uint8Array {
  const [a, b] = parseLeoU128Struct(text, UNIQUE_ID_KEYS, 'unique id struct') as [bigint, bigint];
  const out = new Uint8Array(32);
  u128ToLE(a, out, 0);
  u128ToLE(b, out, 16);
  return out;
}

/** `{ pcr_0_chunk_1 … pcr_2_chunk_3 }` → PCR0, PCR1, PCR2 (48 bytes each). */
export function pcrsFromLeo(text: string): Uint8Array[] {
  const v = parseLeoU128Struct(text, PCR_KEYS, 'PCR struct');
  const pcrs: Uint8Array[] = [];
  for (let i = 0; i < 3; i++) {
    const pcr = new Uint8Array(48);
    for (let j = 0; j < 3; j++) u128ToLE(v[3 * i + j] as bigint, pcr, 16 * j);
    pcrs.push(pcr);
  }
  return pcrs;
}
