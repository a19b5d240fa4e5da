import { readFileSync, readdirSync } from 'node:fs';
import { resolve } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isVerifierError } from '../../src/errors.js';
import { decodeProofData, encodeProofData, padProofData, prepareAttestationData } from '../../src/encoding/index.js';
import type { ProofDataInput } from '../../src/encoding/index.js';
import { encodeAttestationValue } from '../../src/encoding/attestationData.js';
import { parseChunkedStruct } from '../../src/aleo/struct.js';

const ALEO = resolve(process.cwd(), '../shared/vectors/aleo');
const readJson = <T>(...p: string[]): T => JSON.parse(readFileSync(resolve(ALEO, ...p), 'utf8')) as T;
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
const fromHex = (h: string): Uint8Array => Uint8Array.from(Buffer.from(h, 'hex'));

function throwsVerifierError(f: () => unknown): boolean {
  try {
    f();
    return false;
  } catch (e) {
    if (!isVerifierError(e)) throw e;
    return true;
  }
}

interface ValueVector {
  encoding: string;
  precision: number;
  attestationData: string;
  prepareError?: string;
  metaHeaderAttLen?: number;
  attBlocksHex?: string;
  decodedAttestationData?: string;
}

const URL = 'api.example.com/price';
const baseInput = (v: ValueVector): ProofDataInput => ({
  url: URL, requestMethod: 'GET', selector: 'price', responseFormat: 'json',
  encodingOptions: { value: v.encoding, precision: v.precision }, attestationData: v.attestationData,
  responseStatusCode: 200, timestamp: 1748939008,
});

/** The notarizer's error texts (vector `prepareError`) → our stable codes. */
const GO_ERROR_CODES: Record<string, string> = {
  'extracted value is more precise than given precision': 'ENCODE_TOO_PRECISE',
  'encoding precision is too big': 'ENCODE_PRECISION_TOO_BIG',
  'cannot parse float without losing information': 'ENCODE_FLOAT_LOSSY',
  'scientific notation is not supported for floats': 'ENCODE_SCIENTIFIC_NOTATION',
  'decimalless scientific notation is not supported for floats': 'ENCODE_DECIMALLESS_SCIENTIFIC',
  'negative numbers are not supported for floats': 'ENCODE_NEGATIVE_FLOAT',
  'extracted value expected to be float but failed to parse as float': 'ENCODE_FLOAT_PARSE',
  'extracted value expected to be int but failed to parse as int': 'ENCODE_INT_PARSE',
  'PANIC: strings: negative Repeat count': 'ENCODE_VALUE_TOO_LONG',
  'unknown value type': 'ENCODE_UNKNOWN_VALUE_TYPE',
};

describe('encoding-value-vectors (1475 attestationData cases)', () => {
  const vectors = readJson<ValueVector[]>('encoding', 'encoding-value-vectors.json');
  it('has the expected size', () => expect(vectors.length).toBe(1475));
  it('prepare + encode + decode reproduce every case bit-exactly, refusals with the same reason', () => {
    const mismatches: string[] = [];
    let refusals = 0;
    for (const v of vectors) {
      const key = `${v.attestationData}|${v.precision}`;
      let bytes: Uint8Array | undefined;
      let code: string | undefined;
      try {
        bytes = encodeProofData(baseInput(v));
      } catch (e) {
        if (!isVerifierError(e)) throw e;
        code = e.code;
      }
      if (v.prepareError !== undefined) {
        const expected = GO_ERROR_CODES[v.prepareError] ?? `unmapped: ${v.prepareError}`;
        if (code !== expected) mismatches.push(`${key}: expected ${expected}, got ${code ?? 'bytes'}`);
        else refusals++;
        continue;
      }
      if (bytes === undefined) {
        mismatches.push(`${key}: unexpected ${code}`);
        continue;
      }
      const attLen = bytes[0]! | (bytes[1]! << 8);
      const size = attLen === 255 ? 16 : Math.ceil(attLen / 16) * 16;
      const att = hex(bytes.subarray(32, 32 + size)).replace(/(00)+$/, '');
      if (attLen !== v.metaHeaderAttLen) mismatches.push(`${key}: meta len ${attLen} != ${v.metaHeaderAttLen}`);
      if (att !== v.attBlocksHex) mismatches.push(`${key}: blocks ${att} != ${v.attBlocksHex}`);
      const decoded = decodeProofData(padProofData(bytes));
      if (decoded.attestationData !== v.decodedAttestationData) {
        mismatches.push(`${key}: decoded ${decoded.attestationData} != ${v.decodedAttestationData}`);
      }
    }
    expect(mismatches).toEqual([]);
    expect(refusals).toBe(638);
  });
  it('prepareAttestationData pads per era rules', () => {
    expect(prepareAttestationData('3', { value: 'float', precision: 2 }, URL)).toBe('3.'.padEnd(255, '0'));
    expect(prepareAttestationData('7', { value: 'int', precision: 0 }, URL)).toBe('7'.padStart(255, '0'));
    expect(prepareAttestationData('ab', { value: 'string', precision: 0 }, URL)).toBe('ab' + '\0'.repeat(3070));
    expect(prepareAttestationData('3', { value: 'float', precision: 2 }, 'price_feed: eth')).toBe('3');
    expect(hex(encodeAttestationValue('0.5', { value: 'float', precision: 1 }))).toBe('0500000000000000');
  });
});

interface PrepareVector {
  name: string;
  response: { attestationData: string; responseStatusCode: number; timestamp: number; attestationRequest: Omit<ProofDataInput, 'attestationData' | 'responseStatusCode' | 'timestamp'> };
  prepareError?: string;
  preparedHex?: string;
  formatError?: string;
  decodedJson?: string;
  decodeError?: string;
}

