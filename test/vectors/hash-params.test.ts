import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  POSEIDON8_ALPHA,
  POSEIDON8_ARK,
  POSEIDON8_CAPACITY,
  POSEIDON8_FULL_ROUNDS,
  POSEIDON8_MDS,
  POSEIDON8_MODULUS,
  POSEIDON8_PARTIAL_ROUNDS,
  POSEIDON8_RATE,
} from '../../src/generated/poseidonParams.js';

const VECTORS = path.resolve(process.cwd(), '../shared/vectors/aleo/poseidon8/snarkvm-poseidon8-test-vectors.json');

interface ParamsFile {
  modulus: string;
  rate: number;
  capacity: number;
  alpha: number;
  fullRounds: number;
  partialRounds: number;
  ark: string[][];
  mds: string[][];
}

describe('committed Poseidon8 parameters (src/generated/poseidonParams.ts)', () => {
  const v = JSON.parse(readFileSync(VECTORS, 'utf8')) as ParamsFile;

  it('match the scalar parameters of the snarkVM vectors file', () => {
    expect(POSEIDON8_MODULUS).toBe(BigInt(v.modulus));
    expect(POSEIDON8_RATE).toBe(v.rate);
    expect(POSEIDON8_CAPACITY).toBe(v.capacity);
    expect(POSEIDON8_ALPHA).toBe(v.alpha);
    expect(POSEIDON8_FULL_ROUNDS).toBe(v.fullRounds);
    expect(POSEIDON8_PARTIAL_ROUNDS).toBe(v.partialRounds);
    expect([v.rate, v.capacity, v.alpha, v.fullRounds, v.partialRounds]).toEqual([8, 1, 17, 8, 31]);
  });

  it('hold all 39×9 round constants exactly', () => {
    expect(POSEIDON8_ARK).toHaveLength(39);
    expect(POSEIDON8_ARK.map((r) => r.map(String))).toEqual(v.ark);
  });

  it('hold the 9×9 MDS exactly', () => {
    expect(POSEIDON8_MDS).toHaveLength(9);
    expect(POSEIDON8_MDS.map((r) => r.map(String))).toEqual(v.mds);
  });
});
