import { describe, expect, it } from 'vitest';
import { decodeProofData, encodeProofData, formatDoubleFixed, padProofData, truncateFloatString } from '../../../src/encoding/index.js';
import type { ProofDataInput } from '../../../src/encoding/index.js';
import { codeOf } from '../../support/errors.js';

const input: ProofDataInput = {
  url: 'api.example.com/price', requestMethod: 'POST', selector: 'price', responseFormat: 'json',
  requestHeaders: { Accept: '*/*' }, requestBody: 'x', requestContentType: 'text/plain',
  encodingOptions: { value: 'float', precision: 2 }, attestationData: '1.5', responseStatusCode: 200, timestamp: 1,
};
const good = (): Uint8Array => padProofData(encodeProofData(input));


describe('truncateFloatString', () => {
  it('cuts, never rounds; precision 0 drops the fraction', () => {
    expect(truncateFloatString('1.239', 3)).toBe('1.239');
    expect(truncateFloatString('1.2399', 3)).toBe('1.239');
    expect(truncateFloatString('1.23', 3)).toBe('1.23');
    expect(truncateFloatString('1.99', 0)).toBe('1');
    expect(truncateFloatString('42', 2)).toBe('42');
    expect(() => truncateFloatString('1.5', -1)).toThrow(RangeError);
  });
});

describe('formatDoubleFixed', () => {
  it('rounds exact binary ties to even (unlike toFixed)', () => {
    expect((0.125).toFixed(2)).toBe('0.13');
    expect(formatDoubleFixed(0.125, 2)).toBe('0.12');
    expect(formatDoubleFixed(2 ** 64, 0)).toBe('18446744073709551616');
    expect(formatDoubleFixed(104941.2, 12)).toBe('104941.199999999997');
  });
});

describe('decodeProofData rejects malformed buffers', () => {
  it('accepts the well-formed buffer', () => {
    expect(decodeProofData(good()).requestBody).toBe('x');
  });
  it('too short', () => expect(codeOf(() => decodeProofData(new Uint8Array(31)))).toBe('PROOF_DATA_TOO_SHORT'));
  it('section overrun', () => {
    const b = good();
    b[10] = 0xff; b[11] = 0xff; // url length 65535
    expect(codeOf(() => decodeProofData(b))).toBe('PROOF_DATA_SECTION_OVERRUN');
  });
  it('non-zero bytes after the sections', () => {
    const b = good();
    b[4000] = 1;
    expect(codeOf(() => decodeProofData(b))).toBe('PROOF_DATA_NONZERO_PADDING');
  });
  it('bad response format byte', () => {
    const raw = encodeProofData(input);
    const b = padProofData(raw);
    // response format block follows url (2 blocks) and selector (1 block) after att/ts/status
    b[32 + 16 * 3 + 32 + 16] = 7;
    expect(codeOf(() => decodeProofData(b))).toBe('PROOF_DATA_BAD_FORMAT');
  });
  it('missing ":" in a header entry', () => {
    const b = good();
    const at = Buffer.from(b).indexOf(Buffer.from('Accept:'));
    b[at + 6] = 0x3b; // ';'
    expect(codeOf(() => decodeProofData(b))).toBe('PROOF_DATA_BAD_HEADERS');
  });
  it('optional field length mismatch', () => {
    const b = good();
    const at = Buffer.from(b).indexOf(Buffer.from('text/plain'));
    b[at - 16] = 40; // content type length 10 -> 40 overruns the section
    expect(codeOf(() => decodeProofData(b))).toBe('PROOF_DATA_BAD_OPTIONAL_FIELDS');
  });
  it('precision above 12', () => {
    const b = good();
    const opt = Buffer.from(b).indexOf(Buffer.from('POST')) + 16;
    b[opt + 8] = 13;
    expect(codeOf(() => decodeProofData(b))).toBe('PROOF_DATA_BAD_ENCODING_OPTIONS');
  });
  it('padProofData refuses data longer than the userData', () => {
    expect(codeOf(() => padProofData(new Uint8Array(4097)))).toBe('PROOF_DATA_TOO_LONG');
  });
});
