import { readFileSync } from 'node:fs';
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VerifierError, type AnyVerifierError } from '../../../src/errors.js';
import { ALEO_POSEIDON8_DOMAIN } from '../../../src/hash/domain.js';
import { FIELD_MODULUS } from '../../../src/hash/field.js';
import { hashStructBytesField, poseidon8Kernel, poseidon8KernelName } from '../../../src/hash/kernel.js';
import { structLimbCount, writeStructLimbs } from '../../../src/hash/limbs-struct.js';
import { LIMBS, MONT_MU, MONT_R, MONT_R_INV, P_LIMBS, fromMont, readLimbs, toLimbs, toMont, writeLimbs } from '../../../src/hash/limbs.js';
import { permuteReference, poseidon8 } from '../../../src/hash/poseidon8-reference.js';
import { createPoseidon8Wasm } from '../../../src/hash/poseidon8-wasm.js';
import { structFieldElements } from '../../../src/hash/structFields.js';
import { buildPoseidon8Wasm } from '../../../scripts/poseidon8-wasm/poseidon8-module.js';
import { renderPoseidon8WasmModuleSource } from '../../../scripts/poseidon8-wasm/render.js';
import { expectedKernelName } from '../../support/expectedKernel.js';

const P = FIELD_MODULUS;
const k = createPoseidon8Wasm();
const fieldArb = fc.bigInt({ min: 0n, max: P - 1n });
const edgeArb = fc.oneof(
  { arbitrary: fieldArb, weight: 3 },
  { arbitrary: fc.bigInt({ min: 0n, max: (1n << 252n) - 1n }), weight: 2 },
  { arbitrary: fc.constantFrom(0n, 1n, 2n, P - 1n, P - 2n, (1n << 252n) - 1n, 1n << 251n), weight: 2 },
);

describe('generated WASM module', () => {
  it('the committed base64 module equals a fresh generation (run scripts/build-poseidon8-wasm.ts)', () => {
    const committed = readFileSync(path.resolve(process.cwd(), 'src/generated/poseidon8.wasm.b64.ts'), 'utf8');
    expect(committed).toBe(renderPoseidon8WasmModuleSource());
  });

  it('is the active kernel when VERIFIER_HASH_BACKEND=wasm, else a native one is', () => {
    expect(poseidon8KernelName).toBe(expectedKernelName());
  });
});

