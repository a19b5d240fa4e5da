/**
 * Poseidon8 on the WebAssembly kernel: 29-bit-limb Montgomery arithmetic with sparse partial
 * rounds. The module is generated at build time (scripts/poseidon8-wasm/, written into
 * src/generated/poseidon8.wasm.b64.ts by scripts/build-poseidon8-wasm.ts); this file loads it and
 * writes the constants into its memory. The sponge loop runs here; each block is one absorb +
 * permute call.
 * Bit-for-bit equal to poseidon8-reference.ts (test/unit/hash/kernel.test.ts).
 *
 * `createPoseidon8Wasm()` throws if WebAssembly is unavailable; kernel.ts then falls back to the
 * BigInt reference.
 */
import { FIELD_MODULUS } from './field.js';
import { writeStructLimbs, structLimbCount } from './limbs-struct.js';
import { fromMont, LIMB_BITS, LIMBS, MONT_R2, readLimbs, toMont, WINOGRAD_Q, writeLimbs } from './limbs.js';
import { POSEIDON8_MDS } from '../generated/poseidonParams.js';
import { deriveSparseParams } from './sparseParams.js';
import { POSEIDON8_WASM_BASE64 } from '../generated/poseidon8.wasm.b64.js';
import {
  byteOf,
  E_FINAL,
  E_FULL_ARK,
  E_INPUT,
  E_MDS,
  E_MDS_W,
  E_ONE,
  E_OUT,
  E_PCOL,
  E_PCONST,
  E_PROW,
  E_R2,
  E_STATE,
  WIDTH,
} from './wasm/layout.js';
import { ALEO_POSEIDON8_DOMAIN } from './domain.js';

const P = FIELD_MODULUS;
const RATE = WIDTH - 1;
const PAGE = 65536;

/** The slice of the WebAssembly JS API used here (the project's TS lib has no DOM/WebAssembly types). */
interface WasmMemory {
  readonly buffer: ArrayBuffer;
  grow(pages: number): number;
}
interface WasmApi {
  Module: new (bytes: Uint8Array) => object;
  Instance: new (module: object, imports: object) => { exports: unknown };
}

interface Exports {
  memory: WasmMemory;
  permute(): void;
  absorb(ptr: number, k: number): void;
  reset(): void;
  squeeze(): void;
  mul(z: number, a: number, b: number): void;
}

export interface Poseidon8Wasm {
  /** Poseidon8 hash of canonical field elements (callers guarantee 0 ≤ x < p). */
  hash(domain: bigint, input: readonly bigint[]): bigint;
  /** Hash (AleoPoseidon8 domain) of `to_fields` of the chunked u128 struct holding `bytes`. */
  hashStruct(bytes: Uint8Array): bigint;
  /** In-place permutation of 9 canonical field elements (for tests). */
  permute(state: bigint[]): void;
  /** Montgomery product of two integers < 2^260 as stored limbs: a·b·R⁻¹ (for tests). */
  montMul(a: bigint, b: bigint): bigint;
}

