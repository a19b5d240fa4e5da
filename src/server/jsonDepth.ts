/**
 * A bound on how deep a request body nests (objects and arrays), checked on the raw bytes as they
 * arrive, before anything parses or walks the body: JSON.parse does not recurse, but what follows
 * does (the structured clone that hands a /verify entry to a pool worker, schema checks,
 * serialisers), and an entry with a field nested 6,000 levels deep (≈ 15 KB) overflowed a worker's
 * stack: 500 POOL_WORKER_FAILED (issue 32 item 4). A body nesting deeper than MAX_JSON_DEPTH is
 * answered 400 HTTP_JSON_TOO_DEEP naming where (`reports/0/oracleData/…`), the rest of it unread.
 *
 * The scan is a state machine over bytes (no recursion, constant memory but the path it names):
 * strings and their escapes are skipped (a multi-byte UTF-8 character never holds an ASCII byte;
 * a value string is jumped over to its next quote or backslash by `indexOf`, which keeps the scan
 * of a ≈ 17 KB /decodeReport body at a few µs instead of ≈ 100 µs of the HTTP thread, issue 35),
 * `{`/`[` open a level, `}`/`]` close one; object keys and array indices are followed so that the
 * answer can say where. Whether the text is valid JSON is left to the parser.
 */
import { Transform } from 'node:stream';
import type { preParsingHookHandler } from 'fastify';
import { VerifierError } from '../errors.js';
import { addChunkCheck, readWhenRead } from './inflight.js';

/** Most levels of objects and arrays in a request body (the deepest body this service reads nests 6). */
export const MAX_JSON_DEPTH = 64;

/** Segments of the path a message shows before "…". */
const SHOWN_SEGMENTS = 4;
/** Characters of a key a message shows. */
const SHOWN_KEY = 40;

interface Level {
  array: boolean;
  /** Array: the index of the current element. */
  index: number;
  /** Object: the current key (its first SHOWN_KEY characters); whether a key is expected next. */
  key: string;
  expectKey: boolean;
}

const QUOTE = 0x22;
const BACKSLASH = 0x5c;

/** The depth scan of one body, fed its chunks in order. */
export class JsonDepthScan {
  private readonly levels: Level[] = [];
  private inString = false;
  private escaped = false;
  /** The string being read is an object key (its characters are kept, up to SHOWN_KEY). */
  private inKey = false;
  private keyText = '';

  constructor(private readonly maxDepth = MAX_JSON_DEPTH) {}

  /** Feeds a chunk; returns the path of the first value nested too deep, or undefined. */
  feed(chunk: Uint8Array): string | undefined {
    const n = chunk.length;
    // The next quote and backslash at or after i in this chunk (-1: none left; -2: not looked for).
    let nextQuote = -2;
    let nextBackslash = -2;
    for (let i = 0; i < n; i++) {
      if (this.inString && !this.inKey) {
        // A value string (most of a body's bytes: the struct texts, base64): skipped to its
        // closing quote or its next escape with native searches, not byte by byte.
        if (this.escaped) {
          this.escaped = false;
          continue;
        }
        if (nextQuote !== -1 && nextQuote < i) nextQuote = chunk.indexOf(QUOTE, i);
        if (nextBackslash !== -1 && nextBackslash < i) nextBackslash = chunk.indexOf(BACKSLASH, i);
        const quote = nextQuote === -1 ? n : nextQuote;
        const backslash = nextBackslash === -1 ? n : nextBackslash;
        if (backslash < quote) {
          // The escape: the byte after it (perhaps in the next chunk) is skipped.
          this.escaped = true;
          i = backslash;
        } else if (quote < n) {
          this.inString = false;
          i = quote;
        } else {
          // The string goes on in the next chunk.
          break;
        }
        continue;
      }
      const c = chunk[i]!;
      if (this.inString) {
        if (this.escaped) this.escaped = false;
        else if (c === BACKSLASH) this.escaped = true;
        else if (c === QUOTE) {
          this.inString = false;
          if (this.inKey) {
            const top = this.levels[this.levels.length - 1]!;
            top.key = this.keyText;
            top.expectKey = false;
            this.inKey = false;
          }
          continue;
        }
        if (this.inKey && this.keyText.length < SHOWN_KEY) this.keyText += String.fromCharCode(c);
        continue;
      }
      const top = this.levels[this.levels.length - 1];
      switch (c) {
        case QUOTE:
          this.inString = true;
          if (top && !top.array && top.expectKey) {
            this.inKey = true;
            this.keyText = '';
          }
          break;
        case 0x7b: // {
        case 0x5b: // [
          if (this.levels.length >= this.maxDepth) return this.path();
          this.levels.push({ array: c === 0x5b, index: 0, key: '', expectKey: c === 0x7b });
          break;
        case 0x7d: // }
        case 0x5d: // ]
          this.levels.pop();
          break;
        case 0x2c: // ,
          if (top?.array) top.index++;
          else if (top) top.expectKey = true;
          break;
        default:
          break;
      }
    }
    return undefined;
  }

  /** The JSON pointer (without its leading slash) of the value being opened, its first segments. */
  private path(): string {
    const segments = this.levels.map((l) => (l.array ? String(l.index) : l.key));
    const shown = segments.slice(0, SHOWN_SEGMENTS).join('/');
    return segments.length > SHOWN_SEGMENTS ? `${shown}/…` : shown;
  }
}

/** The message of a body nested too deep at `path`. */
export function tooDeepMessage(path: string, maxDepth = MAX_JSON_DEPTH): string {
  return `request body nests objects and arrays deeper than ${maxDepth} levels${path ? ` at "${path}"` : ''}: refused before parsing`;
}

/** preParsing hook: scans the body's depth as it arrives (after the byte count of inflight.ts, in its stream). */
export function jsonDepthLimit(maxDepth = MAX_JSON_DEPTH): preParsingHookHandler {
  return (req, reply, payload, done) => {
    const length = req.headers['content-length'];
    if (length === '0' || (length === undefined && req.headers['transfer-encoding'] === undefined)) return done(null, payload);
    const scan = new JsonDepthScan(maxDepth);
    const check = (chunk: Buffer): Error | undefined => {
      const deep = scan.feed(chunk);
      if (deep === undefined) return undefined;
      // The rest of the body is not read: the connection cannot carry another request.
      if (!reply.raw.headersSent) reply.raw.setHeader('connection', 'close');
      return new VerifierError('HTTP_JSON_TOO_DEEP', tooDeepMessage(deep, maxDepth));
    };
    // A body counted by inflight.ts is scanned in its stream, each chunk once counted.
    if (addChunkCheck(payload, check)) return done(null, payload);
    const checked = new Transform({
      transform(chunk: Buffer, _enc, cb) {
        const refused = check(chunk);
        if (refused) return cb(refused);
        cb(null, chunk);
      },
    });
    payload.once('error', (err: Error) => checked.destroy(err));
    readWhenRead(payload, checked);
    done(null, checked);
  };
}
