/**
 * Chunked u128 struct text ↔ bytes: `{ c0: { f0: <u128>, …, f31: <u128> }, c1: {…}, … }`.
 * Chunk ci field fj holds the 16-byte little-endian group at byte (32·i + j)·16.
 *
 * The parser is one strict pass over the text's ASCII bytes (no regex, no split, no BigInt):
 * digits accumulate into four 32-bit limbs that are written straight into the output buffer.
 */
import { VerifierError } from '../errors.js';
import { describeFound, errorAt, isWordChar, type LedgerCode } from './errors.js';
import { u128DecimalAt } from './u128.js';

export const USER_DATA_CHUNKS = 8;
export const REPORT_CHUNKS = 10;
export const CHUNK_BYTES = 512;
export const FIELDS_PER_CHUNK = 32;
const FIELD_BYTES = 16;
const MAX_CHUNKS = 1024;
/** Generous character budgets (a legit field is ≤ 60 characters even pretty-printed). */
const CHARS_PER_FIELD = 200;
const CHARS_PER_CHUNK = 200;

export type StructStyle = 'reference' | 'pretty' | 'compact';

const C_OPEN = 123; // {
const C_CLOSE = 125; // }
const C_COMMA = 44; // ,
const C_COLON = 58; // :
const C_0 = 48;
const C_9 = 57;
const K_C = 99; // c
const K_F = 102; // f

const FIELD_KEYS: readonly string[] = Array.from({ length: FIELDS_PER_CHUNK }, (_, j) => `f${j}`);
const chunkKey = (i: number): string => `c${i}`;

/** Longest text accepted for `chunks` chunks; longer input is rejected before any scanning. */
export function maxChunkedStructLength(chunks: number): number {
  checkChunks(chunks);
  return chunks * (FIELDS_PER_CHUNK * CHARS_PER_FIELD + CHARS_PER_CHUNK) + CHARS_PER_CHUNK;
}

function checkChunks(chunks: number): void {
  if (!Number.isSafeInteger(chunks) || chunks < 1 || chunks > MAX_CHUNKS) {
    throw new VerifierError<LedgerCode>(
      'STRUCT_INVALID_ARGUMENT',
      `chunk count must be an integer in 1…${MAX_CHUNKS}, got ${String(chunks)}`,
    );
  }
}

function plural(n: number, noun: string): string {
  return `${n} ${noun}${n === 1 ? '' : 's'}`;
}

function defaultLabel(counts: readonly number[]): string {
  if (counts.includes(USER_DATA_CHUNKS)) return 'userData';
  if (counts.length === 1 && counts[0] === REPORT_CHUNKS) return 'report';
  return `${counts.join('/')}-chunk struct`;
}

/** The accepted chunk counts, sorted ascending and checked. */
function chunkCounts(chunks: number | readonly number[]): readonly number[] {
  const list = typeof chunks === 'number' ? [chunks] : [...chunks].sort((a, b) => a - b);
  if (list.length === 0) {
    throw new VerifierError<LedgerCode>('STRUCT_INVALID_ARGUMENT', 'at least one chunk count is required');
  }
  for (const c of list) checkChunks(c);
  return list;
}

/** `8`, `8 or 10`, `8, 9 or 10`. */
function countsText(counts: readonly number[]): string {
  return counts.length === 1 ? String(counts[0]) : `${counts.slice(0, -1).join(', ')} or ${String(counts[counts.length - 1])}`;
}

// ---------------------------------------------------------------------------------------------
// Scanning helpers (over bytes)

/**
 * The text as ASCII bytes in a reused scratch buffer, followed by 8 zero bytes (a sentinel: NUL is
 * never valid, so scans stop there without bounds checks). Non-ASCII characters become 0x80, which
 * no rule accepts; offsets stay string offsets, and messages describe the original text.
 */
let scratch = new Uint8Array(1 << 16);
const encoder = new TextEncoder();
function asciiBytes(text: string): Uint8Array {
  const n = text.length;
  if (scratch.length < n + 8) scratch = new Uint8Array(n + 8 + (n >> 1));
  const b = scratch;
  const r = encoder.encodeInto(text, b.subarray(0, n));
  if (r.read !== n || r.written !== n) {
    for (let i = 0; i < n; i++) {
      const c = text.charCodeAt(i);
      b[i] = c < 0x80 ? c : 0x80;
    }
  }
  b.fill(0, n, n + 8);
  return b;
}