/** `moduleBytes` (default: the committed module) lets tests and benchmarks try generator variants. */
export function createPoseidon8Wasm(moduleBytes?: Uint8Array): Poseidon8Wasm {
  const bytes = moduleBytes ?? Buffer.from(POSEIDON8_WASM_BASE64, 'base64');
  const api = (globalThis as unknown as { WebAssembly?: WasmApi }).WebAssembly;
  if (api === undefined) throw new Error('WebAssembly is not available');
  const instance = new api.Instance(new api.Module(bytes), {});
  const ex = instance.exports as unknown as Exports;
  let u32 = new Uint32Array(ex.memory.buffer);
  const at = (e: number): number => byteOf(e) / 4;

  // Constants, Montgomery form (except R² and 1, which are multipliers into/out of it).
  const sp = deriveSparseParams();
  const put = (e: number, x: bigint): void => writeLimbs(u32, at(e), x);
  sp.fullArk.forEach((row, r) => row.forEach((c, j) => put(E_FULL_ARK + r * WIDTH + j, toMont(c))));
  POSEIDON8_MDS.forEach((row, i) => row.forEach((c, j) => put(E_MDS + i * WIDTH + j, toMont(c))));
  sp.partialConst.forEach((c, r) => put(E_PCONST + r, toMont(c)));
  sp.partialRow.forEach((row, r) => row.forEach((c, j) => put(E_PROW + r * WIDTH + j, toMont(c))));
  sp.partialCol.forEach((col, r) => col.forEach((c, j) => put(E_PCOL + r * RATE + j, toMont(c))));
  sp.finalBlock.forEach((row, i) => row.forEach((c, j) => put(E_FINAL + i * RATE + j, toMont(c))));
  // Full-round MDS (Winograd pairing): per row Q − Σ_k m_{2k}·m_{2k+1} over the Montgomery forms.
  POSEIDON8_MDS.forEach((row, i) => {
    const m = row.map(toMont);
    let c = 0n;
    for (let k = 0; k + 1 < WIDTH; k += 2) c += (m[k] as bigint) * (m[k + 1] as bigint);
    const d = WINOGRAD_Q - c;
    if (d < 0n || d >> BigInt(2 * LIMBS * LIMB_BITS) !== 0n) throw new Error('Winograd constant out of range');
    put(E_MDS_W + 2 * i, BigInt.asUintN(LIMBS * LIMB_BITS, d));
    put(E_MDS_W + 2 * i + 1, d >> BigInt(LIMBS * LIMB_BITS));
  });
  put(E_R2, MONT_R2);
  put(E_ONE, 1n);

  /** Makes room for `elements` input elements after E_INPUT. */
  function ensureInput(elements: number): void {
    const need = byteOf(E_INPUT + elements);
    const have = ex.memory.buffer.byteLength;
    if (need > have) {
      ex.memory.grow(Math.ceil((need - have) / PAGE));
      u32 = new Uint32Array(ex.memory.buffer);
    }
  }

  /** Runs the sponge over `total` canonical elements at E_INPUT (prefix block included). */
  function sponge(total: number): bigint {
    ex.reset();
    for (let i = 0; i < total; i += RATE) {
      ex.absorb(byteOf(E_INPUT + i), Math.min(RATE, total - i));
      ex.permute();
    }
    ex.squeeze();
    const out = readLimbs(u32, at(E_OUT));
    return out === P ? 0n : out;
  }

  function writePrefix(domain: bigint, length: number): void {
    const base = at(E_INPUT);
    u32.fill(0, base, base + RATE * LIMBS);
    writeLimbs(u32, base, domain);
    writeLimbs(u32, base + LIMBS, BigInt(length) % P);
  }

  return {
    hash(domain, input) {
      ensureInput(RATE + input.length);
      writePrefix(domain, input.length);
      let o = at(E_INPUT + RATE);
      for (const x of input) {
        writeLimbs(u32, o, x);
        o += LIMBS;
      }
      return sponge(RATE + input.length);
    },
    hashStruct(bytes) {
      const n = structLimbCount(bytes);
      ensureInput(RATE + n);
      writePrefix(ALEO_POSEIDON8_DOMAIN, n);
      writeStructLimbs(bytes, u32, at(E_INPUT + RATE));
      return sponge(RATE + n);
    },
    permute(state) {
      state.forEach((x, i) => writeLimbs(u32, at(E_STATE + i), toMont(x)));
      ex.permute();
      for (let i = 0; i < WIDTH; i++) {
        const y = readLimbs(u32, at(E_STATE + i));
        state[i] = fromMont(y);
      }
    },
    montMul(a, b) {
      const s = at(E_INPUT);
      writeLimbs(u32, s, a);
      writeLimbs(u32, s + LIMBS, b);
      ex.mul(byteOf(E_INPUT + 2), byteOf(E_INPUT), byteOf(E_INPUT + 1));
      return readLimbs(u32, s + 2 * LIMBS);
    },
  };
}
