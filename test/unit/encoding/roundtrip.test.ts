import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeProofData, encodeProofData } from '../../../src/encoding/index.js';
import type { DecodedData, ProofDataInput } from '../../../src/encoding/index.js';

const text = (max: number) => fc.string({ unit: 'grapheme', maxLength: max });
const headerKey = fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 12 }).filter((k) => !k.includes(':'));

const floatCase = fc
  .record({
    precision: fc.integer({ min: 0, max: 12 }),
    int: fc.bigInt({ min: 0n, max: 999n }), // ≤ 15 significant digits: decoding is exact
    frac: fc.bigInt({ min: 0n, max: 10n ** 12n - 1n }),
  })
  .map(({ precision, int, frac }) => {
    const f = precision === 0 ? '' : (frac % 10n ** BigInt(precision)).toString().padStart(precision, '0');
    const value = f === '' ? int.toString() : `${int}.${f}`;
    return { value, precision, expected: f === '' ? int.toString() + (precision ? '.' + '0'.repeat(precision) : '') : `${int}.${f}` };
  });

const valueCase = fc.oneof(
  text(200).filter((s) => !s.endsWith('\0')).map((s) => ({ options: { value: 'string' as const, precision: 0 }, value: s, expected: s })),
  fc.bigInt({ min: 0n, max: (1n << 64n) - 1n }).map((v) => ({ options: { value: 'int' as const, precision: 0 }, value: v.toString(), expected: v.toString() })),
  floatCase.map((c) => ({ options: { value: 'float' as const, precision: c.precision }, value: c.value, expected: c.expected })),
);

const inputArb = fc.record({
  url: fc.string({ minLength: 1, maxLength: 80 }),
  requestMethod: fc.constantFrom('GET', 'POST'),
  selector: text(40),
  responseFormat: fc.constantFrom('json', 'html'),
  htmlResultType: fc.option(fc.constantFrom('element', 'value'), { nil: undefined }),
  requestBody: fc.option(text(100), { nil: undefined }),
  requestContentType: fc.option(text(30), { nil: undefined }),
  requestHeaders: fc.option(fc.dictionary(headerKey, text(30), { maxKeys: 5 }), { nil: undefined }),
  value: valueCase,
  responseStatusCode: fc.integer({ min: 0, max: 999 }),
  timestamp: fc.integer({ min: -1, max: 2 ** 40 }),
});

function expectedDecoded(x: ProofDataInput & { expected: string }): DecodedData {
  const out = { url: x.url, requestMethod: x.requestMethod } as DecodedData;
  if (x.selector !== '') out.selector = x.selector;
  out.responseFormat = x.responseFormat as 'json' | 'html';
  if (x.htmlResultType !== undefined) out.htmlResultType = x.htmlResultType;
  if (x.requestBody !== undefined) out.requestBody = x.requestBody;
  if (x.requestContentType !== undefined) out.requestContentType = x.requestContentType;
  const keys = Object.keys(x.requestHeaders ?? {});
  if (keys.length > 0) {
    const enc = new TextEncoder();
    keys.sort((a, b) => Buffer.compare(enc.encode(a), enc.encode(b)));
    out.requestHeaders = Object.fromEntries(keys.map((k) => [k, x.requestHeaders![k]!]));
  }
  out.encodingOptions = { value: x.encodingOptions.value as 'string', precision: x.encodingOptions.precision };
  out.attestationData = x.expected;
  out.responseStatusCode = x.responseStatusCode;
  out.timestamp = x.timestamp;
  return out;
}

function toInput(r: { value: { options: { value: string; precision: number }; value: string; expected: string } } & Omit<ProofDataInput, 'attestationData' | 'encodingOptions'>) {
  const { value, ...rest } = r;
  const input: ProofDataInput = { ...rest, encodingOptions: value.options, attestationData: value.value };
  return { input, expected: value.expected };
}

describe('proof data round trip', () => {
  it('decode(encode(x)) deep-equals x (normalised), key order included', () => {
    fc.assert(
      fc.property(inputArb, (r) => {
        const { input, expected } = toInput(r);
        const decoded = decodeProofData(encodeProofData(input));
        const want = expectedDecoded({ ...input, expected });
        expect(JSON.stringify(decoded)).toBe(JSON.stringify(want));
      }),
      { numRuns: 300 },
    );
  });
  it('legacy era round-trips as well', () => {
    fc.assert(
      fc.property(inputArb.filter((r) => r.value.options.value !== 'float' || r.value.value.includes('.') || r.value.options.precision === 0), (r) => {
        const { input, expected } = toInput(r);
        const decoded = decodeProofData(encodeProofData(input, { era: 'legacy' }));
        expect(decoded.attestationData).toBe(expected);
      }),
      { numRuns: 100 },
    );
  });
});