/** Skips whitespace between tokens: space, tab, LF, CR. */
function skipWs(b: Uint8Array, p: number): number {
  let c = b[p] as number;
  while (c === 32 || c === 10 || c === 13 || c === 9) c = b[++p] as number;
  return p;
}

function isWordByte(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95;
}

/** Length of the key `<letter><index>`. */
function keyLength(index: number): number {
  return index < 10 ? 2 : index < 100 ? 3 : 1 + String(index).length;
}

/** True when the key letter `k` followed by the decimal digits of `index` stands at `p` as a whole word. */
function keyAt(b: Uint8Array, p: number, k: number, index: number): boolean {
  if (b[p] !== k) return false;
  p++;
  if (index < 10) return b[p] === C_0 + index && !isWordByte(b[p + 1] as number);
  if (index < 100) {
    return (
      b[p] === C_0 + ((index / 10) | 0) && b[p + 1] === C_0 + (index % 10) && !isWordByte(b[p + 2] as number)
    );
  }
  const digits = String(index);
  for (let i = 0; i < digits.length; i++) if (b[p + i] !== digits.charCodeAt(i)) return false;
  return !isWordByte(b[p + digits.length] as number);
}

const TWO32 = 4294967296;
/** 2^-32: multiplying by it is exact (a power of two), and cheaper than dividing by 2^32. */
const INV32 = 1 / TWO32;
/** Digits read straight into a double before limb arithmetic starts: 10^15 < 2^53. */
const HEAD = 15;
/** Digits folded into the limbs per pass: limb·10^6 + carry < 2^32·2^21 = 2^53 stays exact. */
const GROUP = 6;
const POW10 = [1, 10, 100, 1000, 10000, 100000, 1000000];
/** Longest decimal u128 (2^128 - 1 has 39 digits). */
const MAX_DIGITS = 39;

function writeU32(out: Uint8Array, o: number, v: number): void {
  out[o] = v;
  out[o + 1] = v >>> 8;
  out[o + 2] = v >>> 16;
  out[o + 3] = v >>> 24;
}

/** `report chunk c3 field f7`: the value stored at output offset `o`. */
function valueName(label: string, chunk: number, o: number): string {
  return `${label} chunk ${chunkKey(chunk)} field ${FIELD_KEYS[(o >> 4) & 31]}`;
}

/**
 * Reads the literal `<digits>u128` at `p` into out[o…o+16) (which is zero) and returns the offset
 * past the suffix. One pass: the first 15 digits accumulate in a double, later ones are folded
 * into the limbs 6 at a time. `label` and `chunk` name the value in error messages.
 */
function readU128(
  text: string,
  b: Uint8Array,
  p: number,
  out: Uint8Array,
  o: number,
  label: string,
  chunk: number,
): number {
  const start = p;
  let c = b[p] as number;
  if (c === C_0) {
    c = b[++p] as number;
    if (c >= C_0 && c <= C_9) {
      throw errorAt('STRUCT_SYNTAX', text, start, `${valueName(label, chunk, o)}: leading zeros are not allowed`);
    }
    if (c === 120 || c === 88) {
      throw errorAt('STRUCT_SYNTAX', text, start, `${valueName(label, chunk, o)}: hexadecimal values are not allowed`);
    }
  } else if (c > C_0 && c <= C_9) {
    let v = c - C_0;
    const headEnd = start + HEAD;
    c = b[++p] as number;
    while (c >= C_0 && c <= C_9 && p < headEnd) {
      v = v * 10 + (c - C_0);
      c = b[++p] as number;
    }
    let l1 = (v * INV32) >>> 0;
    let l0 = v - l1 * TWO32;
    if (c >= C_0 && c <= C_9) {
      // 16+ digits: fold the rest into four 32-bit limbs, up to 6 digits per pass
      let l2 = 0;
      let l3 = 0;
      for (;;) {
        let d = 0;
        let k = 0;
        while (k < GROUP && c >= C_0 && c <= C_9) {
          d = d * 10 + (c - C_0);
          c = b[++p] as number;
          k++;
        }
        if (k === 0) break;
        const m = POW10[k] as number;
        let x = l0 * m + d;
        let carry = (x * INV32) >>> 0;
        l0 = x - carry * TWO32;
        x = l1 * m + carry;
        carry = (x * INV32) >>> 0;
        l1 = x - carry * TWO32;
        x = l2 * m + carry;
        carry = (x * INV32) >>> 0;
        l2 = x - carry * TWO32;
        x = l3 * m + carry;
        carry = Math.floor(x * INV32);
        l3 = x - carry * TWO32;
        if (carry !== 0 || p - start > MAX_DIGITS) {
          while (c >= C_0 && c <= C_9) c = b[++p] as number;
          throw errorAt(
            'STRUCT_VALUE_OUT_OF_RANGE',
            text,
            start,
            `${valueName(label, chunk, o)}: value ≥ 2^128 (${p - start} digits)`,
          );
        }
        if (k < GROUP) break;
      }
      writeU32(out, o + 8, l2);
      writeU32(out, o + 12, l3);
    }
    writeU32(out, o, l0);
    writeU32(out, o + 4, l1);
  } else {
    const hint = c === 43 || c === 45 ? ' (signs are not allowed)' : '';
    throw errorAt(
      'STRUCT_SYNTAX',
      text,
      start,
      `${valueName(label, chunk, o)}: expected a decimal u128 literal, found ${describeFound(text, start)}${hint}`,
    );
  }
  if (c !== 117 || b[p + 1] !== 49 || b[p + 2] !== 50 || b[p + 3] !== 56 || isWordByte(b[p + 4] as number)) {
    const name = valueName(label, chunk, o);
    throw errorAt('STRUCT_SYNTAX', text, p, `${name}: expected the suffix "u128", found ${describeFound(text, p)}`);
  }
  return p + 4;
}

