/**
 * A strict CBOR (RFC 8949) decoder for attestation documents. It returns a typed tree in which
 * every node keeps the exact byte range it was decoded from, so signed structures can be rebuilt
 * from the received bytes. Limits are enforced before any allocation: a declared length larger
 * than the remaining input fails at once, nesting depth and the total number of items are bounded.
 * Tags are refused unless allowed, trailing bytes are refused, duplicate map keys are refused.
 */
import type { DomainCode } from '../errorCodes.js';
import { VerifierError } from '../errors.js';

export type CborCode = DomainCode<'cbor'>;

interface Span {
  /** Offset of the item's initial byte. */
  readonly start: number;
  /** Offset just past the item (including an indefinite item's break byte). */
  readonly end: number;
}
export type CborUint = Span & { readonly kind: 'uint'; readonly value: number | bigint };
/** A negative integer; `value` is the integer itself (-1 - n). */
export type CborNint = Span & { readonly kind: 'nint'; readonly value: number | bigint };
/** `value` aliases the input for definite strings; indefinite strings are concatenated copies. */
export type CborBytes = Span & { readonly kind: 'bytes'; readonly value: Uint8Array; readonly indefinite: boolean };
export type CborText = Span & { readonly kind: 'text'; readonly value: string; readonly indefinite: boolean };
export type CborArray = Span & { readonly kind: 'array'; readonly items: readonly CborNode[]; readonly indefinite: boolean };
export type CborMap = Span & {
  readonly kind: 'map';
  readonly entries: ReadonlyArray<readonly [CborNode, CborNode]>;
  readonly indefinite: boolean;
};
export type CborTag = Span & { readonly kind: 'tag'; readonly tag: number | bigint; readonly item: CborNode };
export type CborSimple = Span & { readonly kind: 'simple'; readonly value: boolean | null | undefined | number };
export type CborFloat = Span & { readonly kind: 'float'; readonly value: number };
export type CborNode = CborUint | CborNint | CborBytes | CborText | CborArray | CborMap | CborTag | CborSimple | CborFloat;

export interface CborDecodeOptions {
  /** Maximum nesting depth of arrays, maps and tags (default 16). */
  readonly maxDepth?: number;
  /** Maximum number of data items in the whole input, keys included (default 10 000). */
  readonly maxItems?: number;
  /** Tag numbers that may appear (default: none). */
  readonly allowedTags?: readonly number[];
}

const utf8 = new TextDecoder('utf-8', { fatal: true });
const BREAK = 0xff;

class Decoder {
  private p = 0;
  private items = 0;
  private readonly maxDepth: number;
  private readonly maxItems: number;
  private readonly allowedTags: ReadonlySet<number>;

  constructor(
    private readonly buf: Uint8Array,
    opts: CborDecodeOptions,
  ) {
    this.maxDepth = opts.maxDepth ?? 16;
    this.maxItems = opts.maxItems ?? 10_000;
    this.allowedTags = new Set(opts.allowedTags ?? []);
  }

  get offset(): number {
    return this.p;
  }

  private fail(code: CborCode, msg: string, at = this.p): never {
    throw new VerifierError<CborCode>(code, `CBOR: ${msg} at offset ${at}`);
  }

  private need(n: number, what: string, at: number): void {
    if (n > this.buf.length - this.p) {
      this.fail('CBOR_TRUNCATED', `${what} needs ${n} bytes but only ${this.buf.length - this.p} remain`, at);
    }
  }

  /** Reads the argument of a head with additional info `ai` (< 28). */
  private argument(ai: number, at: number): number | bigint {
    if (ai < 24) return ai;
    const size = ai === 24 ? 1 : ai === 25 ? 2 : ai === 26 ? 4 : 8;
    this.need(size, 'argument', at);
    const b = this.buf;
    const p = this.p;
    this.p += size;
    if (size === 1) return b[p]!;
    if (size === 2) return (b[p]! << 8) | b[p + 1]!;
    const hi = ((b[p]! << 24) | (b[p + 1]! << 16) | (b[p + 2]! << 8) | b[p + 3]!) >>> 0;
    if (size === 4) return hi;
    const lo = ((b[p + 4]! << 24) | (b[p + 5]! << 16) | (b[p + 6]! << 8) | b[p + 7]!) >>> 0;
    if (hi < 0x200000) return hi * 0x1_0000_0000 + lo; // < 2^53
    return (BigInt(hi) << 32n) | BigInt(lo);
  }

