/**
 * The grammar-checking walk over a `/blocks` answer's bytes (the structural reader of
 * ./blocksBody.ts): every byte's JSON grammar checked, only each block's `header` and
 * `transactions` built; skipped values through the WebAssembly fast path (./jsonSkip.ts) where it
 * runs. A walk may stop at the last whole block of a body still arriving and go on later.
 */
import { VerifierError } from '../../../errors.js';
import { blockRecord, malformed, where, type BlockRecord } from './blockRecord.js';
import type { JsonSkipper } from './jsonSkip.js';

type Json = Record<string, unknown>;

// Bytes of the JSON grammar.
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;
const COLON = 0x3a;
const LBRACE = 0x7b;
const RBRACE = 0x7d;
const LBRACKET = 0x5b;
const RBRACKET = 0x5d;
const MINUS = 0x2d;
const PLUS = 0x2b;
const DOT = 0x2e;
const ZERO = 0x30;
const NINE = 0x39;
const isDigit = (c: number): boolean => c >= ZERO && c <= NINE;
const isHex = (c: number): boolean => isDigit(c) || (c >= 0x61 && c <= 0x66) || (c >= 0x41 && c <= 0x46);
/** Escape letters after a backslash: " \ / b f n r t (u is handled apart). */
const SIMPLE_ESCAPES = new Set([QUOTE, BACKSLASH, 0x2f, 0x62, 0x66, 0x6e, 0x72, 0x74]);
const TRUE = Buffer.from('true');
const FALSE = Buffer.from('false');
const NULL = Buffer.from('null');
/** Eight spaces read as a float64 (any byte order: all eight bytes are the same). */
const SPACES8 = new DataView(Buffer.alloc(8, 0x20).buffer).getFloat64(0);
const ARRAY = 1;
const OBJECT = 2;
/** Where a read of the blocks array stands: before its '[', after it, after a block. */
const OPEN = 0;
const FIRST = 1;
const NEXT = 2;
/** What a scanner of a body's start throws where the grammar fails (maybe only the cut): caught by `wholeBlocks`. */
const CUT = Symbol('cut');

/**
 * A grammar-checking cursor over one body. Strings are skipped with `indexOf` (memchr) for their
 * closing quote and for backslashes (one shared look-ahead, so the whole body is searched for
 * backslashes at most once: a string with none before its closing quote costs one `indexOf`);
 * indentation after a newline eight bytes at a time (one float64 compare); the few bytes between
 * tokens one by one. On a mainnet-shaped body (350 KB a block, ≈ 2 550 strings of ≈ 120 bytes)
 * that is ≈ 0.14-0.15 ms a block on one core (bench/blocks-reader.bench.ts), of which ≈ 0.05 ms
 * the `indexOf` calls themselves.
 */
export class Scanner {
  p = 0;
  /** Position of the next backslash at or after the last search, or the body's length. */
  private nextBackslash = -1;
  /** Block index being read, for messages. */
  index = 0;
  constructor(
    readonly b: Buffer,
    readonly start: number,
    /** The WebAssembly fast path for skipped values (./jsonSkip.ts), where it runs. */
    private readonly skipper?: JsonSkipper,
    /**
     * The bytes are the body's start, not all of it (a body still arriving): a grammar failure,
     * which may be the cut, throws CUT (no message, no stack) for `BlocksArrival` to catch.
     */
    private readonly partial = false,
  ) {
    this.view = new DataView(b.buffer, b.byteOffset, b.length);
  }

  fail(what: string): never {
    if (this.partial) throw CUT;
    const at = this.p >= this.b.length ? 'the end of the body (truncated?)' : `byte ${this.p} (${JSON.stringify(String.fromCharCode(this.b[this.p]!))})`;
    return malformed(`the blocks answer from height ${this.start} is not valid JSON: ${what} at ${at}, in ${where(this.index, this.start)}; ${this.b.length} bytes`);
  }

