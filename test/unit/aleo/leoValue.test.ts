import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import { parseLeoU128Struct, pcrsFromLeo, uniqueIdFromLeo, PCR_KEYS } from '../../../src/aleo/leoValue.js';
import { formatPcrStruct, formatUniqueId } from '../../../src/aleo/ids.js';
import { MAX_U128 } from '../../../src/aleo/u128.js';
import { isVerifierError } from '../../../src/errors.js';

function fails(f: () => unknown, code: string, msg?: RegExp): void {
  let err: unknown;
  try {
    f();
  } catch (e) {
    err = e;
  }
  expect(isVerifierError(err), `expected a VerifierError ${code}, got ${String(err)}`).toBe(true);
  if (!isVerifierError(err)) return;
  expect(err.code).toBe(code);
  if (msg) expect(err.message).toMatch(msg);
}

const KEYS = ['chunk_1', 'chunk_2'] as const;
const POS = /at offset \d+ \(line \d+, column \d+\)/;

describe('parseLeoU128Struct', () => {
  it('parses the node pretty-printed form and the single-line form', () => {
    const pretty = '{\n  chunk_1: 31929802673692760512905395015836068420u128,\n  chunk_2: 335853521753947303372057454886636012152u128\n}';
    expect(parseLeoU128Struct(pretty, KEYS)).toEqual([
      31929802673692760512905395015836068420n,
      335853521753947303372057454886636012152n,
    ]);
    expect(parseLeoU128Struct('{ chunk_1: 1u128, chunk_2: 0u128 }', KEYS)).toEqual([1n, 0n]);
    expect(parseLeoU128Struct('\r\n\t{chunk_1:1u128,chunk_2:2u128}\n', KEYS)).toEqual([1n, 2n]);
    expect(parseLeoU128Struct(`{ chunk_1: ${MAX_U128}u128, chunk_2: 0u128 }`, KEYS)).toEqual([MAX_U128, 0n]);
  });

  it('rejects malformed texts with the exact code and a position', () => {
    fails(() => parseLeoU128Struct('', KEYS), 'STRUCT_SYNTAX', /expected "\{" at offset 0 \(line 1, column 1\), found end of input/);
    fails(() => parseLeoU128Struct('{ chunk_2: 1u128, chunk_1: 2u128 }', KEYS), 'STRUCT_KEY_ORDER', /expected key "chunk_1" at offset 2 .*found "chunk_2"/);
    fails(() => parseLeoU128Struct('{ chunk_1: 1u128, chunk_1: 2u128 }', KEYS), 'STRUCT_KEY_ORDER', POS);
    fails(() => parseLeoU128Struct('{ chunk_1: 1u128 }', KEYS), 'STRUCT_FIELD_COUNT', /has 1 field, expected 2/);
    fails(() => parseLeoU128Struct('{ chunk_1: 1u128, chunk_2: 2u128, chunk_3: 3u128 }', KEYS), 'STRUCT_FIELD_COUNT', /unexpected key "chunk_3"/);
    fails(() => parseLeoU128Struct('{ chunk_1: 1u128, chunk_2: 2u128, }', KEYS), 'STRUCT_SYNTAX', /trailing comma at offset 32/);
    fails(() => parseLeoU128Struct('{ chunk_1: 1u128, chunk_2: 2u128 } x', KEYS), 'STRUCT_TRAILING_DATA', /"x" after the closing "\}" at offset 35/);
    fails(() => parseLeoU128Struct(`{ chunk_1: ${MAX_U128 + 1n}u128, chunk_2: 2u128 }`, KEYS), 'STRUCT_VALUE_OUT_OF_RANGE', /"chunk_1".*≥ 2\^128 at offset 11/);
    fails(() => parseLeoU128Struct(`{ chunk_1: 1${'0'.repeat(40)}u128, chunk_2: 2u128 }`, KEYS), 'STRUCT_VALUE_OUT_OF_RANGE', POS);
    fails(() => parseLeoU128Struct('{ chunk_1: 01u128, chunk_2: 2u128 }', KEYS), 'STRUCT_SYNTAX', /leading zero at offset 11/);
    fails(() => parseLeoU128Struct('{ chunk_1: -1u128, chunk_2: 2u128 }', KEYS), 'STRUCT_SYNTAX', /found "-"/);
    fails(() => parseLeoU128Struct('{ chunk_1: 1u64, chunk_2: 2u128 }', KEYS), 'STRUCT_SYNTAX', /suffix "u128"/);
    fails(() => parseLeoU128Struct('{ chunk_1: "1u128", chunk_2: 2u128 }', KEYS), 'STRUCT_SYNTAX', POS);
    fails(() => parseLeoU128Struct('{ chunk_1: １u128, chunk_2: 2u128 }', KEYS), 'STRUCT_SYNTAX', /U\+FF11/);
    fails(() => parseLeoU128Struct('{\n  chunk_1: 1u128\n  chunk_2: 2u128\n}', KEYS), 'STRUCT_SYNTAX', /line 3, column 3/);
    fails(() => parseLeoU128Struct(' '.repeat(10_000_000), KEYS), 'STRUCT_TOO_LONG', /10000000 characters/);
    fails(() => parseLeoU128Struct('{ chunk_1: 1u128, chunk_2: 2u128 }', []), 'STRUCT_INVALID_ARGUMENT');
  });
});

describe('uniqueIdFromLeo / pcrsFromLeo round-trip with ids.ts', () => {
  it('round-trips random ids and PCRs in single-line and pretty form', () => {
    fc.assert(
      fc.property(fc.uint8Array({ minLength: 32, maxLength: 32 }), fc.boolean(), (id, pretty) => {
        let text = formatUniqueId(id);
        if (pretty) text = text.replace('{ ', '{\n  ').replace(', ', ',\n  ').replace(' }', '\n}');
        expect(uniqueIdFromLeo(text)).toEqual(id);
      }),
      { numRuns: 200 },
    );
    fc.assert(
      fc.property(fc.array(fc.uint8Array({ minLength: 48, maxLength: 48 }), { minLength: 3, maxLength: 3 }), (pcrs) => {
        expect(pcrsFromLeo(formatPcrStruct(pcrs))).toEqual(pcrs);
      }),
      { numRuns: 100 },
    );
  });

  it('PCR struct keys are checked in order', () => {
    const text = formatPcrStruct([new Uint8Array(48), new Uint8Array(48), new Uint8Array(48)]);
    expect(text.match(/pcr_\d_chunk_\d/g)).toEqual([...PCR_KEYS]);
    fails(() => pcrsFromLeo(text.replace('pcr_1_chunk_2', 'pcr_1_chunk_3')), 'STRUCT_KEY_ORDER', /PCR struct: expected key "pcr_1_chunk_2"/);
  });
});