  /** A length or count argument; anything beyond the remaining input is truncation. */
  private length(ai: number, at: number, unit: number, what: string): number {
    const n = this.argument(ai, at);
    const remaining = this.buf.length - this.p;
    if (typeof n === 'bigint' || n * unit > remaining) {
      this.fail('CBOR_TRUNCATED', `${what} declares ${n} ${unit === 1 ? 'bytes' : 'items'} but only ${remaining} bytes remain`, at);
    }
    return n;
  }

  private count(at: number): void {
    if (++this.items > this.maxItems) this.fail('CBOR_LIMIT', `more than ${this.maxItems} data items`, at);
  }

  decode(depth: number): CborNode {
    const start = this.p;
    this.need(1, 'item', start);
    const ib = this.buf[this.p++]!;
    const major = ib >> 5;
    const ai = ib & 0x1f;
    if (ib === BREAK) this.fail('CBOR_MALFORMED', 'unexpected break', start);
    if (ai >= 28 && ai <= 30) this.fail('CBOR_MALFORMED', `reserved additional information ${ai}`, start);
    if (ai === 31 && (major <= 1 || major === 6)) this.fail('CBOR_MALFORMED', `indefinite length for major type ${major}`, start);
    this.count(start);
    switch (major) {
      case 0:
        return { kind: 'uint', value: this.argument(ai, start), start, end: this.p };
      case 1: {
        const n = this.argument(ai, start);
        const value = typeof n === 'number' && n < Number.MAX_SAFE_INTEGER ? -1 - n : -1n - BigInt(n);
        return { kind: 'nint', value, start, end: this.p };
      }
      case 2:
      case 3: {
        const kindName = major === 2 ? 'byte string' : 'text string';
        let bytes: Uint8Array;
        let indefinite = false;
        if (ai === 31) {
          indefinite = true;
          const chunks: Uint8Array[] = [];
          for (;;) {
            this.need(1, `${kindName} chunk`, this.p);
            if (this.buf[this.p] === BREAK) {
              this.p++;
              break;
            }
            const cs = this.p;
            const cb = this.buf[this.p++]!;
            if (cb >> 5 !== major || (cb & 0x1f) === 31 || (cb & 0x1f) >= 28) {
              this.fail('CBOR_MALFORMED', `invalid chunk 0x${cb.toString(16)} in an indefinite ${kindName}`, cs);
            }
            this.count(cs);
            const len = this.length(cb & 0x1f, cs, 1, kindName);
            chunks.push(this.buf.subarray(this.p, this.p + len));
            this.p += len;
          }
          bytes = Buffer.concat(chunks);
          bytes = new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.length);
        } else {
          const len = this.length(ai, start, 1, kindName);
          bytes = this.buf.subarray(this.p, this.p + len);
          this.p += len;
        }
        if (major === 2) return { kind: 'bytes', value: bytes, indefinite, start, end: this.p };
        let text: string;
        try {
          text = utf8.decode(bytes);
        } catch {
          this.fail('CBOR_MALFORMED', 'text string is not valid UTF-8', start);
        }
        return { kind: 'text', value: text, indefinite, start, end: this.p };
      }
      case 4: {
        if (depth >= this.maxDepth) this.fail('CBOR_LIMIT', `nesting deeper than ${this.maxDepth}`, start);
        const items: CborNode[] = [];
        if (ai === 31) {
          while (!this.atBreak()) items.push(this.decode(depth + 1));
          this.p++;
          return { kind: 'array', items, indefinite: true, start, end: this.p };
        }
        const n = this.length(ai, start, 1, 'array');
        for (let i = 0; i < n; i++) items.push(this.decode(depth + 1));
        return { kind: 'array', items, indefinite: false, start, end: this.p };
      }
      case 5: {
        if (depth >= this.maxDepth) this.fail('CBOR_LIMIT', `nesting deeper than ${this.maxDepth}`, start);
        const entries: Array<readonly [CborNode, CborNode]> = [];
        const seen = new Set<string>();
        const entry = (): void => {
          const k = this.decode(depth + 1);
          const id = keyId(k);
          if (id !== undefined) {
            if (seen.has(id)) this.fail('CBOR_MALFORMED', `duplicate map key ${id}`, k.start);
            seen.add(id);
          }
          entries.push([k, this.decode(depth + 1)]);
        };
        if (ai === 31) {
          while (!this.atBreak()) entry();
          this.p++;
          return { kind: 'map', entries, indefinite: true, start, end: this.p };
        }
        const n = this.length(ai, start, 2, 'map');
        for (let i = 0; i < n; i++) entry();
        return { kind: 'map', entries, indefinite: false, start, end: this.p };
      }
      case 6: {
        const tag = this.argument(ai, start);
        if (typeof tag !== 'number' || !this.allowedTags.has(tag)) this.fail('CBOR_TAG_NOT_ALLOWED', `tag ${tag} not allowed`, start);
        if (depth >= this.maxDepth) this.fail('CBOR_LIMIT', `nesting deeper than ${this.maxDepth}`, start);
        const item = this.decode(depth + 1);
        return { kind: 'tag', tag, item, start, end: this.p };
      }
      default: {
        // major 7
        if (ai < 20) return { kind: 'simple', value: ai, start, end: this.p };
        if (ai <= 23) return { kind: 'simple', value: [false, true, null, undefined][ai - 20], start, end: this.p };
        if (ai === 24) {
          const v = this.argument(ai, start) as number;
          if (v < 32) this.fail('CBOR_MALFORMED', `simple value ${v} in two-byte form`, start);
          return { kind: 'simple', value: v, start, end: this.p };
        }
        const size = ai === 25 ? 2 : ai === 26 ? 4 : 8;
        this.need(size, 'float', start);
        const dv = new DataView(this.buf.buffer, this.buf.byteOffset + this.p, size);
        const value = size === 2 ? half(dv.getUint16(0)) : size === 4 ? dv.getFloat32(0) : dv.getFloat64(0);
        this.p += size;
        return { kind: 'float', value, start, end: this.p };
      }
    }
  }

  private atBreak(): boolean {
    this.need(1, 'item or break of an indefinite container', this.p);
    return this.buf[this.p] === BREAK;
  }
}