  ws(): void {
    const b = this.b;
    let p = this.p;
    for (;;) {
      const c = b[p];
      if (c === 0x20 || c === 0x0d || c === 0x09) p++;
      else if (c === 0x0a) p = this.indentation(p + 1);
      else break;
    }
    this.p = p;
  }

  /** The body as a DataView, for runs of spaces read eight bytes at a time (at any alignment). */
  private readonly view: DataView;

  /**
   * After a newline: skips a run of spaces (pretty-printed indentation) eight at a time, as one
   * float64 compare (the eight bytes 0x20 are a normal double: equal only to the same bits).
   */
  private indentation(p: number): number {
    const b = this.b;
    const last = b.length - 8;
    const v = this.view;
    while (p <= last && v.getFloat64(p) === SPACES8) p += 8;
    while (b[p] === 0x20) p++;
    return p;
  }

  expect(c: number, what: string): void {
    this.ws();
    if (this.b[this.p] !== c) this.fail(`expected ${what}`);
    this.p++;
  }

  /** Skips a string starting at `p` (its opening quote); returns whether it held a backslash. */
  string(): boolean {
    const b = this.b;
    if (b[this.p] !== QUOTE) this.fail('expected a string');
    let q = this.p + 1;
    let escaped = false;
    for (;;) {
      const close = b.indexOf(QUOTE, q);
      if (close < 0) {
        this.p = b.length;
        return this.fail('unterminated string');
      }
      if (this.nextBackslash < q) {
        const n = b.indexOf(BACKSLASH, q);
        this.nextBackslash = n < 0 ? b.length : n;
      }
      if (this.nextBackslash > close) {
        this.p = close + 1;
        return escaped;
      }
      // An escape before the quote: check it, then look on after it.
      escaped = true;
      const e = this.nextBackslash;
      const c = b[e + 1];
      if (c === undefined) {
        this.p = b.length;
        return this.fail('unterminated string');
      }
      if (c === 0x75) {
        for (let k = 2; k < 6; k++) {
          if (!isHex(b[e + k] ?? -1)) {
            this.p = e;
            return this.fail('bad \\u escape');
          }
        }
        q = e + 6;
      } else if (SIMPLE_ESCAPES.has(c)) {
        q = e + 2;
      } else {
        this.p = e;
        return this.fail('bad escape');
      }
    }
  }

  number(): void {
    const b = this.b;
    let p = this.p;
    if (b[p] === MINUS) p++;
    if (b[p] === ZERO) p++;
    else if (isDigit(b[p] ?? -1)) while (isDigit(b[p] ?? -1)) p++;
    else {
      this.p = p;
      this.fail('bad number');
    }
    if (b[p] === DOT) {
      p++;
      if (!isDigit(b[p] ?? -1)) {
        this.p = p;
        this.fail('bad number');
      }
      while (isDigit(b[p] ?? -1)) p++;
    }
    if (b[p] === 0x65 || b[p] === 0x45) {
      p++;
      if (b[p] === PLUS || b[p] === MINUS) p++;
      if (!isDigit(b[p] ?? -1)) {
        this.p = p;
        this.fail('bad number');
      }
      while (isDigit(b[p] ?? -1)) p++;
    }
    this.p = p;
  }

