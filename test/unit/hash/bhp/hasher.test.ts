/**
 * The BHP hash (src/hash/bhp) against snarkVM's own WASM build (@provablehq/wasm, a development
 * reference only): the four mainnet hashers on random bit strings of every regime (empty, one
 * round, the exact round size, several rounds); BLAKE2s and BLAKE2Xs against the BLAKE2
 * known-answer tests and node:crypto.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { describe, expect, it } from 'vitest';
import { blake2s, blake2xs } from '../../../../src/hash/bhp/blake2xs.js';
import { bhp1024, bhp256, bhp512, bhp768, bhpMerkleRoot, BitString } from '../../../../src/hash/bhp/index.js';
import { seededRandom } from '../../../support/random.js';

const W = createRequire(import.meta.url)('@provablehq/wasm/mainnet.js') as typeof import('@provablehq/wasm/mainnet.js');
const KAT = JSON.parse(readFileSync(new URL('../../../fixtures/blake2-kat.json', import.meta.url), 'utf8')) as { blake2xs: { in: string; out: string }[]; blake2s: { in: string; out: string }[] };
const hex = (b: Uint8Array) => Buffer.from(b).toString('hex');

describe('BLAKE2s / BLAKE2Xs', () => {
  it('BLAKE2s equals the known answers and node:crypto blake2s256', () => {
    for (const c of KAT.blake2s) expect(hex(blake2s(Buffer.from(c.in, 'hex'), { digestLength: 32 }))).toBe(c.out);
    const rnd = seededRandom(7);
    for (let n = 0; n < 300; n += 1 + Math.floor(rnd() * 9)) {
      const input = Uint8Array.from({ length: n }, () => Math.floor(rnd() * 256));
      expect(hex(blake2s(input, { digestLength: 32 }))).toBe(createHash('blake2s256').update(input).digest('hex'));
    }
  });

  it('BLAKE2Xs equals the known answers (output lengths 1 … 256)', () => {
    expect(KAT.blake2xs.length).toBeGreaterThan(10);
    for (const c of KAT.blake2xs) expect(hex(blake2xs(Buffer.from(c.in, 'hex'), c.out.length / 2, new Uint8Array(0)))).toBe(c.out);
  });
});

const HASHERS = [
  { name: 'BHP256', ours: bhp256, theirs: new W.BHP256(), round: 3 * 57 * 3 - 252 },
  { name: 'BHP512', ours: bhp512, theirs: new W.BHP512(), round: 6 * 43 * 3 - 252 },
  { name: 'BHP768', ours: bhp768, theirs: new W.BHP768(), round: 15 * 23 * 3 - 252 },
  { name: 'BHP1024', ours: bhp1024, theirs: new W.BHP1024(), round: 8 * 54 * 3 - 252 },
];

describe('BHP equals snarkVM (WASM)', () => {
  for (const h of HASHERS) {
    it(`${h.name}: 40 random inputs from 0 to 3 rounds and the round boundaries`, { timeout: 120_000 }, () => {
      const rnd = seededRandom(h.round);
      const lengths = [0, 1, 2, 3, h.round - 1, h.round, h.round + 1, 2 * h.round, 2 * h.round + 2];
      while (lengths.length < 40) lengths.push(Math.floor(rnd() * 3 * h.round));
      for (const len of lengths) {
        const bits = Uint8Array.from({ length: len }, () => (rnd() < 0.5 ? 1 : 0));
        const want = h.theirs.hash(Array.from(bits, (b) => b === 1)).toString();
        expect(`${h.ours(bits)}field`, `${h.name} of ${len} bits`).toBe(want);
      }
    });
  }

  it('a single changed bit changes the hash (the inputs are not ignored past a round)', () => {
    const bits = new Uint8Array(3000).fill(1);
    const base = bhp1024(bits);
    for (const i of [0, 1043, 1044, 2999]) {
      const other = bits.slice();
      other[i] = 0;
      expect(bhp1024(other), `bit ${i}`).not.toBe(base);
    }
  });
});

describe('BHP Merkle tree', () => {
  it('1 leaf at depth 0 is its leaf hash; padding to depth climbs as hash(root, empty)', () => {
    const leaf = new BitString().field(12345n).toArray();
    const leafHash = bhp1024(new BitString().bool(false).bits(leaf).toArray());
    const node = (l: bigint, r: bigint) => bhp512(new BitString().bool(true).field(l).field(r).toArray());
    const empty = node(0n, 0n);
    expect(bhpMerkleRoot(0, [leaf])).toBe(leafHash);
    expect(bhpMerkleRoot(2, [leaf])).toBe(node(node(leafHash, empty), empty));
    // Three leaves: padded with the empty hash to four.
    const leaves = [1n, 2n, 3n].map((x) => new BitString().field(x).toArray());
    const [a, b, c] = leaves.map((l) => bhp1024(new BitString().bool(false).bits(l).toArray())) as [bigint, bigint, bigint];
    expect(bhpMerkleRoot(2, leaves)).toBe(node(node(a, b), node(c, empty)));
    expect(() => bhpMerkleRoot(1, leaves)).toThrow(/at most 2 leaves/);
  });
});
