/**
 * The bits and fields of Leo plaintext values (src/aleo/inclusion/plaintext.ts), the preimage of
 * every public input id, against snarkVM's own WASM build (`Plaintext.fromString(v).toBitsLe()`
 * and `.toFields()`): random literals of every type this verifier reads, at their bounds, real
 * mainnet addresses and signatures, nested structs and arrays; and what it refuses.
 */
import { createRequire } from 'node:module';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { plaintextBits, plaintextFields } from '../../../../src/aleo/inclusion/plaintext.js';
import { seededRandom } from '../../../support/random.js';

const W = createRequire(import.meta.url)('@provablehq/wasm/mainnet.js') as typeof import('@provablehq/wasm/mainnet.js');
const theirBits = (v: string) => W.Plaintext.fromString(v).toBitsLe().map((b: boolean) => (b ? 1 : 0)).join('');
const theirFields = (v: string) => W.Plaintext.fromString(v).toFields().map((f: { toString(): string }) => f.toString());
const BLOCK = readFileSync(path.resolve(process.cwd(), '../shared/vectors/aleo/mainnet/block-1203288.json'), 'utf8');
const SIGNATURES = [...new Set(BLOCK.match(/sign1[a-z0-9]{200,}/g) ?? [])].slice(0, 5);
const ADDRESSES = [...new Set(BLOCK.match(/aleo1[a-z0-9]{58}/g) ?? [])].slice(0, 5);

function randomBig(rnd: () => number, bits: number): bigint {
  let x = 0n;
  for (let i = 0; i < bits; i += 16) x = (x << 16n) | BigInt(Math.floor(rnd() * 65536));
  return x & ((1n << BigInt(bits)) - 1n);
}

const INTS = ['u8', 'u16', 'u32', 'u64', 'u128', 'i8', 'i16', 'i32', 'i64', 'i128'];
const KINDS = [...INTS, 'field', 'scalar', 'boolean', 'address', 'signature'];

function literalOf(kind: string, rnd: () => number): string {
  if (INTS.includes(kind)) {
    const bits = Number(kind.slice(1));
    const v = randomBig(rnd, bits);
    return kind.startsWith('i') ? `${v - (1n << BigInt(bits - 1))}${kind}` : `${v}${kind}`;
  }
  switch (kind) {
    case 'field': return `${randomBig(rnd, 252)}field`;
    case 'scalar': return `${randomBig(rnd, 250)}scalar`;
    case 'boolean': return rnd() < 0.5 ? 'true' : 'false';
    case 'address': return ADDRESSES[Math.floor(rnd() * ADDRESSES.length)] as string;
    default: return SIGNATURES[Math.floor(rnd() * SIGNATURES.length)] as string;
  }
}

const anyKind = (rnd: () => number) => KINDS[Math.floor(rnd() * KINDS.length)] as string;

function randomValue(rnd: () => number, depth: number): string {
  const r = rnd();
  if (depth > 2 || r < 0.5) return literalOf(anyKind(rnd), rnd);
  if (r < 0.8) {
    const n = 1 + Math.floor(rnd() * 4);
    return `{ ${Array.from({ length: n }, (_, i) => `m${i}_${Math.floor(rnd() * 9)}: ${randomValue(rnd, depth + 1)}`).join(', ')} }`;
  }
  // An array's elements share one type.
  const kind = anyKind(rnd);
  return `[${Array.from({ length: 1 + Math.floor(rnd() * 3) }, () => literalOf(kind, rnd)).join(', ')}]`;
}

describe('Leo plaintext bits and fields equal snarkVM (WASM)', () => {
  it('real signatures and addresses of mainnet block 1,203,288', () => {
    expect(SIGNATURES.length).toBeGreaterThan(1);
    for (const v of [...SIGNATURES, ...ADDRESSES]) expect(Array.from(plaintextBits(v)).join(''), v).toBe(theirBits(v));
  });

  it('the bounds of every integer type', () => {
    for (const bits of [8, 16, 32, 64, 128]) {
      for (const v of [`0u${bits}`, `${(1n << BigInt(bits)) - 1n}u${bits}`, `${-(1n << BigInt(bits - 1))}i${bits}`, `${(1n << BigInt(bits - 1)) - 1n}i${bits}`]) {
        expect(Array.from(plaintextBits(v)).join(''), v).toBe(theirBits(v));
      }
    }
  });

  it('300 random values (literals, structs, arrays, nested), bits and fields', { timeout: 120_000 }, () => {
    const rnd = seededRandom(50);
    for (let i = 0; i < 300; i++) {
      const v = randomValue(rnd, 0);
      expect(Array.from(plaintextBits(v)).join(''), v).toBe(theirBits(v));
      expect(plaintextFields(v).map((f) => `${f}field`), v).toEqual(theirFields(v));
    }
  });

  it('refuses what is not a value: out of range, bad checksum, unknown types, trailing text', () => {
    for (const v of ['256u8', '-1u8', '128i8', `${(1n << 253n)}field`, 'aleo1vs44yrqhmg77afudr43k2zeuqe724adc7p8ps0thjfy5e0wfksgsarj6pq', '"text"', '1u8 2u8', '{ a: 1u8', 'x']) {
      expect(() => plaintextBits(v), v).toThrow();
    }
  });
});

describe("the chunked u128 structs' fast path", () => {
  it('gives the fields of the general reader and of snarkVM, for userData (8 chunks, pretty and single-line) and a report (10)', async () => {
    const { valueFields } = await import('../../../../src/aleo/inclusion/ids.js');
    const { formatChunkedStruct } = await import('../../../../src/aleo/struct.js');
    const { prettyLeo } = await import('../../../support/ledger-node.js');
    const { pseudoRandomBytes } = await import('../../../support/random.js');
    for (const [chunks, seed] of [[8, 1], [10, 2], [8, 3]] as const) {
      const text = formatChunkedStruct(pseudoRandomBytes(chunks * 512, seed), chunks, 'reference');
      for (const form of [text, prettyLeo(text)]) {
        const fast = valueFields(form);
        expect(fast).toEqual(plaintextFields(form));
        expect(fast.map((f) => `${f}field`)).toEqual(theirFields(form));
      }
    }
    // Another member name: not the fast path's struct, the general reader's answer.
    const other = '{ c0: { f0: 1u128 }, x: 2u8 }';
    expect(valueFields(other)).toEqual(plaintextFields(other));
  });
});
