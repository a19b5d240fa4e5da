/**
 * The framing of an HTTP/1.1 answer (RFC 9112), as the ledger node's raw-bytes reader
 * (http1Agent.ts) reads it: the head (status line and header fields) and the body's extent
 * (Content-Length, chunked transfer coding, or until the connection closes). Pure: bytes in,
 * ranges of those bytes out, never a copy of the body. Whatever it cannot read for certain is a
 * named failure (`Http1Error`), never a guess: a conflicting or malformed length, both a length and
 * a transfer coding, a coding other than `chunked`, a chunk size that is not hex or too long.
 */

/** What was wrong with an answer's bytes. */
export type Http1Failure =
  /** The head (status line and fields, interim answers included) passed `maxHeadBytes`. */
  | 'head-too-large'
  | 'bad-status-line'
  | 'bad-header'
  /** The body's extent cannot be known for certain (conflicting lengths, an unknown transfer coding, 101). */
  | 'bad-framing'
  /** A chunk-size line that is not hex digits (with extensions), too long, or not ended by CRLF. */
  | 'bad-chunk'
  /** The trailer section passed `maxHeadBytes`. */
  | 'trailers-too-large'
  /** The connection ended before the answer's head was complete. */
  | 'closed-in-head';

export class Http1Error extends Error {
  constructor(
    readonly failure: Http1Failure,
    message: string,
  ) {
    super(message);
    this.name = 'Http1Error';
  }
}

/** How the body's end is known. */
export type Framing = { kind: 'length'; length: number } | { kind: 'chunked' } | { kind: 'close' };

export interface Head {
  /** 0 for HTTP/1.0, 1 for HTTP/1.1. */
  minor: 0 | 1;
  status: number;
  /** Field values by lower-case name, in the order received. */
  fields: Map<string, string[]>;
}

