import { describe, expect, it } from 'vitest';
import { FIELD_MODULUS } from '../../../src/hash/field.js';
import { identity, invMod, matInv, matMul, matPow, transpose } from '../../../src/hash/matrix.js';
import { POSEIDON8_MDS } from '../../../src/generated/poseidonParams.js';
import { deriveSparseParams } from '../../../src/hash/sparseParams.js';

const P = FIELD_MODULUS;
const mhat = POSEIDON8_MDS.slice(1).map((r) => r.slice(1));

describe('field matrix helpers', () => {
  it('invMod gives multiplicative inverses and rejects zero', () => {
    for (const x of [1n, 2n, 17n, P - 1n, 123456789012345678901234567890n]) expect((x * invMod(x)) % P).toBe(1n);
    expect(() => invMod(P)).toThrow(RangeError);
  });

  it('matInv inverts the MDS and its lower-right 8×8 block', () => {
    const full = POSEIDON8_MDS.map((r) => r.slice());
    expect(matMul(full, matInv(full))).toEqual(identity(9));
    expect(matMul(matInv(mhat), mhat)).toEqual(identity(8));
    expect(() => matInv([[1n, 2n], [2n, 4n]])).toThrow('singular');
  });

  it('matPow and transpose agree with repeated multiplication', () => {
    let m = identity(8);
    for (let i = 0; i < 5; i++) m = matMul(m, mhat);
    expect(matPow(mhat, 5)).toEqual(m);
    expect(matPow(mhat, 0)).toEqual(identity(8));
    expect(transpose(transpose(mhat))).toEqual(mhat);
    expect(transpose([[1n, 2n, 3n]])).toEqual([[1n], [2n], [3n]]);
  });
});

describe('sparse partial-round constants', () => {
  it('have the expected shapes and are canonical', () => {
    const sp = deriveSparseParams();
    expect(sp.fullArk).toHaveLength(8);
    expect(sp.partialConst).toHaveLength(31);
    expect(sp.partialRow.every((r) => r.length === 9)).toBe(true);
    expect(sp.partialCol.every((c) => c.length === 8)).toBe(true);
    expect(sp.finalBlock).toHaveLength(8);
    const all = [...sp.fullArk.flat(), ...sp.partialConst, ...sp.partialRow.flat(), ...sp.partialCol.flat(), ...sp.finalBlock.flat()];
    expect(all.every((x) => x >= 0n && x < P)).toBe(true);
  });
});
