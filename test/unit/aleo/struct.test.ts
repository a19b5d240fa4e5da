import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import {
  CHUNK_BYTES,
  REPORT_CHUNKS,
  USER_DATA_CHUNKS,
  formatChunkedStruct,
  maxChunkedStructLength,
  parseChunkedStruct,
  type StructStyle,
} from '../../../src/aleo/struct.js';
import { u128FromLE } from '../../../src/aleo/u128.js';
import { isVerifierError } from '../../../src/errors.js';

const POS = /at offset (\d+) \(line (\d+), column (\d+)\)$/;

/** Runs f, expects a VerifierError with `code`, a position suffix and (optionally) `msg`; returns the offset. */
function fails(f: () => unknown, code: string, msg?: RegExp): number {
  let err: unknown;
  try {
    f();
  } catch (e) {
    err = e;
  }
  if (!isVerifierError(err)) throw new Error(`expected VerifierError ${code}, got ${String(err)}`);
  expect(err.code, err.message).toBe(code);
  if (msg) expect(err.message).toMatch(msg);
  const m = POS.exec(err.message);
  expect(m, `no position in: ${err.message}`).not.toBeNull();
  return Number(m?.[1]);
}

/** Compact text of `chunks` chunks with the given value texts (default 0), for hostile edits. */
function compact(chunks: number, value: (c: number, f: number) => string = () => '0'): string {
  const cs: string[] = [];
  for (let c = 0; c < chunks; c++) {
    const fs: string[] = [];
    for (let f = 0; f < 32; f++) fs.push(`f${f}: ${value(c, f)}u128`);
    cs.push(`c${c}: { ${fs.join(', ')} }`);
  }
  return `{ ${cs.join(', ')} }`;
}

const TWO128 = 1n << 128n;
const STYLES: StructStyle[] = ['reference', 'pretty', 'compact'];

