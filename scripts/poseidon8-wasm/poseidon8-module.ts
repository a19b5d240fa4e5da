/**
 * Generates the Poseidon8 WebAssembly module (code only; the JS driver, src/hash/poseidon8-wasm.ts,
 * writes the constants into memory at start-up). Build time only: scripts/build-poseidon8-wasm.ts
 * writes the module into src/generated/poseidon8.wasm.b64.ts, which the service loads; the memory
 * layout both sides use is src/hash/wasm/layout.ts.
 *
 * Field arithmetic: 9 × 29-bit limbs, Montgomery with R = 2^261, product scanning with one 64-bit
 * column accumulator (carries deferred to once per column), and single-reduction dot products for
 * the MDS / sparse rows (Σ cᵢ·xᵢ reduced once).
 *
 * Bounds (all limbs stored normalised, < 2^29, so every limb product is < 2^58):
 *  - mul/sqr column: ≤ 9 operand + 9 reduction products + carry < 2^62.2.
 *  - dot: terms 0..3 go straight into the accumulator (≤ 36 + 9 products + carry < 2^63.5); the
 *    remaining terms (≤ 45 products < 2^63.5) are summed separately and split into low/high parts.
 *  - values: Montgomery output < ab/R + p (no final subtraction); the kernel keeps every value
 *    below 2^259 (see the comments in permute), so results stay below 2^261 (9 limbs).
 *
 * Full rounds multiply by the MDS with Winograd's pairing (genMdsRow) unless options.winograd is
 * false (plain single-reduction dot products; kept as a differential-testing variant).
 *
 * Exports: memory; reset(); absorb(ptr, k) (adds k ≤ 8 canonical inputs at byte ptr into rate
 * elements 1..k, entering Montgomery form); permute(); squeeze() (state[1] out of Montgomery form
 * into OUT: canonical, or exactly p for zero); mul(z, a, b) for tests.
 */
import { LIMB_BITS, LIMB_MASK, LIMBS, MONT_MU, P_LIMBS, WINOGRAD_Q } from '../../src/hash/limbs.js';
import { FnBuilder, I32, I64, ModuleBuilder } from './emit.js';
import {
  byteOf,
  E_FINAL,
  E_FULL_ARK,
  E_MDS,
  E_MDS_W,
  E_SUMS,
  E_YW,
  E_ONE,
  E_OUT,
  E_PCOL,
  E_PCONST,
  E_PROW,
  E_R2,
  E_SCR,
  E_STATE,
  E_TMP,
  HALF_FULL,
  INITIAL_PAGES,
  PARTIAL,
  WIDTH,
} from '../../src/hash/wasm/layout.js';

const N = LIMBS;
const MASK = BigInt(LIMB_MASK);
const SHIFT = BigInt(LIMB_BITS);
const DIRECT_TERMS = 4;

const pLimb = (k: number): number => P_LIMBS[k] as number;

/** Generator variants (benchmarked; the defaults are what the committed module uses). */
export interface Poseidon8WasmOptions {
  /** Full-round MDS with Winograd's pairing (5 instead of 9 products per row + 4 shared). */
  readonly winograd?: boolean;
}

/** Limb c (0 ≤ c < 18) of Q in 29-bit limbs. */
const qLimb = (c: number): bigint => (WINOGRAD_Q >> BigInt(LIMB_BITS * c)) & MASK;

/** Pushes limb k of the element at (pointer local `ptr` + byte offset `off`). */
function limb(f: FnBuilder, ptr: number, off: number, k: number): void {
  f.get(ptr).load32u(off + 4 * k);
}

/**
 * Montgomery product scanning. `column(i)` must leave the column's operand-product contribution
 * added into local t (and optionally into local h, the high part carried to column i+1).
 * Output limbs are stored at z; `addend(k)` (optional) pushes an i64 to add into output limb k.
 */
