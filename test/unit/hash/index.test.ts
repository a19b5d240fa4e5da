import { describe, expect, it } from 'vitest';
import { VerifierError, type AnyVerifierError } from '../../../src/errors.js';
import {
  hashReportData,
  hashReportDataField,
  hashReportDataU128,
  poseidon8,
  structFieldElements,
  ALEO_POSEIDON8_DOMAIN,
} from '../../../src/hash/index.js';
import { pseudoRandomBytes } from '../../support/random.js';

const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');

describe('hashReportData', () => {
  const msg = pseudoRandomBytes(4096, 99);

  it('is the LE u128 of the low 128 bits of the reference Poseidon8 over the struct fields', () => {
    const field = poseidon8(ALEO_POSEIDON8_DOMAIN, structFieldElements(msg));
    expect(hashReportDataField(msg)).toBe(field);
    const u128 = hashReportDataU128(msg);
    expect(u128).toBe(field & ((1n << 128n) - 1n));
    const h = hashReportData(msg);
    expect(h).toBeInstanceOf(Uint8Array);
    expect(h).toHaveLength(16);
    expect(BigInt('0x' + hex(Uint8Array.from(h).reverse()))).toBe(u128);
  });

  it.each([0, 1, 15, 16, 2047, 2048, 4095])('a single flipped bit in byte %i changes the hash', (i) => {
    const base = hex(hashReportData(msg));
    for (const bit of [0, 7]) {
      const m = msg.slice();
      m[i] = (m[i] as number) ^ (1 << bit);
      expect(hex(hashReportData(m))).not.toBe(base);
    }
  });

  it('distinguishes an 8-chunk message from its 10-chunk zero extension', () => {
    const ext = new Uint8Array(5120);
    ext.set(msg);
    expect(hex(hashReportData(ext))).not.toBe(hex(hashReportData(msg)));
  });

  it.each([
    [0, 'HASH_INPUT_EMPTY'],
    [4000, 'HASH_INPUT_LENGTH'],
    [4097, 'HASH_INPUT_LENGTH'],
  ] as const)('rejects a %i-byte message with %s', (n, code) => {
    for (const f of [hashReportData, hashReportDataU128, hashReportDataField]) {
      let err: unknown;
      try {
        f(new Uint8Array(n));
      } catch (e) {
        err = e;
      }
      expect(err).toBeInstanceOf(VerifierError);
      expect((err as AnyVerifierError).code).toBe(code);
    }
  });
});
