import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  REPORT_CHUNKS,
  USER_DATA_CHUNKS,
  formatChunkedStruct,
  parseChunkedStruct,
} from '../../src/aleo/struct.js';

const ALEO = path.resolve(process.cwd(), '../shared/vectors/aleo');
const load = (rel: string): unknown => JSON.parse(readFileSync(path.join(ALEO, rel), 'utf8'));

interface OracleData {
  userData: string;
  report: string;
  encodedRequest: string;
}
interface AttestationResponse {
  attestationReport: string;
  oracleData: OracleData;
}
interface Expected {
  userDataHash?: { leHex: string };
  userDataHashOffsetInReport?: number;
}

/** Every chunked struct text in the vectors: [name, text, chunks, raw bytes the text must hold (prefix)]. */
interface Case {
  name: string;
  text: string;
  chunks: number;
  raw?: Uint8Array;
  hashAt?: { offset: number; leHex: string };
}

function collect(): Case[] {
  const cases: Case[] = [];
  const expected = load('e2e/expected.json') as Record<string, Expected>;
  const hashAt = (key: string): Case['hashAt'] => {
    const e = expected[key];
    return e?.userDataHash && typeof e.userDataHashOffsetInReport === 'number'
      ? { offset: e.userDataHashOffsetInReport, leHex: e.userDataHash.leHex }
      : undefined;
  };

  const readme = load('e2e/readme-decodeReport-examples.json') as Record<string, { request: { userData: string; report: string } }>;
  for (const kind of ['sgx', 'nitro'] as const) {
    const req = readme[kind]?.request;
    if (!req) throw new Error(`readme example ${kind} missing`);
    cases.push({ name: `readme ${kind} userData`, text: req.userData, chunks: USER_DATA_CHUNKS });
    const h = hashAt(`readme-decodeReport-examples.json#${kind}`);
    cases.push({ name: `readme ${kind} report`, text: req.report, chunks: REPORT_CHUNKS, ...(h ? { hashAt: h } : {}) });
  }

  const files: [string, string, boolean][] = [
    ['docs-example_btc_usdc_attestation_nitro.json', 'docs-example_btc_usdc_attestation_nitro.json', false],
    ['docs-example_weather_attestation.json', 'docs-example_weather_attestation.json#[0]', true],
    ['v23-contracts-test-sgx_response.json', 'v23-contracts-test-sgx_response.json', false],
    ['v23-contracts-test-btc_usdc.json', 'v23-contracts-test-btc_usdc.json', false],
    ['v23-contracts-test-eth_usdc.json', 'v23-contracts-test-eth_usdc.json', false],
    ['v23-contracts-test-aleo_usdc.json', 'v23-contracts-test-aleo_usdc.json', false],
  ];
  for (const [file, key, isArray] of files) {
    const doc = load(`e2e/${file}`);
    const r = (isArray ? (doc as AttestationResponse[])[0] : doc) as AttestationResponse;
    const od = r.oracleData;
    cases.push({ name: `${file} userData`, text: od.userData, chunks: USER_DATA_CHUNKS });
    cases.push({ name: `${file} encodedRequest`, text: od.encodedRequest, chunks: USER_DATA_CHUNKS });
    const h = hashAt(key);
    cases.push({
      name: `${file} report`,
      text: od.report,
      chunks: REPORT_CHUNKS,
      raw: new Uint8Array(Buffer.from(r.attestationReport, 'base64')),
      ...(h ? { hashAt: h } : {}),
    });
  }

  const req = load('decode-example.request.json') as { userData: string };
  cases.push({ name: 'decode-example request userData', text: req.userData, chunks: USER_DATA_CHUNKS });

  const fm = load('poseidon8/format-message-hash-vectors.json') as {
    cases: { label: string; chunks: number; messageHex: string; formattedText?: string }[];
  };
  for (const c of fm.cases) {
    if (c.formattedText === undefined) continue;
    cases.push({ name: `format-message ${c.label}`, text: c.formattedText, chunks: c.chunks, raw: new Uint8Array(Buffer.from(c.messageHex, 'hex')) });
  }
  return cases;
}

const CASES = collect();

describe('chunked struct texts from the vectors', () => {
  it('collects all of them (2 readme × 2, 6 responses × 3, decode example, 2 formatted texts)', () => {
    expect(CASES.length).toBe(25);
    expect(CASES.filter((c) => c.hashAt).length).toBe(8);
    expect(CASES.filter((c) => c.raw).length).toBe(8);
  });

  it.each(CASES.map((c) => [c.name, c] as const))('%s: parses, re-formats byte-identically, round-trips in every style', (_name, c) => {
    expect(c.text).not.toContain('\n');
    const bytes = parseChunkedStruct(c.text, c.chunks);
    expect(bytes.length).toBe(c.chunks * 512);
    expect(formatChunkedStruct(bytes, c.chunks, 'reference')).toBe(c.text);
    for (const style of ['pretty', 'compact'] as const) {
      const t = formatChunkedStruct(bytes, c.chunks, style);
      expect(parseChunkedStruct(t, c.chunks)).toEqual(bytes);
    }
    expect(formatChunkedStruct(bytes, c.chunks, 'pretty').replaceAll('\n', '')).toBe(c.text);
    if (c.raw) {
      expect(Buffer.from(bytes.subarray(0, c.raw.length)).equals(Buffer.from(c.raw))).toBe(true);
      expect(bytes.subarray(c.raw.length).every((x) => x === 0)).toBe(true);
      expect(formatChunkedStruct(c.raw, c.chunks)).toBe(c.text);
    }
    if (c.hashAt) {
      expect(Buffer.from(bytes.subarray(c.hashAt.offset, c.hashAt.offset + 16)).toString('hex')).toBe(c.hashAt.leHex);
    }
  });

  it('the decode example userData holds the attested request (url text visible in the bytes)', () => {
    const req = load('decode-example.request.json') as { userData: string };
    const bytes = Buffer.from(parseChunkedStruct(req.userData, USER_DATA_CHUNKS));
    expect(bytes.includes(Buffer.from('archive-api.open-meteo.com/v1/archive?latitude=38.9072'))).toBe(true);
  });

  it('a userData text is not a report and vice versa', () => {
    const c = CASES[0] as Case;
    expect(() => parseChunkedStruct(c.text, REPORT_CHUNKS)).toThrow(/report has 8 chunks, expected 10/);
    const r = CASES[1] as Case;
    expect(() => parseChunkedStruct(r.text, USER_DATA_CHUNKS)).toThrow(/userData has more than 8 chunks: found extra key "c8"/);
  });

  it('format-message vectors: every message (1…32 chunks) round-trips', () => {
    const fm = load('poseidon8/format-message-hash-vectors.json') as { cases: { chunks: number; messageHex: string }[] };
    for (const c of fm.cases) {
      const msg = new Uint8Array(Buffer.from(c.messageHex, 'hex'));
      const bytes = parseChunkedStruct(formatChunkedStruct(msg, c.chunks), c.chunks);
      expect(Buffer.from(bytes.subarray(0, msg.length)).equals(Buffer.from(msg))).toBe(true);
      expect(bytes.subarray(msg.length).every((x) => x === 0)).toBe(true);
    }
  });
});