  /**
   * Skips one value (after whitespace), checking its grammar, building nothing: the walk over the
   * authority, ≈ 99 % of a mainnet block. One loop with its state in locals (the position, the
   * stack of open containers as a depth and an array of kinds); strings go by `indexOf` for their
   * closing quote (memchr), whitespace after a newline eight bytes at a time. What it checks is the
   * grammar `value()` always checked (the differential test holds it to JSON.parse): brackets,
   * commas, colons, member names as strings, escapes, numbers, literals.
   */
  value(): void {
    // The fast path decides a valid value; anything else (-1) is walked here, which names the error.
    if (this.skipper) {
      const end = this.skipper.skip(this.p);
      if (end >= 0) {
        this.p = end;
        return;
      }
      // Bytes still arriving: most likely the value is cut; the whole body's read names any error.
      if (this.partial) throw CUT;
    }
    const b = this.b;
    const len = b.length;
    const stack = this.stack;
    let depth = 0;
    let p = this.p;
    let c = 0;
    // Whitespace at p, inlined where it is skipped.
    for (;;) {
      c = b[p]!;
      if (c === 0x20 || c === 0x0d || c === 0x09) p++;
      else if (c === 0x0a) p = this.indentation(p + 1);
      else break;
    }
    for (;;) {
      // A value starts at p (c = b[p]).
      if (c === QUOTE) {
        p = this.skipString(p);
      } else if (c === LBRACE || c === LBRACKET) {
        p++;
        for (;;) {
          const d = b[p]!;
          if (d === 0x20 || d === 0x0d || d === 0x09) p++;
          else if (d === 0x0a) p = this.indentation(p + 1);
          else break;
        }
        const d = b[p];
        if (c === LBRACE ? d === RBRACE : d === RBRACKET) p++;
        else {
          stack[depth++] = c === LBRACE ? OBJECT : ARRAY;
          if (c === LBRACE) p = this.memberName(p);
          for (;;) {
            c = b[p]!;
            if (c === 0x20 || c === 0x0d || c === 0x09) p++;
            else if (c === 0x0a) p = this.indentation(p + 1);
            else break;
          }
          continue;
        }
      } else if (c === MINUS || (c >= ZERO && c <= NINE)) {
        this.p = p;
        this.number();
        p = this.p;
      } else {
        const lit = c === 0x74 ? TRUE : c === 0x66 ? FALSE : c === 0x6e ? NULL : undefined;
        if (!lit || p + lit.length > len || b.compare(lit, 0, lit.length, p, p + lit.length) !== 0) {
          this.p = p;
          this.fail('expected a value');
        }
        p += lit!.length;
      }
      // After a value: close what ends here, or go on to the next element or member.
      for (;;) {
        if (depth === 0) {
          this.p = p;
          return;
        }
        const top = stack[depth - 1];
        let d = 0;
        for (;;) {
          d = b[p]!;
          if (d === 0x20 || d === 0x0d || d === 0x09) p++;
          else if (d === 0x0a) p = this.indentation(p + 1);
          else break;
        }
        if (d === COMMA) {
          p++;
          if (top === OBJECT) {
            for (;;) {
              d = b[p]!;
              if (d === 0x20 || d === 0x0d || d === 0x09) p++;
              else if (d === 0x0a) p = this.indentation(p + 1);
              else break;
            }
            p = this.memberName(p);
          }
          for (;;) {
            c = b[p]!;
            if (c === 0x20 || c === 0x0d || c === 0x09) p++;
            else if (c === 0x0a) p = this.indentation(p + 1);
            else break;
          }
          break;
        }
        if (top === ARRAY ? d === RBRACKET : d === RBRACE) {
          p++;
          depth--;
          continue;
        }
        this.p = p;
        this.fail(top === ARRAY ? 'expected "," or "]"' : 'expected "," or "}"');
      }
    }
  }

  /** The open containers' kinds while `value()` skips (grown as deep as a body nests). */
  private readonly stack: number[] = [];

  /** A member name at p and its colon (with whitespace between): the position after the colon. */
  private memberName(p: number): number {
    const b = this.b;
    if (b[p] !== QUOTE) {
      this.p = p;
      this.fail('expected a string');
    }
    p = this.skipString(p);
    for (;;) {
      const d = b[p]!;
      if (d === 0x20 || d === 0x0d || d === 0x09) p++;
      else if (d === 0x0a) p = this.indentation(p + 1);
      else break;
    }
    if (b[p] !== COLON) {
      this.p = p;
      this.fail('expected ":"');
    }
    return p + 1;
  }

  /** The string at p (its opening quote) skipped: the position after its closing quote. */
  private skipString(p: number): number {
    // The common case inline: no backslash before the closing quote (else string() checks the escapes).
    const close = this.b.indexOf(QUOTE, p + 1);
    if (close >= 0 && this.nextBackslash > close) return close + 1;
    this.p = p;
    this.string();
    return this.p;
  }