describe('limbs and Montgomery constants', () => {
  it('R = 2^261 mod p, μ = −p⁻¹ mod 2^29, p limbs', () => {
    expect(MONT_R).toBe((1n << 261n) % P);
    expect((MONT_R * MONT_R_INV) % P).toBe(1n);
    expect((BigInt(MONT_MU) * P + 1n) % (1n << 29n)).toBe(0n);
    expect(readLimbs(Uint32Array.from(P_LIMBS), 0)).toBe(P);
  });

  it('writeLimbs / toLimbs / readLimbs round-trip below 2^261', () => {
    const u = new Uint32Array(LIMBS + 2);
    fc.assert(
      fc.property(fc.oneof(fc.bigInt({ min: 0n, max: (1n << 261n) - 1n }), fc.constantFrom(0n, (1n << 261n) - 1n, P)), (x) => {
        writeLimbs(u, 1, x);
        expect(Array.from(u.subarray(1, 1 + LIMBS))).toEqual(toLimbs(x));
        expect(readLimbs(u, 1)).toBe(x);
        expect(fromMont(toMont(x))).toBe(x % P);
      }),
      { numRuns: 300 },
    );
    expect(() => writeLimbs(u, 0, 1n << 261n)).toThrow(RangeError);
  });

  it('WASM Montgomery product equals a·b·R⁻¹ (mod p), output < a·b/R + p', () => {
    const big = fc.oneof(fc.bigInt({ min: 0n, max: (1n << 258n) - 1n }), fc.constantFrom(0n, 1n, P - 1n, P, (1n << 258n) - 1n));
    fc.assert(
      fc.property(big, big, (a, b) => {
        const z = k.montMul(a, b);
        expect(z % P).toBe((a * b * MONT_R_INV) % P);
        expect(z < (a * b) / (1n << 261n) + P + 1n).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});

describe('WASM Poseidon8 equals the reference', () => {
  it('permutation on random states with edge values', () => {
    fc.assert(
      fc.property(fc.array(edgeArb, { minLength: 9, maxLength: 9 }), (state) => {
        const a = state.slice();
        const b = state.slice();
        permuteReference(a);
        k.permute(b);
        expect(b).toEqual(a);
      }),
      { numRuns: 300 },
    );
  });

  it('sponge on random inputs of length 0..40 against the reference', () => {
    fc.assert(
      fc.property(fieldArb, fc.array(edgeArb, { maxLength: 40 }), (domain, input) => {
        expect(k.hash(domain, input)).toBe(poseidon8(domain, input));
      }),
      { numRuns: 150 },
    );
  });

  it('sponge on long random inputs (length 0..260) against the reference', () => {
    fc.assert(
      fc.property(fieldArb, fc.integer({ min: 0, max: 260 }), fc.array(edgeArb, { minLength: 260, maxLength: 260 }), (domain, n, pool) => {
        const input = pool.slice(0, n);
        expect(k.hash(domain, input)).toBe(poseidon8(domain, input));
      }),
      { numRuns: 60 },
    );
  });

  it('all-(p−1) and all-zero inputs of every length 0..17 (block boundaries)', () => {
    for (let n = 0; n <= 17; n++) {
      for (const v of [0n, P - 1n]) {
        const input = new Array<bigint>(n).fill(v);
        expect(k.hash(ALEO_POSEIDON8_DOMAIN, input)).toBe(poseidon8(ALEO_POSEIDON8_DOMAIN, input));
      }
    }
  });

  it('grows its memory for long inputs (3000 elements)', () => {
    const input = Array.from({ length: 3000 }, (_, i) => (BigInt(i) * 0x9e3779b97f4a7c15n) % P);
    expect(k.hash(ALEO_POSEIDON8_DOMAIN, input)).toBe(poseidon8(ALEO_POSEIDON8_DOMAIN, input));
  });

  it('the plain-dot-product MDS variant (winograd: false) matches too', () => {
    const plain = createPoseidon8Wasm(buildPoseidon8Wasm({ winograd: false }));
    fc.assert(
      fc.property(fc.array(edgeArb, { minLength: 9, maxLength: 9 }), fc.array(edgeArb, { maxLength: 20 }), (state, input) => {
        const a = state.slice();
        const b = state.slice();
        permuteReference(a);
        plain.permute(b);
        expect(b).toEqual(a);
        expect(plain.hash(ALEO_POSEIDON8_DOMAIN, input)).toBe(k.hash(ALEO_POSEIDON8_DOMAIN, input));
      }),
      { numRuns: 40 },
    );
  });

  it('poseidon8Kernel (the active kernel) still matches', () => {
    expect(poseidon8Kernel(ALEO_POSEIDON8_DOMAIN, [1n, P - 1n])).toBe(poseidon8(ALEO_POSEIDON8_DOMAIN, [1n, P - 1n]));
  });
});

describe('bytes → limbs (struct to_fields without BigInt)', () => {
  const chunkBytes = (maxChunks: number) =>
    fc.integer({ min: 1, max: maxChunks }).chain((c) =>
      fc.oneof(
        fc.uint8Array({ minLength: c * 512, maxLength: c * 512 }),
        fc.constantFrom(new Uint8Array(c * 512), new Uint8Array(c * 512).fill(0xff)),
        fc.array(fc.tuple(fc.nat(c * 512 - 1), fc.integer({ min: 1, max: 255 })), { maxLength: 8 }).map((sets) => {
          const b = new Uint8Array(c * 512);
          for (const [i, v] of sets) b[i] = v;
          return b;
        }),
      ),
    );

  it('writeStructLimbs equals structFieldElements (1..12 chunks)', () => {
    fc.assert(
      fc.property(chunkBytes(12), (bytes) => {
        const expected = structFieldElements(bytes);
        const out = new Uint32Array(expected.length * LIMBS + 5).fill(0xdeadbeef);
        expect(structLimbCount(bytes)).toBe(expected.length);
        expect(writeStructLimbs(bytes, out, 2)).toBe(expected.length);
        expect(Array.from({ length: expected.length }, (_, i) => readLimbs(out, 2 + i * LIMBS))).toEqual(expected);
        expect(out[expected.length * LIMBS + 2]).toBe(0xdeadbeef);
      }),
      { numRuns: 200 },
    );
  });

  it('hashStructBytesField equals reference Poseidon8 over structFieldElements', () => {
    fc.assert(
      fc.property(chunkBytes(2), (bytes) => {
        expect(hashStructBytesField(bytes)).toBe(poseidon8(ALEO_POSEIDON8_DOMAIN, structFieldElements(bytes)));
      }),
      { numRuns: 12 },
    );
    const user = Uint8Array.from({ length: 4096 }, (_, i) => (i * 131 + 7) & 255);
    expect(hashStructBytesField(user)).toBe(poseidon8(ALEO_POSEIDON8_DOMAIN, structFieldElements(user)));
  });

  it('255 chunks (largest struct, memory growth)', () => {
    const bytes = Uint8Array.from({ length: 255 * 512 }, (_, i) => (i * 31 + (i >> 9)) & 255);
    expect(hashStructBytesField(bytes)).toBe(poseidon8(ALEO_POSEIDON8_DOMAIN, structFieldElements(bytes)));
  });

  it.each([0, 100, 513, 256 * 512])('rejects a %i-byte message like structFieldElements', (n) => {
    const bytes = new Uint8Array(n);
    let code: unknown;
    try {
      structFieldElements(bytes);
    } catch (e) {
      code = (e as AnyVerifierError).code;
    }
    expect(code).toMatch(/^HASH_INPUT_/);
    expect(() => hashStructBytesField(bytes)).toThrow(VerifierError);
    try {
      hashStructBytesField(bytes);
    } catch (e) {
      expect((e as AnyVerifierError).code).toBe(code);
    }
  });
});
