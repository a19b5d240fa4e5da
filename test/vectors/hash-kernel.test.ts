import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALEO_POSEIDON8_DOMAIN } from '../../src/hash/domain.js';
import { domainFromText, fieldToU128, u128ToLeBytes } from '../../src/hash/field.js';
import { hashStructBytesField } from '../../src/hash/kernel.js';
import { writeStructLimbs } from '../../src/hash/limbs-struct.js';
import { LIMBS, readLimbs } from '../../src/hash/limbs.js';
import { createPoseidon8Native } from '../../src/hash/poseidon8-native.js';
import { createPoseidon8Wasm } from '../../src/hash/poseidon8-wasm.js';
import { parseChunkedStruct } from '../../src/aleo/struct.js';

const ALEO = path.resolve(process.cwd(), '../shared/vectors/aleo');
const load = <T>(rel: string): T => JSON.parse(readFileSync(path.join(ALEO, rel), 'utf8')) as T;
// Both kernels explicitly (the native addon is built by npm install on these machines), plus the
// active one through hashStructBytesField.
const kernels = [
  ['WASM', createPoseidon8Wasm()],
  ['native', createPoseidon8Native()],
] as const;

interface SnarkvmFile {
  domain: string;
  cases: { inputs: string[]; expected: string }[];
}
interface RandomFile {
  cases: { inputs: string[]; expectedField: string; expectedU128: string }[];
}
interface FormatFile {
  cases: { label: string; chunks: number; messageHex: string; fieldCount: number; hashField: string; hashU128: string; hashLeHex: string; fields?: string[] }[];
}
interface Expected {
  userDataChunks: number;
  userDataHash: { field: string; leHex: string };
  reportChunks: number;
  reportHash: { leHex: string };
}

describe.each(kernels)('%s kernel: Poseidon8 vectors', (_name, k) => {
  const snarkvm = load<SnarkvmFile>('poseidon8/snarkvm-poseidon8-test-vectors.json');
  const random = load<RandomFile>('poseidon8/aleo-poseidon8-random-field-vectors.json');

  it.each(snarkvm.cases.map((c) => [c.inputs.length, c] as const))('snarkVM vector, %i inputs', (_n, c) => {
    expect(k.hash(domainFromText(snarkvm.domain), c.inputs.map(BigInt))).toBe(BigInt(c.expected));
  });

  it.each(random.cases.map((c) => [c.inputs.length, c] as const))('AleoPoseidon8 random vector, %i inputs', (_n, c) => {
    const h = k.hash(ALEO_POSEIDON8_DOMAIN, c.inputs.map(BigInt));
    expect(h).toBe(BigInt(c.expectedField));
    expect(fieldToU128(h)).toBe(BigInt(c.expectedU128));
  });
});

describe.each(kernels)('%s kernel: FormatMessage hashes from bytes', (_name, k) => {
  const file = load<FormatFile>('poseidon8/format-message-hash-vectors.json');
  it.each(file.cases.map((c) => [c.label, c] as const))('%s', (_l, c) => {
    const bytes = new Uint8Array(c.chunks * 512);
    bytes.set(Buffer.from(c.messageHex, 'hex'));
    if (c.fields !== undefined) {
      const out = new Uint32Array(c.fieldCount * LIMBS);
      expect(writeStructLimbs(bytes, out, 0)).toBe(c.fieldCount);
      expect(Array.from({ length: c.fieldCount }, (_, i) => readLimbs(out, i * LIMBS).toString())).toEqual(c.fields);
    }
    const h = k.hashStruct(bytes);
    expect(hashStructBytesField(bytes)).toBe(h);
    expect(h).toBe(BigInt(c.hashField));
    expect(fieldToU128(h)).toBe(BigInt(c.hashU128));
    expect(Buffer.from(u128ToLeBytes(fieldToU128(h))).toString('hex')).toBe(c.hashLeHex);
  });
});

describe.each(kernels)('%s kernel: real e2e userData / report hashes (parsed with parseChunkedStruct)', (_name, k) => {
  const expected = load<Record<string, Expected>>('e2e/expected.json');
  it.each(Object.entries(expected))('%s', (key, e) => {
    const [file, frag] = key.split('#') as [string, string | undefined];
    let node: unknown = load<unknown>(`e2e/${file}`);
    if (frag !== undefined) {
      const idx = /^\[(\d+)\]$/.exec(frag);
      node = idx ? (node as unknown[])[Number(idx[1])] : (node as Record<string, unknown>)[frag];
    }
    const n = node as { oracleData?: { userData: string; report: string }; request?: { userData: string; report: string } };
    const src = (n.oracleData ?? n.request) as { userData: string; report: string };
    const user = parseChunkedStruct(src.userData, e.userDataChunks);
    const h = k.hashStruct(user);
    expect(hashStructBytesField(user)).toBe(h);
    expect(h).toBe(BigInt(e.userDataHash.field));
    expect(Buffer.from(u128ToLeBytes(fieldToU128(h))).toString('hex')).toBe(e.userDataHash.leHex);
    const report = parseChunkedStruct(src.report, e.reportChunks);
    expect(Buffer.from(u128ToLeBytes(fieldToU128(k.hashStruct(report)))).toString('hex')).toBe(e.reportHash.leHex);
  });
});