  /** A member name at p: its text (decoded when it holds escapes). */
  key(): string {
    const s = this.p;
    if (!this.string()) return this.b.toString('utf8', s + 1, this.p - 1);
    try {
      return JSON.parse(this.b.toString('utf8', s, this.p)) as string;
    } catch (e) {
      this.p = s;
      return this.fail(`a member name that is not a JSON string (${(e as Error).message})`);
    }
  }

  /** The slice of one value, grammar-checked, then JSON.parsed. */
  parsedValue(): unknown {
    this.ws();
    const s = this.p;
    this.value();
    try {
      return JSON.parse(this.b.toString('utf8', s, this.p)) as unknown;
    } catch (e) {
      this.p = s;
      return this.fail(`a member that is not JSON (${(e as Error).message})`);
    }
  }

  /** One block object: only `header` and `transactions` are built (the last of each, as JSON.parse keeps). */
  block(): BlockRecord {
    const b = this.b;
    this.ws();
    if (b[this.p] !== LBRACE) {
      // Not an object: let the shared check name it.
      return blockRecord(this.parsedValue(), this.index, this.start);
    }
    this.p++;
    const kept: Json = {};
    this.ws();
    if (b[this.p] === RBRACE) this.p++;
    else {
      for (;;) {
        this.ws();
        const name = this.key();
        this.expect(COLON, '":"');
        if (name === 'header' || name === 'transactions') kept[name] = this.parsedValue();
        else this.value();
        this.ws();
        const d = b[this.p];
        if (d === COMMA) this.p++;
        else if (d === RBRACE) {
          this.p++;
          break;
        } else this.fail('expected "," or "}"');
      }
    }
    return blockRecord(kept, this.index, this.start);
  }

  /** The blocks read so far, and where the array's grammar stands (a read may go on where one stopped). */
  out: BlockRecord[] = [];
  stage = OPEN;

  /** Every block from where the read stands to the body's end, then nothing but whitespace. */
  blocks(): BlockRecord[] {
    while (this.step());
    this.p++; // the array's ']'
    this.ws();
    if (this.p !== this.b.length) this.fail('unexpected data after the array');
    return this.out;
  }

  /**
   * The whole blocks among bytes that are not the whole body yet (`partial`): read on block by
   * block, and stop, where the last read stood, at the first that the bytes do not hold whole (or
   * that fails: `blocks()` on the whole body then names it).
   */
  wholeBlocks(): void {
    for (;;) {
      const { p, index, stage } = this;
      try {
        if (!this.step()) return;
      } catch (e) {
        this.p = p;
        this.index = index;
        this.stage = stage;
        if (e === CUT || e instanceof VerifierError) return;
        throw e;
      }
    }
  }

  /**
   * One step of the array from where the read stands: its '[', or its next block (after a ',' but
   * for the first); false at its ']' (left for the caller).
   */
  private step(): boolean {
    const b = this.b;
    this.ws();
    if (this.stage === OPEN) {
      if (b[this.p] !== LBRACKET) {
        if (this.partial) throw CUT;
        // A JSON value that is not an array is named as such; anything else fails the grammar.
        const s = this.p;
        this.value();
        this.ws();
        if (this.p !== b.length) this.fail('unexpected data after the JSON value');
        this.p = s;
        return malformed(`the blocks answer from height ${this.start} is not a JSON array`);
      }
      this.p++;
      this.stage = FIRST;
      return true;
    }
    const d = b[this.p];
    if (d === RBRACKET) return false;
    if (this.stage === NEXT) {
      if (d !== COMMA) this.fail('expected "," or "]"');
      this.p++;
    }
    this.out.push(this.block());
    this.index++;
    this.stage = NEXT;
    return true;
  }

  /** Takes over where another scanner of the same body's bytes stopped. */
  resume(from: Pick<Scanner, 'p' | 'index' | 'stage' | 'out'>): this {
    this.p = from.p;
    this.index = from.index;
    this.stage = from.stage;
    this.out = from.out;
    return this;
  }
}
