/**
 * The HTTP/1 framing target (src/upstream/http1Framing.ts): an input is the bytes a node sent
 * on a connection. Interim 1xx heads are skipped, as the agent does; the final head gives the
 * body's extent, and the body is decoded twice: fed in one piece, then one byte at a time and in
 * two pieces cut by the input's first byte. The three must agree (the body's bytes, where it ends,
 * the failure), since a network may cut an answer anywhere. Only `Http1Error` may be thrown.
 */
import { BodyDecoder, framingOf, headEnd, Http1Error, NEED_MORE, parseHead, type Framing } from '../../src/upstream/http1Framing.js';

const LIMIT = 1 << 20;
const MAX_TRAILER = 8 << 10;

/** `fn`, where only an Http1Error may be thrown (its failure named). */
function framed<T>(what: string, fn: () => T): T | { failure: string } {
  try {
    return fn();
  } catch (e) {
    if (e instanceof Http1Error) return { failure: e.failure };
    throw new Error(`${what} threw an undeclared ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`);
  }
}

/** The final head's end and framing, skipping interim answers; a string: why there is none. */
function finalHead(bytes: Buffer): { start: number; framing: Framing } | string {
  let from = 0;
  for (;;) {
    const end = headEnd(bytes, from);
    if (end < 0) return 'closed-in-head';
    const head = framed('parseHead', () => parseHead(bytes, from, end));
    if ('failure' in head) return head.failure;
    if (head.status >= 100 && head.status < 200 && head.status !== 101) {
      from = end;
      continue;
    }
    const framing = framed('framingOf', () => framingOf(head));
    return 'failure' in framing ? framing.failure : { start: end, framing };
  }
}

/** The body fed in `pieces`: its bytes (hex), where it ended in the whole input, or the failure. */
function decode(bytes: Buffer, start: number, framing: Framing, pieces: number[]): string {
  const decoder = new BodyDecoder(framing, LIMIT, MAX_TRAILER);
  const body: Buffer[] = [];
  let at = start;
  // An empty feed first: a body of length 0 ends before any byte of it (as the agent sees at its head's end).
  for (const n of [0, ...pieces.filter((p) => p > 0)]) {
    const chunk = bytes.subarray(at, at + n);
    const r = framed('BodyDecoder.feed', () => decoder.feed(chunk, 0, (c, s, e) => (body.push(Buffer.from(c.subarray(s, e))), true)));
    if (typeof r !== 'number') return `${r.failure} after ${Buffer.concat(body).toString('hex')}`;
    if (r !== NEED_MORE) return `${r < 0 ? `code ${r}` : `ended at ${at + r}`}: ${Buffer.concat(body).toString('hex')}`;
    at += n;
  }
  return `${decoder.end() ? 'ended at close' : 'incomplete'}: ${Buffer.concat(body).toString('hex')}`;
}

export function http1Answer(input: Uint8Array): void {
  const bytes = Buffer.from(input);
  const head = finalHead(bytes);
  if (typeof head === 'string') return;
  const rest = bytes.length - head.start;
  const whole = decode(bytes, head.start, head.framing, [rest]);
  const bytewise = decode(bytes, head.start, head.framing, Array.from({ length: rest }, () => 1));
  const cut = Math.min(rest, bytes[0]! % (rest + 1));
  const halves = decode(bytes, head.start, head.framing, [cut, rest - cut]);
  if (whole !== bytewise || whole !== halves) throw new Error(`the body decodes differently as it is cut: whole ${whole.slice(0, 160)}; byte by byte ${bytewise.slice(0, 160)}; in two at ${cut} ${halves.slice(0, 160)}`);
}
