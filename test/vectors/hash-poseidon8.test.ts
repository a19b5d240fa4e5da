import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { ALEO_POSEIDON8_DOMAIN } from '../../src/hash/domain.js';
import { domainFromText, fieldToU128 } from '../../src/hash/field.js';
import { poseidon8Kernel } from '../../src/hash/kernel.js';
import { poseidon8 } from '../../src/hash/poseidon8-reference.js';

const DIR = path.resolve(process.cwd(), '../shared/vectors/aleo/poseidon8');
const load = <T>(name: string): T => JSON.parse(readFileSync(path.join(DIR, name), 'utf8')) as T;

interface SnarkvmFile {
  domain: string;
  domainSeparatorAleoPoseidon8: string;
  cases: { inputs: string[]; expected: string }[];
}
interface RandomFile {
  domain: string;
  cases: { inputs: string[]; expectedField: string; expectedU128: string }[];
}

const snarkvm = load<SnarkvmFile>('snarkvm-poseidon8-test-vectors.json');
const random = load<RandomFile>('aleo-poseidon8-random-field-vectors.json');

const impls = [
  ['reference', poseidon8],
  ['kernel', poseidon8Kernel],
] as const;

describe('Poseidon8 domains', () => {
  it('"AleoPoseidon8" is its ASCII bytes read little-endian', () => {
    expect(ALEO_POSEIDON8_DOMAIN).toBe(BigInt(snarkvm.domainSeparatorAleoPoseidon8));
    expect(random.domain).toBe('AleoPoseidon8');
  });
});

describe.each(impls)('Poseidon8 %s', (_name, hash) => {
  const poseidon8Domain = domainFromText(snarkvm.domain);

  it.each(snarkvm.cases.map((c) => [c.inputs.length, c] as const))(
    'snarkVM test vector with %i inputs (domain "Poseidon8")',
    (_n, c) => {
      expect(hash(poseidon8Domain, c.inputs.map(BigInt))).toBe(BigInt(c.expected));
    },
  );

  it.each(random.cases.map((c) => [c.inputs.length, c] as const))(
    'AleoPoseidon8 random vector with %i inputs',
    (_n, c) => {
      const h = hash(ALEO_POSEIDON8_DOMAIN, c.inputs.map(BigInt));
      expect(h).toBe(BigInt(c.expectedField));
      expect(fieldToU128(h)).toBe(BigInt(c.expectedU128));
    },
  );
});
