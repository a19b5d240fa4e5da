import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VerifierError, type AnyVerifierError } from '../../../../src/errors.js';
import { TYPEA_PREFIX, cutTypeAReport, parseQuote, parseQuoteLayout } from '../../../../src/attestation/typeA/quote.js';

const SGX = path.resolve(process.cwd(), '../shared/vectors/sgx');
const recovered = new Uint8Array(Buffer.from(readFileSync(path.join(SGX, 'oracle-sgx-report.hex'), 'utf8').trim(), 'hex'));
const quote = recovered.slice(16);
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

function errorOf(f: () => unknown): AnyVerifierError {
  try {
    f();
  } catch (e) {
    if (e instanceof VerifierError) return e;
    throw new Error(`expected a VerifierError, got ${String(e)}`);
  }
  throw new Error('expected an error, got none');
}

function patched(offset: number, bytes: number[]): Uint8Array {
  const q = quote.slice();
  q.set(bytes, offset);
  return q;
}

// Offsets inside the oracle quote (auth data is 32 bytes).
const CERT_TYPE_OFFSET = 436 + 64 + 64 + 384 + 64 + 2 + 32;

describe('cutTypeAReport', () => {
  it('cuts the OE header and the zero padding', () => {
    const padded = new Uint8Array(5120);
    padded.set(recovered);
    expect(hex(cutTypeAReport(padded))).toBe(hex(quote));
    expect(hex(cutTypeAReport(recovered))).toBe(hex(quote));
    expect(hex(TYPEA_PREFIX)).toBe('0100000002000000');
  });
  it('names the first non-zero padding byte', () => {
    const padded = new Uint8Array(5120);
    padded.set(recovered);
    padded[5000] = 7;
    padded[5100] = 1;
    const e = errorOf(() => cutTypeAReport(padded));
    expect(e.code).toBe('QUOTE_BAD_ENVELOPE');
    expect(e.message).toContain('offset 5000');
  });
  it('refuses a wrong header, a too-long or empty declared length, a short input, a non-byte input', () => {
    const bad = recovered.slice();
    bad[4] = 3;
    expect(errorOf(() => cutTypeAReport(bad)).code).toBe('QUOTE_BAD_ENVELOPE');
    const long = recovered.slice();
    long[8] = 0xf9;
    expect(errorOf(() => cutTypeAReport(long)).message).toMatch(/declares a 4601-byte quote but only 4600/);
    const empty = recovered.slice(0, 16);
    empty.fill(0, 8);
    expect(errorOf(() => cutTypeAReport(empty)).code).toBe('QUOTE_BAD_ENVELOPE');
    expect(errorOf(() => cutTypeAReport(recovered.slice(0, 10))).code).toBe('QUOTE_BAD_ENVELOPE');
    expect(errorOf(() => cutTypeAReport('x' as unknown as Uint8Array)).code).toBe('QUOTE_NOT_BYTES');
    // A raw quote without the OE header is not what the notarizer emits.
    expect(errorOf(() => cutTypeAReport(quote)).code).toBe('QUOTE_BAD_ENVELOPE');
  });
});

