import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashReportData, hashReportDataField, hashReportDataU128, hashTimestampedRequest } from '../../src/hash/index.js';
import { structFieldElements } from '../../src/hash/structFields.js';

const ALEO = path.resolve(process.cwd(), '../shared/vectors/aleo');
const load = <T>(rel: string): T => JSON.parse(readFileSync(path.join(ALEO, rel), 'utf8')) as T;

/**
 * Test-only: bytes of a chunked u128 struct text `{ c0: { f0: <n>u128, … }, … }`. Checks the keys
 * appear as c0…, f0…f31 in order; the real parser lives in src/ledger.
 */
function structTextToBytes(text: string, chunks: number): Uint8Array {
  const out = new Uint8Array(chunks * 512);
  const dv = new DataView(out.buffer);
  const chunkKeys = [...text.matchAll(/\bc(\d+)\s*:/g)].map((m) => Number(m[1]));
  expect(chunkKeys).toEqual(Array.from({ length: chunks }, (_, i) => i));
  const values = [...text.matchAll(/\bf(\d+)\s*:\s*(\d+)u128/g)];
  expect(values).toHaveLength(chunks * 32);
  values.forEach((m, g) => {
    expect(Number(m[1])).toBe(g % 32);
    const v = BigInt(m[2] as string);
    expect(v < 1n << 128n).toBe(true);
    dv.setBigUint64(g * 16, v & 0xffff_ffff_ffff_ffffn, true);
    dv.setBigUint64(g * 16 + 8, v >> 64n, true);
  });
  return out;
}

interface Hash {
  field: string;
  u128: string;
  leHex: string;
  base64?: string;
}
interface Expected {
  userDataChunks: number;
  userDataFieldCount: number;
  userDataHash: Hash;
  reportChunks: number;
  reportFieldCount: number;
  reportHash: Hash;
  requestHash?: { expected: string };
  timestampedRequestHash?: { input: string; expected: string };
}
type Node = { [k: string]: unknown };

/** expected.json key "file.json#frag" → the node holding userData/report texts. */
function sourceNode(key: string): { userData: string; report: string } {
  const [file, frag] = key.split('#') as [string, string | undefined];
  let node = load<unknown>(`e2e/${file}`);
  if (frag !== undefined) {
    const idx = /^\[(\d+)\]$/.exec(frag);
    node = idx ? (node as unknown[])[Number(idx[1])] : (node as Node)[frag];
  }
  const n = node as Node;
  const holder = (n.oracleData ?? n.request) as { userData: string; report: string };
  return holder;
}

const expected = load<Record<string, Expected>>('e2e/expected.json');

describe('userData and report hashes of the real e2e cases (expected.json)', () => {
  it('includes the README SGX and Nitro examples and requestHash cases', () => {
    expect(Object.values(expected).filter((e) => e.timestampedRequestHash !== undefined).length).toBeGreaterThanOrEqual(6);
    expect(expected['readme-decodeReport-examples.json#sgx']?.userDataHash.leHex).toBe('4ae2492c027e094054ad70cc488df591');
    expect(expected['readme-decodeReport-examples.json#nitro']?.userDataHash.leHex).toBe('5ff1546349b95228a63c50332fd3b46a');
    expect(Object.keys(expected)).toHaveLength(8);
  });

  it.each(Object.entries(expected))('%s', (key, e) => {
    const src = sourceNode(key);
    const userData = structTextToBytes(src.userData, e.userDataChunks);
    expect(structFieldElements(userData)).toHaveLength(e.userDataFieldCount);
    expect(hashReportDataField(userData)).toBe(BigInt(e.userDataHash.field));
    expect(hashReportDataU128(userData)).toBe(BigInt(e.userDataHash.u128));
    const h = hashReportData(userData);
    expect(Buffer.from(h).toString('hex')).toBe(e.userDataHash.leHex);
    if (e.userDataHash.base64 !== undefined) expect(Buffer.from(h).toString('base64')).toBe(e.userDataHash.base64);

    const report = structTextToBytes(src.report, e.reportChunks);
    expect(structFieldElements(report)).toHaveLength(e.reportFieldCount);
    expect(Buffer.from(hashReportData(report)).toString('hex')).toBe(e.reportHash.leHex);

    if (e.requestHash !== undefined) {
      // requestHash = hash of userData with c0.f2 (attestation data) and c0.f3 (timestamp) zeroed.
      const masked = userData.slice();
      masked.fill(0, 32, 64);
      const requestHash = hashReportDataU128(masked);
      expect(`${requestHash}u128`).toBe(e.requestHash.expected);
      const t = e.timestampedRequestHash;
      if (t !== undefined) {
        const m = /request_hash: (\d+)u128, attestation_timestamp: (\d+)u128/.exec(t.input);
        expect(m?.[1]).toBe(String(requestHash));
        expect(`${hashTimestampedRequest(requestHash, BigInt(m?.[2] ?? -1))}u128`).toBe(t.expected);
      }
    }
  });
});

interface Prepared {
  name: string;
  preparedHex: string;
  hashU128?: string;
  hashLeHex?: string;
}

describe('PrepareProofData outputs (prepare-proof-data-vectors.json)', () => {
  const all = load<Prepared[]>('encoding/prepare-proof-data-vectors.json');
  const withHash = all.filter((c) => c.hashU128 !== undefined);

  it('has the documented 38 cases, most with a hash', () => {
    expect(all).toHaveLength(38);
    expect(withHash.length).toBeGreaterThanOrEqual(30);
  });

  it.each(withHash.map((c) => [c.name, c] as const))('%s', (_name, c) => {
    const bytes = new Uint8Array(4096);
    bytes.set(Buffer.from(c.preparedHex, 'hex'));
    expect(hashReportDataU128(bytes)).toBe(BigInt(c.hashU128 as string));
    expect(Buffer.from(hashReportData(bytes)).toString('hex')).toBe(c.hashLeHex);
  });
});