function montScan(
  f: FnBuilder,
  t: number,
  h: number | null,
  column: (i: number) => void,
  z: number,
  zOff: number,
  addend: ((k: number) => void) | null,
): void {
  const m: number[] = [];
  for (let i = 0; i < N; i++) m.push(f.local(I64));
  f.i64(0).set(t);
  if (h !== null) f.i64(0).set(h);
  for (let i = 0; i < 2 * N - 1; i++) {
    column(i);
    // reduction products m_j · p_{i−j}
    const lo = Math.max(0, i - (N - 1));
    const hi = Math.min(i - 1, N - 1);
    let any = false;
    for (let j = lo; j <= hi; j++) {
      const pk = pLimb(i - j);
      if (pk === 0) continue;
      if (!any) f.get(t);
      any = true;
      f.get(m[j] as number);
      if (pk !== 1) f.i64(pk).mul64();
      f.add64();
    }
    if (any) f.set(t);
    if (i < N) {
      // m_i = t·μ mod 2^29; then t + m_i·p_0 ≡ 0 mod 2^29.
      if (MONT_MU === LIMB_MASK) f.i64(0).get(t).sub64();
      else f.get(t).i64(MONT_MU).mul64();
      f.i64(MASK).and64().set(m[i] as number);
      f.get(t).get(m[i] as number);
      if (pLimb(0) !== 1) f.i64(pLimb(0)).mul64();
      f.add64().set(t);
    } else {
      const k = i - N;
      if (addend !== null) {
        f.get(t);
        addend(k);
        f.add64().set(t);
      }
      f.get(z).get(t).i64(MASK).and64().store32(zOff + 4 * k);
    }
    f.get(t).i64(SHIFT).shrU64();
    if (h !== null) f.get(h).add64().i64(0).set(h);
    f.set(t);
  }
  if (addend !== null) {
    f.get(t);
    addend(N - 1);
    f.add64().set(t);
  }
  f.get(z).get(t).store32(zOff + 4 * (N - 1));
}

/** mul(z, a, b) or mulAdd(z, a, b, c): z = a·b·R⁻¹ (+ c). z must not alias a or b. */
function genMul(f: FnBuilder, withAddend: boolean): void {
  const [z, a, b, c] = [0, 1, 2, 3];
  const t = f.local(I64);
  montScan(
    f,
    t,
    null,
    (i) => {
      f.get(t);
      for (let j = Math.max(0, i - (N - 1)); j <= Math.min(i, N - 1); j++) {
        limb(f, a, 0, j);
        limb(f, b, 0, i - j);
        f.mul64().add64();
      }
      f.set(t);
    },
    z,
    0,
    withAddend ? (k) => limb(f, c, 0, k) : null,
  );
}

/** sqr(z, a): z = a²·R⁻¹; z must not alias a. */
function genSqr(f: FnBuilder): void {
  const [z, a] = [0, 1];
  const t = f.local(I64);
  const d = f.local(I64);
  const la = (k: number): void => limb(f, a, 0, k);
  montScan(
    f,
    t,
    null,
    (i) => {
      f.get(t);
      let cross = false;
      for (let j = Math.max(0, i - (N - 1)); j < i - j; j++) {
        la(j);
        la(i - j);
        f.mul64();
        if (cross) f.add64();
        cross = true;
      }
      if (cross) f.i64(1).shl64().add64();
      if (i % 2 === 0 && i / 2 < N) {
        limb(f, a, 0, i / 2);
        f.tee(d).get(d).mul64().add64();
      }
      f.set(t);
    },
    z,
    0,
    null,
  );
}

/** dot(z, c, x): z = (Σ_{k<terms} c_k·x_k)·R⁻¹ with one reduction; c, x contiguous element arrays. */
function genDot(f: FnBuilder, terms: number): void {
  const [z, c, x] = [0, 1, 2];
  const t = f.local(I64);
  const h = f.local(I64);
  const u = f.local(I64);
  const EB = byteOf(1);
  montScan(
    f,
    t,
    h,
    (i) => {
      const lo = Math.max(0, i - (N - 1));
      const hi = Math.min(i, N - 1);
      // Terms 0..DIRECT_TERMS−1 straight into t.
      f.get(t);
      for (let k = 0; k < Math.min(terms, DIRECT_TERMS); k++) {
        for (let j = lo; j <= hi; j++) {
          limb(f, c, k * EB, j);
          limb(f, x, k * EB, i - j);
          f.mul64().add64();
        }
      }
      f.set(t);
      if (terms > DIRECT_TERMS) {
        let first = true;
        for (let k = DIRECT_TERMS; k < terms; k++) {
          for (let j = lo; j <= hi; j++) {
            limb(f, c, k * EB, j);
            limb(f, x, k * EB, i - j);
            f.mul64();
            if (!first) f.add64();
            first = false;
          }
        }
        f.tee(u).i64(MASK).and64().get(t).add64().set(t);
        f.get(u).i64(SHIFT).shrU64().get(h).add64().set(h);
      }
    },
    z,
    0,
    null,
  );
}

/**
 * ywide(): YW = Q − Σ_{k<4} y_{2k}·y_{2k+1} as an exact 18-limb integer (y = TMP, the S-box
 * outputs of a full round, each < 2^254, so the sum is < 2^510 < Q).
 */