describe('parseQuote on the oracle quote', () => {
  const q = parseQuote(quote);
  it('exposes the header and report body fields of the README', () => {
    expect(q.header).toMatchObject({ version: 3, attestationKeyType: 2, teeType: 0, qeSvn: 9, pceSvn: 14 });
    expect(hex(q.header.qeVendorId)).toBe('939a7233f79c4ca9940a0db3957f0607');
    expect(hex(q.header.userData)).toBe('091992f0b2fe1f77e2a4cfdfb2989a9500000000');
    const r = q.isvReport;
    expect(hex(r.cpuSvn)).toBe('12130a07ff8006000000000000000000');
    expect(r.miscSelect).toBe(0);
    expect(r.attributeFlags).toBe(5n);
    expect(r.xfrm).toBe(7n);
    expect(r.debug).toBe(false);
    expect(hex(r.mrEnclave)).toBe('5ac690ee17c61fd662defda61e2fa0497c700dc9c55728da5831c4beaa40e91a');
    expect(hex(r.mrSigner)).toBe('b43c017e8742d8354bd3bd043038c83f4f4ef2adae6886f5d6312b3e63d11ae1');
    expect([r.isvProdId, r.isvSvn]).toEqual([1, 1]);
    expect(hex(r.reportData)).toBe(`20e6250e16b5fd0a35631367926d74f4${'00'.repeat(48)}`);
    expect(hex(q.qeReport.mrEnclave)).toBe('192aa50ce1c0cef03ccf89e7b5b16b0d7978f5c2b1edcf774d87702e8154d8bf');
    expect(q.qeReport.attributeFlags).toBe(0x15n);
    expect([q.qeReport.isvProdId, q.qeReport.isvSvn]).toEqual([1, 9]);
    expect(hex(q.qeAuthData)).toBe(hex(Uint8Array.from({ length: 32 }, (_, i) => i)));
    expect(q.certDataType).toBe(5);
    expect(q.pckCertPems).toHaveLength(3);
    expect(q.pckCertDers.map((d) => d.length).every((n) => n > 500)).toBe(true);
    expect(q.signedBytes.length).toBe(432);
    expect(hex(q.signedBytes)).toBe(hex(quote.subarray(0, 432)));
  });
  it('sets debug from ATTRIBUTES flag 0x02', () => {
    expect(parseQuote(patched(48 + 48, [0x07])).isvReport.debug).toBe(true);
  });
});

describe('parseQuote rejects malformed quotes with QUOTE_* codes', () => {
  it('truncation at every offset → QUOTE_TRUNCATED, never another exception type', () => {
    for (let n = 0; n < quote.length; n++) {
      expect(errorOf(() => parseQuote(quote.subarray(0, n))).code).toBe('QUOTE_TRUNCATED');
    }
  });
  it('trailing bytes after the signature data', () => {
    const longer = new Uint8Array(quote.length + 1);
    longer.set(quote);
    expect(errorOf(() => parseQuote(longer)).code).toBe('QUOTE_TRAILING_BYTES');
  });
  it('trailing bytes inside the signature data (after the certification data)', () => {
    const longer = new Uint8Array(quote.length + 1);
    longer.set(quote);
    longer[432] = (quote[432]! + 1) & 0xff; // sig data length 4165
    expect(errorOf(() => parseQuote(longer)).message).toMatch(/1 bytes after the certification data/);
  });
  it('wrong certification data type', () => {
    const e = errorOf(() => parseQuote(patched(CERT_TYPE_OFFSET, [6, 0])));
    expect(e.code).toBe('QUOTE_BAD_CERT_DATA_TYPE');
    expect(e.message).toContain('type 6, expected 5');
  });
  it('wrong attestation key type', () => {
    expect(errorOf(() => parseQuote(patched(2, [3, 0]))).code).toBe('QUOTE_UNSUPPORTED_KEY_TYPE');
  });
  it('TDX by version (4, 5) or tee type 0x81', () => {
    expect(errorOf(() => parseQuote(patched(0, [4, 0]))).code).toBe('QUOTE_TDX_NOT_SUPPORTED');
    expect(errorOf(() => parseQuote(patched(0, [5, 0]))).code).toBe('QUOTE_TDX_NOT_SUPPORTED');
    expect(errorOf(() => parseQuote(patched(4, [0x81, 0, 0, 0]))).code).toBe('QUOTE_TDX_NOT_SUPPORTED');
    const tdx = new Uint8Array(readFileSync(path.join(SGX, 'dcap-qvl/tdx_quote')));
    expect(errorOf(() => parseQuote(tdx)).code).toBe('QUOTE_TDX_NOT_SUPPORTED');
  });
  it('other versions and tee types', () => {
    expect(errorOf(() => parseQuote(patched(0, [2, 0]))).code).toBe('QUOTE_UNSUPPORTED_VERSION');
    expect(errorOf(() => parseQuote(patched(4, [1, 0, 0, 0]))).code).toBe('QUOTE_UNSUPPORTED_TEE_TYPE');
  });
  it('non-Intel QE vendor', () => {
    expect(errorOf(() => parseQuote(patched(12, [0x00]))).code).toBe('QUOTE_BAD_QE_VENDOR');
  });
  it('PCK chain: junk inside the PEM, a non-PEM byte, fewer certificates', () => {
    const pemStart = CERT_TYPE_OFFSET + 6;
    expect(errorOf(() => parseQuote(patched(pemStart + 100, [0x21]))).code).toBe('QUOTE_BAD_PCK_CHAIN');
    expect(errorOf(() => parseQuote(patched(pemStart + 100, [0xc3]))).code).toBe('QUOTE_BAD_PCK_CHAIN');
    // Turn the 3rd BEGIN marker into text: only 2 blocks remain and text is left over.
    const text = Buffer.from(quote.subarray(pemStart)).toString('latin1');
    const third = text.lastIndexOf('-----BEGIN CERTIFICATE-----');
    expect(errorOf(() => parseQuote(patched(pemStart + third, [0x2a]))).code).toBe('QUOTE_BAD_PCK_CHAIN');
  });
  it('not bytes', () => {
    expect(errorOf(() => parseQuote(null as unknown as Uint8Array)).code).toBe('QUOTE_NOT_BYTES');
  });
  it('random byte mutations throw only QUOTE_* VerifierErrors (or parse)', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(quote.length - 1), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }), (edits) => {
        const q = quote.slice();
        for (const [o, b] of edits) q[o] = b;
        try {
          parseQuote(q);
        } catch (e) {
          return e instanceof VerifierError && e.code.startsWith('QUOTE_');
        }
        return true;
      }),
      { numRuns: 500 },
    );
  });
});