function keyId(k: CborNode): string | undefined {
  switch (k.kind) {
    case 'uint':
    case 'nint':
      return String(k.value);
    case 'text':
      return JSON.stringify(k.value);
    case 'bytes':
      return `h'${Buffer.from(k.value).toString('hex')}'`;
    default:
      return undefined;
  }
}

function half(h: number): number {
  const exp = (h >> 10) & 0x1f;
  const mant = h & 0x3ff;
  const sign = h & 0x8000 ? -1 : 1;
  if (exp === 0) return sign * mant * 2 ** -24;
  if (exp === 31) return mant ? NaN : sign * Infinity;
  return sign * (1024 + mant) * 2 ** (exp - 25);
}

/** Decodes exactly one item spanning all of `bytes`; trailing bytes are refused. */
export function decodeCbor(bytes: Uint8Array, opts: CborDecodeOptions = {}): CborNode {
  if (!(bytes instanceof Uint8Array)) throw new VerifierError<CborCode>('CBOR_MALFORMED', 'CBOR: input is not a byte array');
  const d = new Decoder(bytes, opts);
  const node = d.decode(0);
  if (d.offset !== bytes.length) {
    throw new VerifierError<CborCode>(
      'CBOR_TRAILING_BYTES',
      `CBOR: ${bytes.length - d.offset} trailing bytes after the item ending at offset ${d.offset}`,
    );
  }
  return node;
}

/** A short description of a node's type, for error messages. */
export function cborTypeName(n: CborNode): string {
  switch (n.kind) {
    case 'uint':
      return 'unsigned integer';
    case 'nint':
      return 'negative integer';
    case 'bytes':
      return 'byte string';
    case 'text':
      return 'text string';
    case 'simple':
      return n.value === null ? 'null' : n.value === undefined ? 'undefined' : typeof n.value === 'boolean' ? 'boolean' : 'simple value';
    default:
      return n.kind;
  }
}