function genYWide(f: FnBuilder): void {
  const t = f.local(I64);
  const bor = f.local(I64);
  const s = f.local(I64);
  const y = (e: number, j: number): void => {
    f.i32(0).load32u(byteOf(E_TMP + e) + 4 * j);
  };
  const yw = byteOf(E_YW);
  f.i64(0).set(t).i64(0).set(bor);
  for (let c = 0; c < 2 * N; c++) {
    if (c < 2 * N - 1) {
      f.get(t);
      for (let k = 0; k < 4; k++) {
        for (let j = Math.max(0, c - (N - 1)); j <= Math.min(c, N - 1); j++) {
          y(2 * k, j);
          y(2 * k + 1, c - j);
          f.mul64().add64();
        }
      }
      f.tee(t).i64(MASK).and64().set(s);
      f.get(t).i64(SHIFT).shrU64().set(t);
    } else {
      f.get(t).set(s);
    }
    // d = Q_c − s + borrow; YW_c = d mod 2^29; borrow = d >> 29 (arithmetic: 0 or negative).
    f.i64(qLimb(c)).get(s).sub64().get(bor).add64().set(s);
    f.i32(0).get(s);
    if (c < 2 * N - 1) f.i64(MASK).and64();
    f.store32(yw + 4 * c);
    f.get(s).i64(SHIFT).shrS64().set(bor);
  }
}

/**
 * mdsRow(z, m, d): z = (Σ_j m_j·y_j)·R⁻¹ for y = TMP, via
 *   Σ_j m_j y_j = Σ_{k<4} (m_{2k} + y_{2k+1})(m_{2k+1} + y_{2k}) + m_8 y_8 − C − Y,
 * C = Σ_k m_{2k} m_{2k+1} (per row; d = Q − C precomputed), Y = Σ_k y_{2k} y_{2k+1} (YW = Q − Y).
 * The sums are < 2^255 (normalised limbs); the total (+2Q) is < 2^513.2.
 * Column bound: 36 + 9 operand and 8 reduction products + 2 limbs + carry < 2^63.8.
 */
function genMdsRow(f: FnBuilder, add: number): void {
  const [z, m, d] = [0, 1, 2];
  const t = f.local(I64);
  const EB = byteOf(1);
  const SUMS = byteOf(E_SUMS);
  const Y = byteOf(E_TMP);
  const YW = byteOf(E_YW);
  for (let k = 0; k < 4; k++) {
    f.i32(SUMS + 2 * k * EB).get(m).i32(2 * k * EB).add32().i32(Y + (2 * k + 1) * EB).call(add);
    f.i32(SUMS + (2 * k + 1) * EB).get(m).i32((2 * k + 1) * EB).add32().i32(Y + 2 * k * EB).call(add);
  }
  const at = (addr: number): void => {
    f.i32(0).load32u(addr);
  };
  montScan(
    f,
    t,
    null,
    (i) => {
      f.get(t);
      for (let k = 0; k < 4; k++) {
        for (let j = Math.max(0, i - (N - 1)); j <= Math.min(i, N - 1); j++) {
          at(SUMS + 2 * k * EB + 4 * j);
          at(SUMS + (2 * k + 1) * EB + 4 * (i - j));
          f.mul64().add64();
        }
      }
      for (let j = Math.max(0, i - (N - 1)); j <= Math.min(i, N - 1); j++) {
        limb(f, m, 8 * EB, j);
        at(Y + 8 * EB + 4 * (i - j));
        f.mul64().add64();
      }
      if (i < N) {
        limb(f, d, 0, i);
        f.add64();
        at(YW + 4 * i);
        f.add64();
      }
      f.set(t);
    },
    z,
    0,
    (k) => {
      limb(f, d, 0, N + k);
      at(YW + 4 * (N + k));
      f.add64();
    },
  );
}

/** add(z, a, b): z = a + b with normalised limbs (no modular reduction); z may alias a or b. */
function genAdd(f: FnBuilder): void {
  const [z, a, b] = [0, 1, 2];
  const t = f.local(I64);
  for (let k = 0; k < N; k++) {
    limb(f, a, 0, k);
    limb(f, b, 0, k);
    f.add64();
    if (k > 0) f.get(t).i64(SHIFT).shrU64().add64();
    f.set(t);
    f.get(z).get(t);
    if (k < N - 1) f.i64(MASK).and64();
    f.store32(4 * k);
  }
}

function genCopy(f: FnBuilder): void {
  const [z, a] = [0, 1];
  for (let k = 0; k < N; k++) f.get(z).get(a).i32Load(4 * k).i32Store(4 * k);
}

