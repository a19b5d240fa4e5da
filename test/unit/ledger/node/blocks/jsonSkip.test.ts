/**
 * The WebAssembly fast path of the structural `/blocks` reader (src/ledger/node/blocks/jsonSkip.ts and
 * jsonSkip.wat): the committed bytes are the assembly of the source; it never accepts a value the
 * JavaScript walk would refuse, and where it accepts one it ends at the same byte; with windows of
 * any size (values crossing them, numbers cut at their end) the reader's answer and every error
 * message are the JavaScript reader's, byte for byte.
 */
import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { assembleJsonSkip, renderJsonSkipSource, OUT } from '../../../../../scripts/gen-json-skip-wasm.js';
import { createJsonSkipper, readsInPlace, skipBodyBuffer } from '../../../../../src/ledger/node/blocks/jsonSkip.js';
import { LEDGER_NODE_BODY_POOL } from '../../../../../src/ledger/node/client.js';
import { readBlocksStructural, readBlocksStructuralJs, structuralReaderWith, type BlocksReader } from '../../../../../src/ledger/node/blocks/blocksBody.js';

const run = (reader: BlocksReader, body: Buffer, start: number) => {
  try {
    return { ok: true, blocks: reader(body, start) };
  } catch (e) {
    return { ok: false, code: (e as { code?: string }).code, message: (e as Error).message };
  }
};

/** `bytes` at the start of a buffer from skipBodyBuffer (read in place), whose bytes after them are not zeros. */
const inPlace = (bytes: Uint8Array, room = 64) => {
  const b = skipBodyBuffer(bytes.length + room).fill(0x31);
  b.set(bytes);
  const view = b.subarray(0, bytes.length);
  expect(readsInPlace(view)).toBe(true);
  return view;
};

const skipper = (text: string | Buffer, o?: { window?: number; maxWindow?: number }) => {
  const s = createJsonSkipper(typeof text === 'string' ? Buffer.from(text) : text, o);
  if (!s) throw new Error('WebAssembly SIMD is not available in this Node.js');
  return s;
};

/** A JSON value written with any indentation, or compact with odd spacing. */
const written = fc
  .tuple(fc.jsonValue({ maxDepth: 6 }), fc.integer({ min: 0, max: 9 }), fc.constantFrom('', ' ', '\t', '\r\n  ', '\n'))
  .map(([v, indent, sp]) => {
    const t = JSON.stringify(v, null, indent) ?? 'null';
    // Odd spacing after every structural byte outside strings is JSON too: added in compact texts only.
    return indent === 0 && sp !== '' ? t.replace(/("(?:[^"\\]|\\.)*")|([,:[\]{}])/g, (m, str: string | undefined) => (str ? m : `${m}${sp}`)).trimEnd() : t;
  });

/** A body of two blocks whose first carries the value as its authority. */
const bodyWith = (value: string) =>
  `[\n {"header": {"metadata": {"height": 10, "timestamp": 1}}, "authority": ${value}, "transactions": [{"id": "at10"}], "n": 12345678},\n {"header": {"metadata": {"height": 11, "timestamp": 2}}, "authority": ${value}, "transactions": []}\n]`;

