import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { hashReportData, hashReportDataField, hashReportDataU128, hashTimestampedRequest } from '../../src/hash/index.js';
import { structFieldCount, structFieldElements } from '../../src/hash/structFields.js';

const FILE = path.resolve(process.cwd(), '../shared/vectors/aleo/poseidon8/format-message-hash-vectors.json');

interface Case {
  label: string;
  chunks: number;
  messageHex: string;
  fieldCount: number;
  hashField: string;
  hashU128: string;
  hashLeHex: string;
  fields?: string[];
}
const file = JSON.parse(readFileSync(FILE, 'utf8')) as {
  cases: Case[];
  timestampedHashExample: { text: string; u128: string };
};
const cases = file.cases;

function padded(c: Case): Uint8Array {
  const out = new Uint8Array(c.chunks * 512);
  out.set(Buffer.from(c.messageHex, 'hex'));
  return out;
}

describe('FormatMessage → to_fields → Poseidon8 vectors', () => {
  it('covers the expected shapes', () => {
    expect(cases.map((c) => c.chunks)).toEqual(expect.arrayContaining([1, 2, 8, 10, 11, 32]));
    expect(cases.filter((c) => c.fields !== undefined)).toHaveLength(2);
  });

  it.each(cases.map((c) => [c.label, c] as const))('%s', (_label, c) => {
    const bytes = padded(c);
    const fields = structFieldElements(bytes);
    expect(fields).toHaveLength(c.fieldCount);
    expect(structFieldCount(c.chunks)).toBe(c.fieldCount);
    if (c.fields !== undefined) expect(fields.map(String)).toEqual(c.fields);
    expect(hashReportDataField(bytes)).toBe(BigInt(c.hashField));
    expect(hashReportDataU128(bytes)).toBe(BigInt(c.hashU128));
    expect(Buffer.from(hashReportData(bytes)).toString('hex')).toBe(c.hashLeHex);
  });

  it('field counts: 8 chunks → 205, 10 chunks → 256', () => {
    expect(structFieldCount(8)).toBe(205);
    expect(structFieldCount(10)).toBe(256);
  });

  it('timestampedHashExample: { request_hash: 1u128, attestation_timestamp: 2u128 }', () => {
    expect(file.timestampedHashExample.text).toBe('{ request_hash: 1u128, attestation_timestamp: 2u128 }');
    expect(hashTimestampedRequest(1n, 2n)).toBe(BigInt(file.timestampedHashExample.u128));
  });
});
