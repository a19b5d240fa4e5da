/**
 * The depth scan of request bodies (src/server/jsonDepth.ts) jumps over value strings with
 * `indexOf` (issue 35): it must find exactly what a plain byte-by-byte scan finds (the same path,
 * or nothing), whatever the text (escapes, quotes, brackets inside strings, keys, multi-byte
 * characters) and however it is cut into chunks (an escape or a string split between chunks).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { JsonDepthScan } from '../../../src/server/jsonDepth.js';

/** The scan one byte at a time, as it was written first: the reference. */
function referenceScan(text: Uint8Array, maxDepth: number): string | undefined {
  const levels: { array: boolean; index: number; key: string; expectKey: boolean }[] = [];
  let inString = false;
  let escaped = false;
  let inKey = false;
  let keyText = '';
  for (const c of text) {
    if (inString) {
      if (escaped) escaped = false;
      else if (c === 0x5c) escaped = true;
      else if (c === 0x22) {
        inString = false;
        if (inKey) {
          levels[levels.length - 1]!.key = keyText;
          levels[levels.length - 1]!.expectKey = false;
          inKey = false;
        }
        continue;
      }
      if (inKey && keyText.length < 40) keyText += String.fromCharCode(c);
      continue;
    }
    const top = levels[levels.length - 1];
    if (c === 0x22) {
      inString = true;
      if (top && !top.array && top.expectKey) {
        inKey = true;
        keyText = '';
      }
    } else if (c === 0x7b || c === 0x5b) {
      if (levels.length >= maxDepth) {
        const segments = levels.map((l) => (l.array ? String(l.index) : l.key));
        return segments.length > 4 ? `${segments.slice(0, 4).join('/')}/…` : segments.join('/');
      }
      levels.push({ array: c === 0x5b, index: 0, key: '', expectKey: c === 0x7b });
    } else if (c === 0x7d || c === 0x5d) levels.pop();
    else if (c === 0x2c) {
      if (top?.array) top.index++;
      else if (top) top.expectKey = true;
    }
  }
  return undefined;
}

/** Text made of the bytes that matter to the scan, and some that do not. */
const token = fc.constantFrom('{', '}', '[', ']', '"', '\\', '\\"', '\\\\', ',', ':', 'a', 'key', ' ', 'é', '€', '{"k":', '["', '"]');
const body = fc.array(token, { maxLength: 300 }).map((t) => Buffer.from(t.join('')));

function scanInChunks(text: Buffer, cuts: number[], maxDepth: number): string | undefined {
  const scan = new JsonDepthScan(maxDepth);
  const at = [...new Set(cuts.map((c) => c % (text.length + 1)))].sort((a, b) => a - b);
  let from = 0;
  for (const to of [...at, text.length]) {
    const found = scan.feed(text.subarray(from, to));
    if (found !== undefined) return found;
    from = to;
  }
  return undefined;
}

describe('JsonDepthScan', () => {
  it('finds what the byte-by-byte scan finds, however the body is cut into chunks', () => {
    fc.assert(
      fc.property(body, fc.array(fc.nat(), { maxLength: 8 }), fc.integer({ min: 1, max: 6 }), (text, cuts, maxDepth) => {
        expect(scanInChunks(text, cuts, maxDepth)).toBe(referenceScan(text, maxDepth));
      }),
      { numRuns: 3000 },
    );
  });

  it('an escape cut between chunks, and brackets after escaped quotes in a value string', () => {
    const text = Buffer.from('{"a":"x\\"[[[\\\\","b":[[[');
    for (let cut = 0; cut <= text.length; cut++) expect(scanInChunks(text, [cut], 3)).toBe('b/0/0');
    expect(scanInChunks(Buffer.from('{"a":"\\"[[[[[[[[[["}'), [7], 3)).toBeUndefined();
  });
});