describe('formatChunkedStruct', () => {
  it('writes the three styles exactly', () => {
    const bytes = new Uint8Array(16);
    bytes[0] = 1;
    const ref = formatChunkedStruct(bytes, 1, 'reference');
    const zeros = Array.from({ length: 31 }, (_, i) => `f${i + 1}: 0u128`);
    expect(ref).toBe(`{  c0: {    f0: 1u128,${zeros.map((z) => `    ${z}`).join(',')}  }}`);
    expect(formatChunkedStruct(bytes, 1, 'pretty')).toBe(
      `{\n  c0: {\n    f0: 1u128,\n${zeros.map((z) => `    ${z}`).join(',\n')}\n  }\n}`,
    );
    expect(formatChunkedStruct(bytes, 1, 'compact')).toBe(`{ c0: { f0: 1u128, ${zeros.join(', ')} } }`);
    expect(formatChunkedStruct(bytes, 2, 'pretty').replaceAll('\n', '')).toBe(formatChunkedStruct(bytes, 2));
    expect(formatChunkedStruct(bytes, 2, 'pretty')).toContain('\n  },\n  c1: {\n    f0: 0u128,\n');
  });

  it('writes extreme values and little-endian groups', () => {
    const b = new Uint8Array(512).fill(0xff);
    b.fill(0, 16, 32);
    b[32] = 0x01;
    b.fill(0, 33, 48);
    b[63] = 0x80;
    b.fill(0, 48, 63);
    const t = formatChunkedStruct(b, 1, 'compact');
    expect(t).toMatch(/^\{ c0: \{ f0: 340282366920938463463374607431768211455u128, f1: 0u128, f2: 1u128, f3: 170141183460469231731687303715884105728u128, /);
  });

  it('zero-pads short input and rejects longer input and bad arguments', () => {
    expect(formatChunkedStruct(new Uint8Array(0), 8)).toBe(formatChunkedStruct(new Uint8Array(4096), 8));
    const e = (f: () => unknown, code: string) => {
      try {
        f();
      } catch (err) {
        expect(isVerifierError(err) && err.code).toBe(code);
        return;
      }
      throw new Error('did not throw');
    };
    e(() => formatChunkedStruct(new Uint8Array(4097), 8), 'STRUCT_BYTES_TOO_LONG');
    e(() => formatChunkedStruct(new Uint8Array(1), 0), 'STRUCT_INVALID_ARGUMENT');
    e(() => formatChunkedStruct(new Uint8Array(1), 1.5), 'STRUCT_INVALID_ARGUMENT');
    e(() => formatChunkedStruct(new Uint8Array(1), 1, 'json' as StructStyle), 'STRUCT_INVALID_ARGUMENT');
    e(() => formatChunkedStruct(new Uint8Array(1), 1, 'toString' as StructStyle), 'STRUCT_INVALID_ARGUMENT');
    e(() => parseChunkedStruct(42 as unknown as string, 8), 'STRUCT_INVALID_ARGUMENT');
  });
});

describe('parseChunkedStruct: round trips (property)', () => {
  const chunkArb = fc.integer({ min: 1, max: 10 });
  /** Bytes biased to produce zeros, all-ones groups, small and huge values. */
  const groupArb = fc.oneof(
    fc.uint8Array({ minLength: 16, maxLength: 16 }),
    fc.constant(new Uint8Array(16)),
    fc.constant(new Uint8Array(16).fill(0xff)),
    fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }).map((v) => {
      const g = new Uint8Array(16);
      new DataView(g.buffer).setBigUint64(0, v, true);
      return g;
    }),
  );

  it('parse(format(bytes, style)) = bytes for every style', () => {
    fc.assert(
      fc.property(
        chunkArb.chain((n) => fc.tuple(fc.constant(n), fc.array(groupArb, { minLength: 0, maxLength: n * 32 }))),
        fc.constantFrom(...STYLES),
        ([n, groups], style) => {
          const bytes = new Uint8Array(n * CHUNK_BYTES);
          groups.forEach((g, i) => bytes.set(g, i * 16));
          const text = formatChunkedStruct(bytes, n, style);
          expect(parseChunkedStruct(text, n)).toEqual(bytes);
          expect(text.length).toBeLessThanOrEqual(maxChunkedStructLength(n));
        },
      ),
      { numRuns: 150 },
    );
  });

  it('values agree with u128FromLE, and format(parse(text)) restores the reference text', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 512, maxLength: 512 }), (bytes) => {
        const text = formatChunkedStruct(bytes, 1, 'compact');
        const values = [...text.matchAll(/: (\d+)u128/g)].map((m) => BigInt(m[1] as string));
        values.forEach((v, i) => expect(v).toBe(u128FromLE(bytes, i * 16)));
        expect(formatChunkedStruct(parseChunkedStruct(text, 1), 1)).toBe(formatChunkedStruct(bytes, 1));
      }),
      { numRuns: 100 },
    );
  });

  it('converts exactly at every digit count (1…45) and around limb / power-of-ten boundaries', () => {
    const values: bigint[] = [];
    for (let e = 0n; e <= 128n; e += 1n) values.push((1n << e) - 1n, 1n << e, (1n << e) + 1n);
    for (let e = 0n; e <= 40n; e += 1n) values.push(10n ** e - 1n, 10n ** e, 10n ** e + 1n);
    const digitsArb = fc
      .tuple(fc.integer({ min: 1, max: 9 }), fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 0, maxLength: 44 }))
      .map(([h, t]) => BigInt(`${h}${t.join('')}`));
    values.push(...fc.sample(digitsArb, 400));
    for (const v of values) {
      const text = compact(1, (_c, f) => (f === 31 ? v.toString() : '0'));
      if (v < TWO128) {
        expect(u128FromLE(parseChunkedStruct(text, 1), 31 * 16), v.toString()).toBe(v);
      } else {
        fails(() => parseChunkedStruct(text, 1), 'STRUCT_VALUE_OUT_OF_RANGE', new RegExp(`\\(${v.toString().length} digits\\)`));
      }
    }
  });

  it('accepts arbitrary whitespace (space, tab, LF, CR) between tokens', () => {
    const wsArb = fc.array(fc.constantFrom(' ', '\t', '\n', '\r'), { maxLength: 3 }).map((a) => a.join(''));
    fc.assert(
      fc.property(
        fc.uint8Array({ minLength: 0, maxLength: 1024 }),
        fc.array(wsArb, { minLength: 2000, maxLength: 2000 }),
        (bytes, spaces) => {
          const text = formatChunkedStruct(bytes, 2, 'compact');
          // tokens: braces, commas, colons, keys and literals; re-join them with random whitespace
          const tokens = text.match(/[{}:,]|[a-z0-9]+/g) ?? [];
          let k = 0;
          const spaced = spaces[k++] + tokens.map((t) => t + (spaces[k++ % spaces.length] as string)).join('');
          const expected = new Uint8Array(1024);
          expected.set(bytes);
          expect(parseChunkedStruct(spaced, 2)).toEqual(expected);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('parses every value below 2^128 and rejects every value at or above it', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: TWO128 * 1000n }), (v) => {
        const text = compact(1, (_c, f) => (f === 5 ? v.toString() : '0'));
        if (v < TWO128) {
          expect(u128FromLE(parseChunkedStruct(text, 1), 5 * 16)).toBe(v);
        } else {
          fails(() => parseChunkedStruct(text, 1), 'STRUCT_VALUE_OUT_OF_RANGE', /chunk c0 field f5: value ≥ 2\^128/);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('parseChunkedStruct: hostile input', () => {
  const ud = (value: (c: number, f: number) => string) => compact(USER_DATA_CHUNKS, value);
  const at = (c: number, f: number, v: string) => (cc: number, ff: number) => (cc === c && ff === f ? v : '0');

  it('range: 2^128-1 ok; 2^128, 10^40, 40 digits rejected with position', () => {
    const max = (TWO128 - 1n).toString();
    const bytes = parseChunkedStruct(ud(at(3, 7, max)), 8);
    expect(bytes.subarray((3 * 32 + 7) * 16, (3 * 32 + 8) * 16).every((x) => x === 0xff)).toBe(true);
    const t = ud(at(3, 7, TWO128.toString()));
    const off = fails(() => parseChunkedStruct(t, 8), 'STRUCT_VALUE_OUT_OF_RANGE', /^userData chunk c3 field f7: value ≥ 2\^128 \(39 digits\) at offset \d+ \(line 1, column \d+\)$/);
    expect(t.slice(off, off + 39)).toBe(TWO128.toString());
    fails(() => parseChunkedStruct(ud(at(0, 0, (10n ** 40n).toString())), 8), 'STRUCT_VALUE_OUT_OF_RANGE', /\(41 digits\)/);
    fails(() => parseChunkedStruct(ud(at(7, 31, '9'.repeat(40))), 8), 'STRUCT_VALUE_OUT_OF_RANGE', /chunk c7 field f31/);
    fails(() => parseChunkedStruct(ud(at(1, 1, '9'.repeat(39))), 8), 'STRUCT_VALUE_OUT_OF_RANGE');
    fails(() => parseChunkedStruct(ud(at(1, 1, '1' + '0'.repeat(5000))), 8), 'STRUCT_VALUE_OUT_OF_RANGE');
  });

  it('literal syntax: leading zeros, signs, hex, unicode digits, bad suffixes, NUL', () => {
    fails(() => parseChunkedStruct(ud(at(2, 3, '01')), 8), 'STRUCT_SYNTAX', /chunk c2 field f3: leading zeros are not allowed/);
    fails(() => parseChunkedStruct(ud(at(2, 3, '00')), 8), 'STRUCT_SYNTAX', /leading zeros/);
    fails(() => parseChunkedStruct(ud(at(0, 0, '+1')), 8), 'STRUCT_SYNTAX', /found "\+" \(signs are not allowed\)/);
    fails(() => parseChunkedStruct(ud(at(0, 0, '-1')), 8), 'STRUCT_SYNTAX', /signs are not allowed/);
    fails(() => parseChunkedStruct(ud(at(0, 0, '0x1f')), 8), 'STRUCT_SYNTAX', /hexadecimal/);
    fails(() => parseChunkedStruct(ud(at(0, 0, '１')), 8), 'STRUCT_SYNTAX', /found "１" \(U\+FF11\)/);
    fails(() => parseChunkedStruct(ud(at(0, 0, '1١')), 8), 'STRUCT_SYNTAX', /expected the suffix "u128"/);
    fails(() => parseChunkedStruct(ud(at(0, 1, '1.5')), 8), 'STRUCT_SYNTAX', /expected the suffix "u128", found "\."/);
    fails(() => parseChunkedStruct(ud(at(0, 1, '1e3')), 8), 'STRUCT_SYNTAX', /suffix/);
    fails(() => parseChunkedStruct(ud(at(0, 1, '"1')).replace('1u128', '1u128"'), 8), 'STRUCT_SYNTAX');
    const noSuffix = compact(1).replace('f4: 0u128', 'f4: 0u64');
    fails(() => parseChunkedStruct(noSuffix, 1), 'STRUCT_SYNTAX', /field f4: expected the suffix "u128", found "u64"/);
    fails(() => parseChunkedStruct(compact(1).replace('f4: 0u128', 'f4: 0u1280'), 1), 'STRUCT_SYNTAX', /u1280/);
    fails(() => parseChunkedStruct(compact(1).replace('f4: 0u128', 'f4: 0U128'), 1), 'STRUCT_SYNTAX');
    fails(() => parseChunkedStruct(compact(1).replace('f4: 0u128', 'f4: u128'), 1), 'STRUCT_SYNTAX', /found "u128"/);
    fails(() => parseChunkedStruct(compact(1).replace('f4: 0u128', 'f4: 0u128.public'), 1), 'STRUCT_SYNTAX');
    const nul = compact(1).replace('f9: 0u128', 'f9: 0\u0000u128');
    const off = fails(() => parseChunkedStruct(nul, 1), 'STRUCT_SYNTAX', /found U\+0000/);
    expect(nul.charCodeAt(off)).toBe(0);
    fails(() => parseChunkedStruct(compact(1).replace('f9: 0u128', 'f9:\u00a00u128'), 1), 'STRUCT_SYNTAX', /U\+00A0/);
  });

  it('chunk and field counts', () => {
    fails(() => parseChunkedStruct(compact(7), 8), 'STRUCT_CHUNK_COUNT', /^userData has 7 chunks, expected 8: found "}"/);
    fails(() => parseChunkedStruct(compact(9), 8), 'STRUCT_CHUNK_COUNT', /^userData has more than 8 chunks: found extra key "c8"/);
    fails(() => parseChunkedStruct(compact(9), 10), 'STRUCT_CHUNK_COUNT', /^report has 9 chunks, expected 10/);
    fails(() => parseChunkedStruct(compact(11), 10), 'STRUCT_CHUNK_COUNT', /^report has more than 10 chunks/);
    fails(() => parseChunkedStruct('{ c0: {} }', 1), 'STRUCT_SYNTAX', /expected field key "f0", found "}"/);
    fails(() => parseChunkedStruct('{}', 8), 'STRUCT_SYNTAX', /expected chunk key "c0", found "}"/);
    const f31 = compact(1).replace(', f31: 0u128', '');
    fails(() => parseChunkedStruct(f31, 1), 'STRUCT_FIELD_COUNT', /chunk c0 has 31 fields, expected 32/);
    const f33 = compact(1).replace('f31: 0u128', 'f31: 0u128, f32: 0u128');
    fails(() => parseChunkedStruct(f33, 1), 'STRUCT_FIELD_COUNT', /chunk c0 has more than 32 fields: found extra key "f32"/);
  });

  it('key order: missing, duplicate, out-of-order, misspelt keys', () => {
    const t = compact(8);
    fails(() => parseChunkedStruct(t.replace('c3:', 'c4:'), 8), 'STRUCT_KEY_ORDER', /expected chunk key "c3", found "c4"/);
    fails(() => parseChunkedStruct(t.replace('c3:', 'c2:'), 8), 'STRUCT_KEY_ORDER', /expected chunk key "c3", found "c2"/);
    fails(() => parseChunkedStruct(t.replace('c0:', 'C0:'), 8), 'STRUCT_KEY_ORDER', /found "C0"/);
    fails(() => parseChunkedStruct(t.replace('c1:', 'c01:'), 8), 'STRUCT_KEY_ORDER', /found "c01"/);
    fails(() => parseChunkedStruct(t.replace('c1:', 'c1x:'), 8), 'STRUCT_KEY_ORDER', /found "c1x"/);
    fails(() => parseChunkedStruct(t.replace('c1:', '"c1":'), 8), 'STRUCT_SYNTAX', /expected chunk key "c1", found "\\""/);
    fails(() => parseChunkedStruct(t.replace('f7: 0u128, f8', 'f8: 0u128, f7'), 8), 'STRUCT_KEY_ORDER', /chunk c0: expected field key "f7", found "f8"/);
    fails(() => parseChunkedStruct(t.replace('f7: 0u128, f8', 'f6: 0u128, f8'), 8), 'STRUCT_KEY_ORDER', /found "f6"/);
    fails(() => parseChunkedStruct(t.replace('f7: 0u128, ', ''), 8), 'STRUCT_KEY_ORDER', /expected field key "f7", found "f8"/);
    fails(() => parseChunkedStruct(t.replace('f7:', 'f7 0u128 :'), 8), 'STRUCT_SYNTAX', /expected ":" after "f7"/);
  });

  it('punctuation: trailing commas, missing commas, doubled commas, semicolons', () => {
    const t = compact(8);
    fails(() => parseChunkedStruct(t.replace(/ } }$/, ' }, }'), 8), 'STRUCT_SYNTAX', /^userData: trailing comma/);
    fails(() => parseChunkedStruct(t.replace('f31: 0u128 }', 'f31: 0u128, }'), 8), 'STRUCT_SYNTAX', /chunk c0: trailing comma/);
    fails(() => parseChunkedStruct(t.replace('f1: 0u128,', 'f1: 0u128'), 8), 'STRUCT_SYNTAX', /expected "," or "}" after field f1, found "f2"/);
    fails(() => parseChunkedStruct(t.replace('f1: 0u128,', 'f1: 0u128,,'), 8), 'STRUCT_SYNTAX', /expected field key "f2", found ","/);
    fails(() => parseChunkedStruct(t.replace('f1: 0u128,', 'f1: 0u128;'), 8), 'STRUCT_SYNTAX', /found ";"/);
    fails(() => parseChunkedStruct(t.replace('}, c1', '} c1'), 8), 'STRUCT_SYNTAX', /after chunk c0, found "c1"/);
    fails(() => parseChunkedStruct(t.replace('c1: {', 'c1: ['), 8), 'STRUCT_SYNTAX', /chunk c1: expected "{", found "\["/);
  });

  it('framing: empty, whitespace only, trailing data, deep nesting, NUL after end', () => {
    const z = fails(() => parseChunkedStruct('', 8), 'STRUCT_SYNTAX', /expected "\{", found end of input at offset 0 \(line 1, column 1\)$/);
    expect(z).toBe(0);
    fails(() => parseChunkedStruct(' \n\t ', 8), 'STRUCT_SYNTAX', /end of input at offset 4 \(line 2, column 3\)/);
    fails(() => parseChunkedStruct(compact(8) + ' x', 8), 'STRUCT_TRAILING_DATA', /unexpected "x" after the closing "}"/);
    fails(() => parseChunkedStruct(compact(8) + '}', 8), 'STRUCT_TRAILING_DATA');
    fails(() => parseChunkedStruct(compact(8) + '\u0000', 8), 'STRUCT_TRAILING_DATA', /U\+0000/);
    fails(() => parseChunkedStruct('{'.repeat(50_000), 10), 'STRUCT_SYNTAX', /expected chunk key "c0", found "\{" at offset 1/);
    fails(() => parseChunkedStruct(compact(8).slice(0, -3), 8), 'STRUCT_SYNTAX', /end of input/);
    fails(() => parseChunkedStruct('[' + compact(8) + ']', 8), 'STRUCT_SYNTAX', /found "\["/);
    fails(() => parseChunkedStruct('\ufeff' + compact(8), 8), 'STRUCT_SYNTAX', /U\+FEFF/);
  });

  it('reports line and column for pretty-printed input', () => {
    const pretty = formatChunkedStruct(new Uint8Array(0), 8, 'pretty').replace('    f2: 0u128', '    f2: -0u128');
    fails(() => parseChunkedStruct(pretty, 8), 'STRUCT_SYNTAX', /at offset 48 \(line 5, column 9\)$/);
  });

  // Up front, before any scanning: a scan would report a syntax error (spaces only) or a value ≥ 2^128
  // (10 MB of digits) instead of the length.
  it('rejects oversized input up front, by its length', () => {
    const huge = ' '.repeat(10 * 1024 * 1024);
    expect(() => parseChunkedStruct(huge, 10)).toThrow(/more than the \d+ allowed for 10 chunks/);
    const hugeDigits = compact(1).replace('f0: 0', `f0: ${'9'.repeat(10 * 1024 * 1024)}`);
    let code = '';
    try {
      parseChunkedStruct(hugeDigits, 1);
    } catch (e) {
      code = isVerifierError(e) ? e.code : '';
    }
    expect(code).toBe('STRUCT_TOO_LONG');
    // the bound is generous: a pretty-printed report padded with 10 spaces per token still parses
    const padded = formatChunkedStruct(new Uint8Array(5120).fill(0xff), REPORT_CHUNKS, 'pretty').replace(/ /g, '          ');
    expect(parseChunkedStruct(padded, REPORT_CHUNKS).every((x) => x === 0xff)).toBe(true);
  });

  it('rejects invalid chunk counts', () => {
    for (const n of [0, -1, 1.5, Number.NaN, 1e9]) {
      expect(() => parseChunkedStruct('{}', n)).toThrow(/chunk count must be an integer/);
    }
  });
});