describe('WebAssembly JSON skipper', () => {
  it('is the committed assembly of jsonSkip.wat', async () => {
    expect(readFileSync(OUT, 'utf8')).toBe(renderJsonSkipSource(await assembleJsonSkip()));
    expect(OUT).toBe(resolve(import.meta.dirname, '../../../../../src/generated/jsonSkip.wasm.b64.ts'));
  });

  it('skips any JSON value to its last byte, whitespace before it included', () => {
    fc.assert(
      fc.property(written, fc.constantFrom('', ' ', '\n  '), fc.constantFrom(',', ']', ' }', ''), (t, lead, tail) => {
        expect(skipper(`${lead}${t}${tail}`).skip(0)).toBe(lead.length + t.length);
      }),
      { numRuns: 400 },
    );
  });

  it('never accepts more than JSON: where it accepts a cut or corrupted text, JSON.parse accepts the same bytes', () => {
    const corrupt = fc.constantFrom(...'{}[],:"\\ 0a-e.tnu\u0001'.split('').map((c) => c.charCodeAt(0)));
    fc.assert(
      fc.property(written, fc.nat(), fc.option(corrupt), (t, at, flip) => {
        const buf = Buffer.from(t);
        const p = at % (buf.length + 1);
        const bad = flip === null ? buf.subarray(0, p) : Buffer.concat([buf.subarray(0, p), Buffer.from([flip]), buf.subarray(p + 1)]);
        const end = skipper(bad).skip(0);
        if (end >= 0) expect(() => JSON.parse(bad.toString('utf8', 0, end))).not.toThrow();
      }),
      { numRuns: 1500 },
    );
  });

  it('leaves to the JavaScript walk what it does not decide: a raw control character in a string, nesting past 4095, a value past the largest window', () => {
    expect(skipper('"a\u0001b"').skip(0)).toBe(-1);
    expect(skipper(`${"[".repeat(4095)}1${"]".repeat(4095)}`).skip(0)).toBe(8191);
    expect(skipper(`${"[".repeat(4096)}1${"]".repeat(4096)}`).skip(0)).toBe(-1);
    const long = JSON.stringify(['x'.repeat(300)]);
    expect(skipper(long, { window: 64, maxWindow: 256 }).skip(0)).toBe(-1);
    expect(skipper(long, { window: 64, maxWindow: 512 }).skip(0)).toBe(long.length);
    for (const text of [bodyWith('{"a": "x\u0001y"}'), bodyWith(`${'['.repeat(5000)}${']'.repeat(5000)}`)]) {
      expect(run(readBlocksStructural, Buffer.from(text), 10)).toEqual(run(readBlocksStructuralJs, Buffer.from(text), 10));
      expect(run(readBlocksStructural, Buffer.from(text), 10).ok).toBe(true);
    }
  });

  it('does not end a number at a window that cuts it', () => {
    for (let w = 1; w <= 8; w++) expect(skipper('12345678.5e+3 ', { window: w }).skip(0)).toBe(13);
    expect(skipper('12345678', { window: 4 }).skip(0)).toBe(8);
  });

  it('reads a body again from its own bytes when its buffer is reused (no stale window)', () => {
    const first = Buffer.from(bodyWith('{"a": [1, 2, 3]}'));
    expect(run(readBlocksStructural, first, 10).ok).toBe(true);
    // The same buffer, the authority now broken in place: the answer must see it.
    first.write('{"a": [1, 2, 3}', first.indexOf('{"a"'));
    const again = run(readBlocksStructural, first, 10);
    expect(again).toEqual(run(readBlocksStructuralJs, first, 10));
    expect(again.ok).toBe(false);
    // Two skippers used in turn each read their own body.
    const a = skipper(`"${'a'.repeat(40)}" [1]`, { window: 16 });
    const b = skipper(`[1, 2] "${'b'.repeat(40)}"`, { window: 16 });
    expect([a.skip(0), b.skip(0), a.skip(42), b.skip(6)]).toEqual([42, 6, 46, 49]);
  });

  it('gives the JavaScript reader’s answer and error, byte for byte, for any body in windows of any size', () => {
    const corrupt = fc.constantFrom(...'{}[],:"\\ 0a-e.tn'.split('').map((c) => c.charCodeAt(0)));
    fc.assert(
      fc.property(
        written,
        fc.integer({ min: 1, max: 300 }),
        fc.integer({ min: 0, max: 3 }),
        fc.nat(),
        fc.option(corrupt, { freq: 2 }),
        (value, window, doublings, at, flip) => {
          const buf = Buffer.from(bodyWith(value));
          const p = at % (buf.length + 1);
          const body = flip === null ? buf : Buffer.concat([buf.subarray(0, p), Buffer.from([flip]), buf.subarray(p + 1)]);
          const read = structuralReaderWith({ window, maxWindow: window << doublings });
          expect(run(read, body, 10)).toEqual(run(readBlocksStructuralJs, body, 10));
          expect(run(read, body.subarray(0, p), 10)).toEqual(run(readBlocksStructuralJs, body.subarray(0, p), 10));
          // The same bodies read in place, with digits (not zeros) after them in the buffer.
          expect(run(read, inPlace(body), 10)).toEqual(run(readBlocksStructuralJs, body, 10));
          expect(run(read, inPlace(body.subarray(0, p)), 10)).toEqual(run(readBlocksStructuralJs, body.subarray(0, p), 10));
        },
      ),
      { numRuns: 600 },
    );
  });

  it('reads the ledger node’s bodies where they lie, and never past a body’s end, even when more bytes land after it between two skips', () => {
    expect(readsInPlace(LEDGER_NODE_BODY_POOL.take(100_000))).toBe(true);
    const own = skipBodyBuffer(1000);
    expect(readsInPlace(own.subarray(1, 10))).toBe(false);
    expect(readsInPlace(Buffer.alloc(1000))).toBe(false);
    // A number and a string cut at the end of the bytes landed so far, the rest landing between two skips.
    const text = Buffer.from('[12345, "abcdefghijklmnopqrstuvwxyz0123456789"] 678 ');
    for (let cut = 0; cut <= text.length; cut++) {
      const buf = skipBodyBuffer(text.length + 64).fill(0);
      buf.set(text.subarray(0, cut));
      const view = buf.subarray(0, cut);
      const s = createJsonSkipper(view)!;
      const first = s.skip(0);
      buf.set(text.subarray(cut), cut);
      const second = s.skip(0);
      const whole = cut >= 47 ? 47 : -1;
      expect([first, second]).toEqual([whole, whole]);
      // A number at the end of the bytes is whole there (as the JavaScript walk reads it).
      expect(createJsonSkipper(view)!.skip(48)).toBe(cut <= 48 ? -1 : Math.min(cut, 51));
    }
  });
});