// ---------------------------------------------------------------------------------------------
// Parser

/**
 * Parses chunked u128 struct text into exactly n × 512 bytes, where n is `chunks` or one of the
 * counts in `chunks` (userData: 8 or 10). Strict: keys c0…c(n-1) and
 * f0…f31 in order, decimal values 0 ≤ v < 2^128 with suffix `u128`, no leading zeros, signs, hex,
 * trailing commas or trailing data; whitespace (space, tab, LF, CR) free between tokens.
 * `label` names the struct in error messages (default: userData when 8 chunks are accepted, report for 10).
 */
export function parseChunkedStruct(
  text: string,
  chunks: number | readonly number[],
  label: string = defaultLabel(chunkCounts(chunks)),
): Uint8Array {
  const counts = chunkCounts(chunks);
  const most = counts[counts.length - 1] as number;
  if (typeof text !== 'string') {
    throw new VerifierError<LedgerCode>(
      'STRUCT_INVALID_ARGUMENT',
      `${label}: expected a string, got ${text === null ? 'null' : typeof text}`,
    );
  }
  const n = text.length;
  const max = maxChunkedStructLength(most);
  if (n > max) {
    throw new VerifierError<LedgerCode>(
      'STRUCT_TOO_LONG',
      `${label}: text is ${n} characters long, more than the ${max} allowed for ${most} chunks`,
    );
  }
  const b = asciiBytes(text);
  const out = new Uint8Array(most * CHUNK_BYTES);
  let found = most;
  const syntax = (p: number, what: string): VerifierError<LedgerCode> =>
    errorAt('STRUCT_SYNTAX', text, p, `${what}, found ${describeFound(text, p)}`);

  let p = skipWs(b, 0);
  if (b[p] !== C_OPEN) throw syntax(p, `${label}: expected "{"`);
  p++;
  let o = 0;
  for (let c = 0; c < found; c++) {
    p = skipWs(b, p);
    if (!keyAt(b, p, K_C, c)) throw keyError(text, p, `${label}: expected chunk key "${chunkKey(c)}"`, c > 0);
    p = skipWs(b, p + keyLength(c));
    if (b[p] !== C_COLON) throw syntax(p, `${label}: expected ":" after "${chunkKey(c)}"`);
    p = skipWs(b, p + 1);
    if (b[p] !== C_OPEN) throw syntax(p, `${label} chunk ${chunkKey(c)}: expected "{"`);
    p++;
    for (let f = 0; f < FIELDS_PER_CHUNK; f++) {
      p = skipWs(b, p);
      if (!keyAt(b, p, K_F, f)) {
        throw keyError(text, p, `${label} chunk ${chunkKey(c)}: expected field key "${FIELD_KEYS[f]}"`, f > 0);
      }
      p = skipWs(b, p + (f < 10 ? 2 : 3));
      if (b[p] !== C_COLON) throw syntax(p, `${label} chunk ${chunkKey(c)}: expected ":" after "${FIELD_KEYS[f]}"`);
      p = skipWs(b, p + 1);
      p = readU128(text, b, p, out, o, label, c);
      o += FIELD_BYTES;
      p = skipWs(b, p);
      const sep = b[p];
      if (f < FIELDS_PER_CHUNK - 1) {
        if (sep === C_COMMA) {
          p++;
          continue;
        }
        if (sep === C_CLOSE) {
          throw errorAt(
            'STRUCT_FIELD_COUNT',
            text,
            p,
            `${label} chunk ${chunkKey(c)} has ${plural(f + 1, 'field')}, expected ${FIELDS_PER_CHUNK}: found "}"`,
          );
        }
        throw syntax(p, `${label} chunk ${chunkKey(c)}: expected "," or "}" after field ${FIELD_KEYS[f]}`);
      }
      if (sep === C_COMMA) {
        const subject = `${label} chunk ${chunkKey(c)}`;
        throw extraEntry(text, p, 'STRUCT_FIELD_COUNT', subject, `has more than ${FIELDS_PER_CHUNK} fields`);
      }
      if (sep !== C_CLOSE) throw syntax(p, `${label} chunk ${chunkKey(c)}: expected "}" after field ${FIELD_KEYS[f]}`);
      p++;
    }
    p = skipWs(b, p);
    const sep = b[p];
    if (c < most - 1) {
      if (sep === C_COMMA) {
        p++;
        continue;
      }
      if (sep === C_CLOSE && counts.includes(c + 1)) {
        found = c + 1;
        p++;
        break;
      }
      if (sep === C_CLOSE) {
        const what = `${label} has ${plural(c + 1, 'chunk')}, expected ${countsText(counts)}: found "}"`;
        throw errorAt('STRUCT_CHUNK_COUNT', text, p, what);
      }
      throw syntax(p, `${label}: expected "," or "}" after chunk ${chunkKey(c)}`);
    }
    if (sep === C_COMMA) throw extraEntry(text, p, 'STRUCT_CHUNK_COUNT', label, `has more than ${most} chunks`);
    if (sep !== C_CLOSE) throw syntax(p, `${label}: expected "}" after chunk ${chunkKey(c)}`);
    p++;
  }
  p = skipWs(b, p);
  if (p < n) {
    throw errorAt('STRUCT_TRAILING_DATA', text, p, `${label}: unexpected ${describeFound(text, p)} after the closing "}"`);
  }
  return found === most ? out : out.slice(0, found * CHUNK_BYTES);
}