function requestInput(r: PrepareVector['response'] | { attestationData: string; responseStatusCode: number; timestamp: number; attestationRequest: Record<string, unknown> }): ProofDataInput {
  const q = r.attestationRequest as Record<string, unknown>;
  return {
    ...(q as unknown as ProofDataInput),
    selector: (q.selector as string | undefined) ?? '',
    attestationData: r.attestationData,
    responseStatusCode: r.responseStatusCode,
    timestamp: r.timestamp,
  };
}

describe('prepare-proof-data-vectors (38 requests)', () => {
  const vectors = readJson<PrepareVector[]>('encoding', 'prepare-proof-data-vectors.json');
  it('has the expected size', () => expect(vectors.length).toBe(38));
  for (const v of vectors) {
    it(v.name, () => {
      const input = requestInput(v.response);
      if (v.prepareError !== undefined) {
        expect(throwsVerifierError(() => encodeProofData(input))).toBe(true);
        return;
      }
      const bytes = encodeProofData(input);
      expect(hex(bytes)).toBe(v.preparedHex);
      if (v.formatError !== undefined) {
        expect(throwsVerifierError(() => padProofData(bytes))).toBe(true);
        return;
      }
      const padded = padProofData(bytes);
      if (v.decodeError !== undefined) {
        expect(throwsVerifierError(() => decodeProofData(padded))).toBe(true);
      } else {
        expect(JSON.stringify(decodeProofData(padded))).toBe(v.decodedJson);
      }
    });
  }
});

interface DecodeVector { name: string; hex: string; totalLen: number; error?: string; decodedJson?: string; goDecodeHttpBody: string }

describe('decode-proof-data-vectors (malformed / mutated buffers)', () => {
  const vectors = readJson<DecodeVector[]>('encoding', 'decode-proof-data-vectors.json');
  for (const v of vectors) {
    it(v.name, () => {
      const buf = new Uint8Array(v.totalLen);
      buf.set(fromHex(v.hex));
      if (v.error !== undefined) {
        expect(throwsVerifierError(() => decodeProofData(buf))).toBe(true);
      } else {
        const decoded = decodeProofData(buf);
        expect(JSON.stringify(decoded)).toBe(v.decodedJson);
        expect(JSON.stringify({ decodedData: decoded, success: true })).toBe(
          v.goDecodeHttpBody.replace(/\\u0026/g, '&').replace(/\\u003c/g, '<').replace(/\\u003e/g, '>'),
        );
      }
    });
  }
});

describe('decode-example (README /decode)', () => {
  it('decodes the README userData to the README response', () => {
    const req = readJson<{ userData: string }>('decode-example.request.json');
    const res = readJson<{ decodedData: unknown }>('decode-example.response.json');
    const goExact = readFileSync(resolve(ALEO, 'decode-example.response.go-exact.json'), 'utf8').trim();
    const decoded = decodeProofData(parseChunkedStruct(req.userData, 8));
    expect(decoded).toEqual(res.decodedData);
    expect(JSON.stringify({ decodedData: decoded, success: true })).toBe(goExact.replace(/\\u0026/g, '&'));
  });
});

interface E2eFile {
  attestationRequest: Record<string, unknown>;
  attestationData: string;
  timestamp: number;
  responseStatusCode: number;
  oracleData: { userData: string };
}

describe('e2e notarizer outputs', () => {
  const files = readdirSync(resolve(ALEO, 'e2e')).filter((f) => f.startsWith('docs-example') || f.startsWith('v23-'));
  it('finds the six real outputs', () => expect(files.length).toBe(6));
  for (const f of files) {
    const legacy = f.startsWith('docs-example');
    it(`${f} (${legacy ? 'legacy' : 'current'} era)`, () => {
      const raw = readJson<E2eFile | E2eFile[]>('e2e', f);
      const e = Array.isArray(raw) ? raw[0]! : raw;
      const userData = parseChunkedStruct(e.oracleData.userData, 8);
      const decoded = decodeProofData(userData);
      const input = requestInput(e);
      const q = e.attestationRequest;
      expect(decoded.url).toBe(q.url);
      expect(decoded.requestMethod).toBe(q.requestMethod);
      expect(decoded.selector ?? '').toBe(q.selector ?? '');
      expect(decoded.responseFormat).toBe(q.responseFormat);
      expect(decoded.requestHeaders).toEqual(q.requestHeaders && Object.keys(q.requestHeaders).length ? q.requestHeaders : undefined);
      expect(decoded.encodingOptions).toEqual(q.encodingOptions);
      expect(decoded.timestamp).toBe(e.timestamp);
      expect(decoded.responseStatusCode).toBe(e.responseStatusCode);
      const current = padProofData(encodeProofData(input));
      expect(decodeProofData(current).attestationData).toBe(decoded.attestationData);
      if (legacy) {
        expect(hex(padProofData(encodeProofData(input, { era: 'legacy' })))).toBe(hex(userData));
        const diff = [...current.keys()].filter((i) => current[i] !== userData[i]);
        expect(diff).toEqual([0]);
      } else {
        expect(hex(current)).toBe(hex(userData));
      }
    });
  }
  it('readme /decodeReport examples decode to their decodedData', () => {
    const r = readJson<Record<string, { request: { userData: string }; response: { decodedData: unknown } }>>('e2e', 'readme-decodeReport-examples.json');
    for (const k of ['sgx', 'nitro']) {
      const ex = r[k]!;
      expect(decodeProofData(parseChunkedStruct(ex.request.userData, 8))).toEqual(ex.response.decodedData);
    }
  });
});
