import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VerifierError } from '../../../src/errors.js';
import { ALEO_POSEIDON8_DOMAIN } from '../../../src/hash/domain.js';
import { FIELD_MODULUS, domainFromText, fieldToU128, u128ToLeBytes } from '../../../src/hash/field.js';
import { poseidon8Kernel } from '../../../src/hash/kernel.js';
import { poseidon8 } from '../../../src/hash/poseidon8-reference.js';

const fieldArb = fc.bigInt({ min: 0n, max: FIELD_MODULUS - 1n });
const edgeArb = fc.oneof(fieldArb, fc.constantFrom(0n, 1n, FIELD_MODULUS - 1n, (1n << 252n) - 1n));

describe('the active Poseidon8 kernel equals the reference', () => {
  it('sponge on random inputs of length 0..25 (across block boundaries)', () => {
    fc.assert(
      fc.property(fieldArb, fc.array(edgeArb, { maxLength: 25 }), (domain, input) => {
        expect(poseidon8Kernel(domain, input)).toBe(poseidon8(domain, input));
      }),
      { numRuns: 30 },
    );
  });

  it('changes when one input element changes, and with the length (zero padding is not free)', () => {
    const base = [1n, 2n, 3n];
    expect(poseidon8Kernel(ALEO_POSEIDON8_DOMAIN, [1n, 2n, 4n])).not.toBe(poseidon8Kernel(ALEO_POSEIDON8_DOMAIN, base));
    expect(poseidon8Kernel(ALEO_POSEIDON8_DOMAIN, [...base, 0n])).not.toBe(poseidon8Kernel(ALEO_POSEIDON8_DOMAIN, base));
    expect(poseidon8Kernel(domainFromText('Poseidon8'), base)).not.toBe(poseidon8Kernel(ALEO_POSEIDON8_DOMAIN, base));
  });
});

describe('reference input checks and field helpers', () => {
  it.each([FIELD_MODULUS, -1n, FIELD_MODULUS + 5n])('rejects input %s', (x) => {
    expect(() => poseidon8(ALEO_POSEIDON8_DOMAIN, [0n, x])).toThrow(VerifierError);
    expect(() => poseidon8(ALEO_POSEIDON8_DOMAIN, [0n, x])).toThrow('input[1]');
    expect(() => poseidon8(x, [])).toThrow('domain');
  });

  it('domainFromText reads ASCII little-endian', () => {
    expect(domainFromText('AB')).toBe(0x4241n);
    expect(domainFromText('')).toBe(0n);
  });

  it('fieldToU128 keeps the lowest 128 bits; u128ToLeBytes is little-endian', () => {
    expect(fieldToU128((5n << 128n) | 7n)).toBe(7n);
    expect(Buffer.from(u128ToLeBytes(0x0102n)).toString('hex')).toBe('0201' + '00'.repeat(14));
    expect(Buffer.from(u128ToLeBytes((1n << 128n) - 1n)).toString('hex')).toBe('ff'.repeat(16));
    expect(() => u128ToLeBytes(1n << 128n)).toThrow(RangeError);
  });
});