const CRLFCRLF = Buffer.from('\r\n\r\n', 'latin1');
const STATUS_LINE = /^HTTP\/1\.([01]) ([0-9]{3})(?: [\t\x20-\x7e\x80-\xff]*)?$/;
/** field-name ":" OWS field-value OWS, the name a token (no whitespace before the colon). */
const FIELD_LINE = /^([!#$%&'*+\-.^_`|~0-9A-Za-z]+):[ \t]*([\t\x20-\x7e\x80-\xff]*?)[ \t]*$/;

/** Offset of the end of a head (just past its blank line) in `bytes` from `from`, searching from `searchFrom`; -1 when not there yet. */
export function headEnd(bytes: Buffer, from: number, searchFrom = from): number {
  const i = bytes.indexOf(CRLFCRLF, Math.max(from, searchFrom));
  return i < 0 ? -1 : i + 4;
}

/** Parses a head's bytes (status line and fields, the final blank line included). */
export function parseHead(bytes: Buffer, start: number, end: number): Head {
  const lines = bytes.toString('latin1', start, end - 4).split('\r\n');
  const m = STATUS_LINE.exec(lines[0]!);
  if (!m) throw new Http1Error('bad-status-line', `not an HTTP/1.x status line: ${JSON.stringify(lines[0]!.slice(0, 40))}`);
  const fields = new Map<string, string[]>();
  for (let i = 1; i < lines.length; i++) {
    const f = FIELD_LINE.exec(lines[i]!);
    // a line folded onto the previous one (obs-fold), a bare CR or LF, a control character: refused
    if (!f) throw new Http1Error('bad-header', `malformed header line ${i} of the answer's head`);
    const name = f[1]!.toLowerCase();
    const values = fields.get(name);
    if (values) values.push(f[2]!);
    else fields.set(name, [f[2]!]);
  }
  return { minor: m[1] === '1' ? 1 : 0, status: Number(m[2]), fields };
}

/** Comma-separated list elements of every value of a field, trimmed, empty ones dropped. */
export function listOf(values: readonly string[] | undefined): string[] {
  return (values ?? []).flatMap((v) => v.split(',').map((e) => e.trim())).filter((e) => e !== '');
}

/** The body's extent of a final answer to a GET (RFC 9112 §6.3). */
export function framingOf(head: Head): Framing {
  const { status, fields } = head;
  if (status === 101) throw new Http1Error('bad-framing', 'the node switched protocols (101), which was not asked for');
  if (status === 204 || status === 304) return { kind: 'length', length: 0 };
  const te = fields.get('transfer-encoding');
  const cl = fields.get('content-length');
  if (te !== undefined) {
    if (cl !== undefined) throw new Http1Error('bad-framing', 'the answer declares both Transfer-Encoding and Content-Length');
    const codings = listOf(te).map((c) => c.toLowerCase());
    if (head.minor === 0 || codings.length !== 1 || codings[0] !== 'chunked') {
      throw new Http1Error('bad-framing', `unsupported Transfer-Encoding ${JSON.stringify(te.join(', ').slice(0, 60))} (only chunked, on HTTP/1.1)`);
    }
    return { kind: 'chunked' };
  }
  if (cl !== undefined) {
    const lengths = listOf(cl);
    if (lengths.length === 0 || lengths.some((l) => !/^[0-9]{1,15}$/.test(l) || Number(l) !== Number(lengths[0]))) {
      throw new Http1Error('bad-framing', `malformed or conflicting Content-Length ${JSON.stringify(cl.join(', ').slice(0, 60))}`);
    }
    return { kind: 'length', length: Number(lengths[0]) };
  }
  return { kind: 'close' };
}

/** Where the body's bytes go: `chunk[start, end)`; false stops the decoding (the reader abandons the body). */
export type BodyBytes = (chunk: Buffer, start: number, end: number) => boolean;

/** `BodyDecoder.feed` results other than an offset. */
export const NEED_MORE = -1;
export const STOPPED = -2;
/** A chunk size that would take the body past `limit`. */
export const TOO_LARGE = -3;

const enum Chunked {
  Size,
  SizeBws,
  Ext,
  SizeLf,
  Data,
  DataCr,
  DataLf,
  TrailerStart,
  TrailerLine,
  TrailerLf,
  FinalLf,
}

/** Longest chunk-size (hex digits, leading zeros included): 12 digits are 256 TiB, far above any cap. */
const MAX_SIZE_DIGITS = 12;
/** Longest chunk-size line (size, extensions, CRLF). */
const MAX_CHUNK_LINE = 4096;

const hexValue = (b: number): number => (b >= 0x30 && b <= 0x39 ? b - 0x30 : b >= 0x61 && b <= 0x66 ? b - 0x57 : b >= 0x41 && b <= 0x46 ? b - 0x37 : -1);
/** Bytes allowed in a chunk extension or a trailer line: HTAB, visible ASCII, SP, obs-text. */
const isFieldByte = (b: number): boolean => b === 0x09 || (b >= 0x20 && b !== 0x7f);

/**
 * Reads one body's extent from the connection's bytes, handing the body's bytes to `onData` as
 * ranges of the chunks fed (chunk-size lines, extensions and trailers are skipped). `limit` bounds
 * what a chunked body may announce.
 */
export class BodyDecoder {
  private remaining: number;
  private state = Chunked.Size;
  private size = 0;
  private digits = 0;
  private lineBytes = 0;
  private trailerBytes = 0;
  private received = 0;

  constructor(
    private readonly framing: Framing,
    private readonly limit: number,
    private readonly maxTrailerBytes: number,
  ) {
    this.remaining = framing.kind === 'length' ? framing.length : 0;
  }

  /**
   * Feeds `chunk[from…]`: the offset in `chunk` just past the body's end (bytes after it are not
   * this answer's), NEED_MORE while the body goes on, STOPPED when `onData` said so, TOO_LARGE
   * when a chunk size takes the body past the limit. Throws an `Http1Error` on bad chunk framing.
   */
  feed(chunk: Buffer, from: number, onData: BodyBytes): number {
    const { framing } = this;
    if (framing.kind === 'close') {
      if (from < chunk.length && !onData(chunk, from, chunk.length)) return STOPPED;
      return NEED_MORE;
    }
    if (framing.kind === 'length') {
      const n = Math.min(this.remaining, chunk.length - from);
      if (n > 0) {
        this.remaining -= n;
        if (!onData(chunk, from, from + n)) return STOPPED;
      }
      return this.remaining === 0 ? from + n : NEED_MORE;
    }
    return this.feedChunked(chunk, from, onData);
  }

  /** Bytes of a declared length still to come (0 for the other framings): what may be read straight into the body's buffer. */
  get rest(): number {
    return this.framing.kind === 'length' ? this.remaining : 0;
  }

  /** `n` (at most `rest`) bytes of a declared length were read in place: whether the body is complete. */
  took(n: number): boolean {
    this.remaining -= n;
    return this.remaining === 0;
  }

  /** The connection ended (FIN): whether that is the body's end (a body read until close). */
  end(): boolean {
    return this.framing.kind === 'close';
  }

  private feedChunked(chunk: Buffer, from: number, onData: BodyBytes): number {
    let i = from;
    const len = chunk.length;
    while (i < len) {
      switch (this.state) {
        case Chunked.Data: {
          const n = Math.min(this.remaining, len - i);
          this.remaining -= n;
          if (!onData(chunk, i, i + n)) return STOPPED;
          i += n;
          if (this.remaining === 0) this.state = Chunked.DataCr;
          continue;
        }
        case Chunked.Size: {
          const b = chunk[i++]!;
          this.lineBytes++;
          const h = hexValue(b);
          if (h >= 0) {
            if (++this.digits > MAX_SIZE_DIGITS) throw new Http1Error('bad-chunk', `chunk size longer than ${MAX_SIZE_DIGITS} hex digits`);
            this.size = this.size * 16 + h;
          } else if (this.digits === 0) throw new Http1Error('bad-chunk', 'chunk size is not hex');
          else if (b === 0x3b) this.state = Chunked.Ext;
          else if (b === 0x20 || b === 0x09) this.state = Chunked.SizeBws;
          else if (b === 0x0d) this.state = Chunked.SizeLf;
          else throw new Http1Error('bad-chunk', 'chunk size is not hex');
          continue;
        }
        case Chunked.SizeBws: {
          const b = chunk[i++]!;
          this.lineBytes++;
          if (b === 0x3b) this.state = Chunked.Ext;
          else if (b === 0x0d) this.state = Chunked.SizeLf;
          else if (b !== 0x20 && b !== 0x09) throw new Http1Error('bad-chunk', 'chunk size line: unexpected byte after the size');
          continue;
        }
        case Chunked.Ext: {
          const b = chunk[i++]!;
          if (++this.lineBytes > MAX_CHUNK_LINE) throw new Http1Error('bad-chunk', `chunk size line longer than ${MAX_CHUNK_LINE} bytes`);
          if (b === 0x0d) this.state = Chunked.SizeLf;
          else if (!isFieldByte(b)) throw new Http1Error('bad-chunk', 'chunk extension: a control character');
          continue;
        }
        case Chunked.SizeLf: {
          if (chunk[i++] !== 0x0a) throw new Http1Error('bad-chunk', 'chunk size line not ended by CRLF');
          const size = this.size;
          this.size = this.digits = this.lineBytes = 0;
          if (size === 0) {
            this.state = Chunked.TrailerStart;
            continue;
          }
          if (this.received + size > this.limit) return TOO_LARGE;
          this.received += size;
          this.remaining = size;
          this.state = Chunked.Data;
          continue;
        }
        case Chunked.DataCr:
          if (chunk[i++] !== 0x0d) throw new Http1Error('bad-chunk', 'chunk data not followed by CRLF');
          this.state = Chunked.DataLf;
          continue;
        case Chunked.DataLf:
          if (chunk[i++] !== 0x0a) throw new Http1Error('bad-chunk', 'chunk data not followed by CRLF');
          this.state = Chunked.Size;
          continue;
        case Chunked.TrailerStart:
        case Chunked.TrailerLine: {
          const b = chunk[i++]!;
          if (++this.trailerBytes > this.maxTrailerBytes) throw new Http1Error('trailers-too-large', `trailer section larger than ${this.maxTrailerBytes} bytes`);
          if (b === 0x0d) this.state = this.state === Chunked.TrailerStart ? Chunked.FinalLf : Chunked.TrailerLf;
          else if (!isFieldByte(b)) throw new Http1Error('bad-chunk', 'trailer line: a control character');
          else this.state = Chunked.TrailerLine;
          continue;
        }
        case Chunked.TrailerLf:
          if (chunk[i++] !== 0x0a) throw new Http1Error('bad-chunk', 'trailer line not ended by CRLF');
          this.state = Chunked.TrailerStart;
          continue;
        case Chunked.FinalLf:
          if (chunk[i++] !== 0x0a) throw new Http1Error('bad-chunk', 'chunked body not ended by CRLF');
          return i;
      }
    }
    return NEED_MORE;
  }
}