export function buildPoseidon8Wasm(options: Poseidon8WasmOptions = {}): Uint8Array {
  const winograd = options.winograd ?? true;
  const mod = new ModuleBuilder(INITIAL_PAGES);
  const mul = mod.fn([I32, I32, I32]);
  const mulAdd = mod.fn([I32, I32, I32, I32]);
  const sqr = mod.fn([I32, I32]);
  const dot9 = mod.fn([I32, I32, I32]);
  const dot8 = mod.fn([I32, I32, I32]);
  const add = mod.fn([I32, I32, I32]);
  const copy = mod.fn([I32, I32]);
  const sbox = mod.fn([I32, I32]);
  const permute = mod.fn([]);
  const absorb = mod.fn([I32, I32]);
  const reset = mod.fn([]);
  const squeeze = mod.fn([]);
  const ywide = mod.fn([]);
  const mdsRow = mod.fn([I32, I32, I32]);

  genMul(mul.f, false);
  genMul(mulAdd.f, true);
  genSqr(sqr.f);
  genDot(dot9.f, WIDTH);
  genDot(dot8.f, WIDTH - 1);
  genAdd(add.f);
  genCopy(copy.f);
  genYWide(ywide.f);
  genMdsRow(mdsRow.f, add.index);

  const B = byteOf;
  const S0 = B(E_SCR);
  const S1 = B(E_SCR + 1);
  const S2 = B(E_SCR + 2);
  const S3 = B(E_SCR + 3);
  {
    // sbox(z, a): z = a^17 = ((((a²)²)²)²)·a; z must not alias a.
    const f = sbox.f;
    f.i32(S0).get(1).call(sqr.index);
    f.i32(S1).i32(S0).call(sqr.index);
    f.i32(S0).i32(S1).call(sqr.index);
    f.i32(S1).i32(S0).call(sqr.index);
    f.get(0).i32(S1).get(1).call(mul.index);
  }
  {
    // Straight-line permutation (see src/hash/sparseParams.ts for the structure).
    // Value bounds: state < 2^255 on entry (absorb), full-round outputs < 2^254.2, sbox outputs
    // < 2^253.2; partial rounds grow elements 1..8 by < 2^253.2 per round → < 2^258.3.
    const f = permute.f;
    const st = (i: number): number => B(E_STATE + i);
    const fullRound = (r: number): void => {
      for (let j = 0; j < WIDTH; j++) {
        f.i32(S2).i32(st(j)).i32(B(E_FULL_ARK + r * WIDTH + j)).call(add.index);
        f.i32(B(E_TMP + j)).i32(S2).call(sbox.index);
      }
      if (winograd) {
        f.call(ywide.index);
        for (let i = 0; i < WIDTH; i++) f.i32(st(i)).i32(B(E_MDS + i * WIDTH)).i32(B(E_MDS_W + 2 * i)).call(mdsRow.index);
      } else {
        for (let i = 0; i < WIDTH; i++) f.i32(st(i)).i32(B(E_MDS + i * WIDTH)).i32(B(E_TMP)).call(dot9.index);
      }
    };
    for (let r = 0; r < HALF_FULL; r++) fullRound(r);
    for (let r = 0; r < PARTIAL; r++) {
      f.i32(S2).i32(st(0)).i32(B(E_PCONST + r)).call(add.index);
      f.i32(st(0)).i32(S2).call(sbox.index);
      f.i32(B(E_TMP)).i32(B(E_PROW + r * WIDTH)).i32(st(0)).call(dot9.index);
      for (let j = 1; j < WIDTH; j++) {
        f.i32(st(j)).i32(B(E_PCOL + r * (WIDTH - 1) + j - 1)).i32(st(0)).i32(st(j)).call(mulAdd.index);
      }
      f.i32(st(0)).i32(B(E_TMP)).call(copy.index);
    }
    for (let i = 1; i < WIDTH; i++) {
      f.i32(B(E_TMP + i)).i32(B(E_FINAL + (i - 1) * (WIDTH - 1))).i32(st(1)).call(dot8.index);
    }
    for (let i = 1; i < WIDTH; i++) f.i32(st(i)).i32(B(E_TMP + i)).call(copy.index);
    for (let r = HALF_FULL; r < 2 * HALF_FULL; r++) fullRound(r);
  }
  {
    // absorb(ptr, k): for j < k: state[1+j] += mont(input_j).
    const f = absorb.f;
    for (let j = 0; j < WIDTH - 1; j++) {
      f.get(1).i32(j).gtU32().if();
      f.i32(S3).get(0).i32(B(j)).add32().i32(B(E_R2)).call(mul.index);
      f.i32(B(E_STATE + 1 + j)).i32(B(E_STATE + 1 + j)).i32(S3).call(add.index);
      f.end();
    }
  }
  {
    const f = reset.f;
    for (let i = 0; i < WIDTH * N; i++) f.i32(B(E_STATE) + 4 * i).i32(0).i32Store(0);
  }
  squeeze.f.i32(B(E_OUT)).i32(B(E_STATE + 1)).i32(B(E_ONE)).call(mul.index);

  mod.export('mul', mul.index);
  mod.export('permute', permute.index);
  mod.export('absorb', absorb.index);
  mod.export('reset', reset.index);
  mod.export('squeeze', squeeze.index);
  return mod.bytes();
}