describe('parseQuoteLayout (the layout pass of the quote parser)', () => {
  const codeOrOk = (f: () => unknown): string => {
    try {
      f();
      return 'ok';
    } catch (e) {
      return e instanceof VerifierError ? e.code : `not a VerifierError: ${String(e)}`;
    }
  };
  it('is parseQuote without the DER of the PCK certificates', () => {
    const full = parseQuote(quote);
    const layout = parseQuoteLayout(quote);
    expect('pckCertDers' in layout).toBe(false);
    const { pckCertDers, ...rest } = full;
    expect(pckCertDers.map((d) => d.length)).toEqual(full.pckCertPems.map((p) => Buffer.from(p.replace(/-----[A-Z ]+-----|\s/g, ''), 'base64').length));
    expect(layout).toEqual(rest);
  });
  it('refuses what parseQuote refuses, with the same code, except a non-canonical certificate body', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.nat(quote.length - 1), fc.integer({ min: 0, max: 255 })), { minLength: 1, maxLength: 4 }), (edits) => {
        const q = quote.slice();
        for (const [o, b] of edits) q[o] = b;
        const full = codeOrOk(() => parseQuote(q));
        const layout = codeOrOk(() => parseQuoteLayout(q));
        return full === layout || (layout === 'ok' && full === 'QUOTE_BAD_PCK_CHAIN');
      }),
      { numRuns: 500 },
    );
    // A certificate body that is valid base64 but not canonical (non-zero bits after the last byte).
    const pemStart = CERT_TYPE_OFFSET + 6;
    const text = Buffer.from(quote.subarray(pemStart)).toString('latin1');
    const end = text.indexOf('=\n-----END CERTIFICATE-----');
    expect(end).toBeGreaterThan(0);
    const last = text.charCodeAt(end - 1);
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/';
    const flipped = alphabet.charCodeAt(alphabet.indexOf(String.fromCharCode(last)) ^ 1);
    const q = patched(pemStart + end - 1, [flipped]);
    expect(codeOrOk(() => parseQuoteLayout(q))).toBe('ok');
    expect(errorOf(() => parseQuote(q)).code).toBe('QUOTE_BAD_PCK_CHAIN');
  });
});