/** The identifier at `p` (first 64 characters), or undefined when none starts there. */
function identAt(text: string, p: number): string | undefined {
  const c = text.charCodeAt(p);
  if (!((c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95)) return undefined;
  let e = p + 1;
  while (e < text.length && e - p < 64 && isWordChar(text.charCodeAt(e))) e++;
  return text.slice(p, e);
}

/** The expected key is not at `p`: wrong, duplicate or out-of-order key, trailing comma, or bad token. */
function keyError(text: string, p: number, expected: string, afterComma: boolean): VerifierError<LedgerCode> {
  const found = identAt(text, p);
  if (found !== undefined) return errorAt('STRUCT_KEY_ORDER', text, p, `${expected}, found "${found}"`);
  if (afterComma && text.charCodeAt(p) === C_CLOSE) {
    return errorAt('STRUCT_SYNTAX', text, p, `${expected}, found "}" (trailing comma)`);
  }
  return errorAt('STRUCT_SYNTAX', text, p, `${expected}, found ${describeFound(text, p)}`);
}

/**
 * A "," after the last expected entry of `subject`: an extra entry (`code`, message `tooMany`), or
 * a trailing comma / stray token (syntax).
 */
function extraEntry(
  text: string,
  comma: number,
  code: LedgerCode,
  subject: string,
  tooMany: string,
): VerifierError<LedgerCode> {
  let q = comma + 1;
  for (let c = text.charCodeAt(q); c === 32 || c === 10 || c === 13 || c === 9; c = text.charCodeAt(++q));
  const found = identAt(text, q);
  if (found !== undefined) return errorAt(code, text, q, `${subject} ${tooMany}: found extra key "${found}"`);
  if (text.charCodeAt(q) === C_CLOSE) return errorAt('STRUCT_SYNTAX', text, comma, `${subject}: trailing comma`);
  return errorAt('STRUCT_SYNTAX', text, q, `${subject}: expected a key after ",", found ${describeFound(text, q)}`);
}

// ---------------------------------------------------------------------------------------------
// Formatter

interface Layout {
  readonly open: string;
  readonly chunkOpen: (key: string) => string;
  readonly fieldPrefix: (key: string) => string;
  readonly fieldSep: string;
  readonly chunkClose: string;
  readonly chunkSep: string;
  readonly close: string;
}

/** snarkVM Value::to_string(): `{\n  c0: {\n    f0: 1u128,\n …    f31: 0u128\n  },\n  c1: …\n}`. */
const PRETTY: Layout = {
  open: '{\n',
  chunkOpen: (k) => `  ${k}: {\n`,
  fieldPrefix: (k) => `    ${k}: `,
  fieldSep: ',\n',
  chunkClose: '\n  }',
  chunkSep: ',\n',
  close: '\n}',
};
/** PRETTY with every "\n" removed: the text the reference hashes (`{  c0: {    f0: 1u128, …  }}`). */
const REFERENCE: Layout = {
  open: '{',
  chunkOpen: (k) => `  ${k}: {`,
  fieldPrefix: (k) => `    ${k}: `,
  fieldSep: ',',
  chunkClose: '  }',
  chunkSep: ',',
  close: '}',
};
const COMPACT: Layout = {
  open: '{ ',
  chunkOpen: (k) => `${k}: { `,
  fieldPrefix: (k) => `${k}: `,
  fieldSep: ', ',
  chunkClose: ' }',
  chunkSep: ', ',
  close: ' }',
};
const LAYOUTS: Readonly<Record<StructStyle, Layout>> = { reference: REFERENCE, pretty: PRETTY, compact: COMPACT };
/** Per style: field prefixes f0…f31 with the separator before them already joined in. */
const fieldParts = new Map<Layout, readonly string[]>();
function partsOf(layout: Layout): readonly string[] {
  let parts = fieldParts.get(layout);
  if (parts === undefined) {
    parts = FIELD_KEYS.map((k, j) => (j === 0 ? '' : layout.fieldSep) + layout.fieldPrefix(k));
    fieldParts.set(layout, parts);
  }
  return parts;
}

/**
 * Formats `bytes` (zero-padded to `chunks` × 512; never longer) as chunked u128 struct text.
 * 'reference' = snarkVM Value::to_string() without newlines (what the reference hashes),
 * 'pretty' = as the ledger node prints it, 'compact' = `{ c0: { f0: 1u128, … } }`.
 */
export function formatChunkedStruct(bytes: Uint8Array, chunks: number, style: StructStyle = 'reference'): string {
  checkChunks(chunks);
  if (!(bytes instanceof Uint8Array)) {
    throw new VerifierError<LedgerCode>(
      'STRUCT_INVALID_ARGUMENT',
      `formatChunkedStruct: expected a Uint8Array, got ${bytes === null ? 'null' : typeof bytes}`,
    );
  }
  const layout = Object.hasOwn(LAYOUTS, style) ? LAYOUTS[style] : undefined;
  if (layout === undefined) {
    throw new VerifierError<LedgerCode>(
      'STRUCT_INVALID_ARGUMENT',
      `formatChunkedStruct: unknown style ${JSON.stringify(style)}, expected "reference", "pretty" or "compact"`,
    );
  }
  const size = chunks * CHUNK_BYTES;
  if (bytes.length > size) {
    throw new VerifierError<LedgerCode>(
      'STRUCT_BYTES_TOO_LONG',
      `formatChunkedStruct: ${bytes.length} bytes do not fit in ${plural(chunks, 'chunk')} (${size} bytes)`,
    );
  }
  let data = bytes;
  if (bytes.length !== size) {
    data = new Uint8Array(size);
    data.set(bytes);
  }
  const dv = new DataView(data.buffer, data.byteOffset, size);
  const parts = partsOf(layout);
  let s = layout.open;
  let o = 0;
  for (let c = 0; c < chunks; c++) {
    if (c > 0) s += layout.chunkSep;
    s += layout.chunkOpen(chunkKey(c));
    for (let f = 0; f < FIELDS_PER_CHUNK; f++) {
      s += (parts[f] as string) + u128DecimalAt(dv, o) + 'u128';
      o += FIELD_BYTES;
    }
    s += layout.chunkClose;
  }
  return s + layout.close;
}
