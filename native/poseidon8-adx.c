/*
 * The ADX Poseidon8 permutation (x86-64 with BMI2 and ADX, chosen at run time, see
 * p8_select_kernel in poseidon8.c): the same rounds and constants as the portable kernel, with
 *   - products, squares and reductions as MULX/ADCX/ADOX sequences (poseidon8-adx-asm.h): a
 *     4×4-limb product is ≈ 4 instructions per limb product instead of ≈ 9 (the portable kernel is
 *     bound by instruction count, not by the multiplier);
 *   - operand-scanning dot products: each term's 512-bit product is added into a 9-limb
 *     accumulator, one Montgomery reduction per dot product;
 *   - more independent work in flight: the full rounds' S-boxes three at a time, and in a partial
 *     round the row terms that do not depend on the S-box output (elements 1..8 and the window's
 *     earlier x0) summed between the S-box's squarings, leaving one product and a reduction after it.
 * Values stay in [0, 2^255) between operations as in poseidon8.c (same bounds: S-box inputs < 2p,
 * squares lazy, dot products made canonical by two conditional subtractions).
 * Compiled only for x86-64 GCC/Clang (P8_HAVE_ADX); the instructions need no compiler flag.
 * SPDX-License-Identifier: MIT
 */
#include "poseidon8.h"

#if P8_HAVE_ADX

#include <cpuid.h>
#include <string.h>

#include "poseidon8-adx-asm.h"
#include "poseidon8-field.h"

int p8_cpu_has_adx(void) {
  unsigned a, b, c, d;
  if (!__get_cpuid_count(7, 0, &a, &b, &c, &d)) return 0;
  return (b & (1u << 8)) != 0 && (b & (1u << 19)) != 0; /* BMI2 (MULX), ADX (ADCX/ADOX) */
}

#define A4(p) "m"(*(const uint64_t(*)[4])(p))

/* t[0..7] = a·b */
static inline __attribute__((always_inline)) void mul4x4(uint64_t t[8], const uint64_t *a, const uint64_t *b) {
  uint64_t lo, hi;
  __asm__(P8_ASM_MUL4X4
          : [t0] "=&r"(t[0]), [t1] "=&r"(t[1]), [t2] "=&r"(t[2]), [t3] "=&r"(t[3]), [t4] "=&r"(t[4]),
            [t5] "=&r"(t[5]), [t6] "=&r"(t[6]), [t7] "=&r"(t[7]), [lo] "=&r"(lo), [hi] "=&r"(hi)
          : [a] "r"(a), [b] "r"(b), A4(a), A4(b)
          : "rdx", "cc");
}

/* t[0..7] = a² */
static inline __attribute__((always_inline)) void sqr4(uint64_t t[8], const uint64_t *a) {
  uint64_t lo, hi;
  __asm__(P8_ASM_SQR4
          : [t0] "=&r"(t[0]), [t1] "=&r"(t[1]), [t2] "=&r"(t[2]), [t3] "=&r"(t[3]), [t4] "=&r"(t[4]),
            [t5] "=&r"(t[5]), [t6] "=&r"(t[6]), [t7] "=&r"(t[7]), [lo] "=&r"(lo), [hi] "=&r"(hi)
          : [a] "r"(a), A4(a)
          : "rdx", "cc");
}

/* v = (t + m·p)/2^256 for t < 2^511 (so v < 2^255 and v ≡ t·2^-256 mod p); t is consumed. */
static inline __attribute__((always_inline)) void reduce9(uint64_t v[4], uint64_t t[9]) {
  uint64_t lo, hi;
  __asm__(P8_ASM_REDUCE9
          : [t0] "+&r"(t[0]), [t1] "+&r"(t[1]), [t2] "+&r"(t[2]), [t3] "+&r"(t[3]), [t4] "+&r"(t[4]),
            [t5] "+&r"(t[5]), [t6] "+&r"(t[6]), [t7] "+&r"(t[7]), [t8] "+&r"(t[8]), [lo] "=&r"(lo), [hi] "=&r"(hi)
          : [p0] "m"(P[0]), [p1] "m"(P[1]), [p2] "m"(P[2]), [p3] "m"(P[3]), [n0] "m"(N0)
          : "rdx", "cc");
  memcpy(v, &t[4], 4 * sizeof *v);
}

/* acc[0..8] += t[0..7] (the callers keep the sum below 2^511) */
static inline __attribute__((always_inline)) void acc_add8(uint64_t acc[9], const uint64_t t[8]) {
  __asm__("addq %[t0], %[a0]\n\tadcq %[t1], %[a1]\n\tadcq %[t2], %[a2]\n\tadcq %[t3], %[a3]\n\t"
          "adcq %[t4], %[a4]\n\tadcq %[t5], %[a5]\n\tadcq %[t6], %[a6]\n\tadcq %[t7], %[a7]\n\tadcq $0, %[a8]"
          : [a0] "+m"(acc[0]), [a1] "+m"(acc[1]), [a2] "+m"(acc[2]), [a3] "+m"(acc[3]), [a4] "+m"(acc[4]),
            [a5] "+m"(acc[5]), [a6] "+m"(acc[6]), [a7] "+m"(acc[7]), [a8] "+m"(acc[8])
          : [t0] "r"(t[0]), [t1] "r"(t[1]), [t2] "r"(t[2]), [t3] "r"(t[3]), [t4] "r"(t[4]), [t5] "r"(t[5]),
            [t6] "r"(t[6]), [t7] "r"(t[7])
          : "cc");
}

/* acc += Σ a_k·b_k for k < n */
static inline __attribute__((always_inline)) void acc_dot(uint64_t acc[9], const p8_fe *a, const p8_fe *b, int n) {
  uint64_t t[8];
  for (int k = 0; k < n; k++) {
    mul4x4(t, a[k].l, b[k].l);
    acc_add8(acc, t);
  }
}

/* r = a·b·2^-256, canonical for a, b < 2p (< 1.5p before the subtraction, as in poseidon8.c). */
static inline __attribute__((always_inline)) void mont_mul(p8_fe *r, const p8_fe *a, const p8_fe *b) {
  uint64_t t[9], v[4];
  mul4x4(t, a->l, b->l);
  t[8] = 0;
  reduce9(v, t);
  cond_sub_p(v);
  memcpy(r->l, v, sizeof v);
}

/* r = a²·2^-256, lazy: < 1.5p for a < 2p. */
static inline __attribute__((always_inline)) void mont_sqr(p8_fe *r, const p8_fe *a) {
  uint64_t t[9], v[4];
  sqr4(t, a->l);
  t[8] = 0;
  reduce9(v, t);
  memcpy(r->l, v, sizeof v);
}

/* r = acc·2^-256 made canonical (acc < 12p² + p·2^256: < 3p before the two subtractions). */
static inline __attribute__((always_inline)) void reduce_canonical(p8_fe *r, uint64_t acc[9]) {
  uint64_t v[4];
  reduce9(v, acc);
  cond_sub_p(v);
  cond_sub_p(v);
  memcpy(r->l, v, sizeof v);
}

/* r = (pre + Σ a_k·b_k)·2^-256 mod p, canonical; pre: 8 limbs or NULL (see dot in poseidon8.c). */
static inline __attribute__((always_inline)) void dot(p8_fe *r, const p8_fe *a, const p8_fe *b, int n, const uint64_t *pre) {
  uint64_t acc[9] = {0};
  if (pre != NULL) memcpy(acc, pre, 8 * sizeof *acc);
  acc_dot(acc, a, b, n);
  reduce_canonical(r, acc);
}

/* x^17 on three independent elements, their steps interleaved; x < 2p in, canonical out. */
static inline __attribute__((always_inline)) void pow17_x3(p8_fe *a, p8_fe *b, p8_fe *c) {
  p8_fe ya, yb, yc;
  mont_sqr(&ya, a);
  mont_sqr(&yb, b);
  mont_sqr(&yc, c);
  for (int i = 0; i < 3; i++) {
    mont_sqr(&ya, &ya);
    mont_sqr(&yb, &yb);
    mont_sqr(&yc, &yc);
  }
  mont_mul(a, &ya, a);
  mont_mul(b, &yb, b);
  mont_mul(c, &yc, c);
}

static void full_round(p8_fe s[P8_WIDTH], const p8_fe ark[P8_WIDTH], const p8_consts *k) {
  p8_fe t[P8_WIDTH];
  for (int i = 0; i < P8_WIDTH; i++) add_lazy(&t[i], &s[i], &ark[i]);
  pow17_x3(&t[0], &t[1], &t[2]);
  pow17_x3(&t[3], &t[4], &t[5]);
  pow17_x3(&t[6], &t[7], &t[8]);
  for (int i = 0; i < P8_WIDTH; i++) dot(&s[i], k->mds[i], t, P8_WIDTH, NULL);
}

/*
 * Partial round r, the d-th of its window (see permute in poseidon8.c): x0 = S(u0 + c_r);
 * u0 = row_r · (x0, u1..u8, the window's earlier x0 values u9..u(8+d)); x0 is kept at u[9 + d].
 * The 8 + d terms after the first do not depend on x0: they are summed in groups of three between
 * the squarings of the S-box.
 */
static inline __attribute__((always_inline)) void partial_round(p8_fe *u, const p8_consts *k, int r, int d) {
  const p8_fe *row = k->partial_row[r];
  const int rest = P8_WIDTH - 1 + d; /* terms 1 .. 8 + d */
  uint64_t acc[9] = {0}, t[8];
  p8_fe x0, y;
  add_lazy(&x0, &u[0], &k->partial_const[r]);
  mont_sqr(&y, &x0);
  acc_dot(acc, row + 1, u + 1, 3);
  mont_sqr(&y, &y);
  acc_dot(acc, row + 4, u + 4, 3);
  mont_sqr(&y, &y);
  acc_dot(acc, row + 7, u + 7, rest - 6 < 3 ? rest - 6 : 3);
  mont_sqr(&y, &y);
  if (rest > 9) acc_dot(acc, row + 10, u + 10, rest - 9);
  mont_mul(&x0, &y, &x0);
  mul4x4(t, row[0].l, x0.l);
  acc_add8(acc, t);
  reduce_canonical(&u[0], acc);
  u[P8_WIDTH + d] = x0;
}

void p8_permute_adx(p8_fe s[P8_WIDTH], const p8_consts *k) {
  for (int r = 0; r < P8_HALF_FULL; r++) full_round(s, k->full_ark[r], k);

  p8_fe u[P8_WIDTH + P8_WINDOW];
  memcpy(u, s, P8_WIDTH * sizeof *s);
  for (int w = 0; w < P8_WINDOWS; w++) {
    const int r0 = w * P8_WINDOW;
    partial_round(u, k, r0, 0);
    partial_round(u, k, r0 + 1, 1);
    partial_round(u, k, r0 + 2, 2);
    if (r0 + 3 < P8_PARTIAL) partial_round(u, k, r0 + 3, 3);
    const int len = P8_PARTIAL - r0 < P8_WINDOW ? P8_PARTIAL - r0 : P8_WINDOW;
    for (int j = 1; j < P8_WIDTH; j++) {
      const uint64_t high[8] = {0, 0, 0, 0, u[j].l[0], u[j].l[1], u[j].l[2], u[j].l[3]}; /* u[j]·2^256 */
      dot(&u[j], k->window_col[w][j - 1], &u[P8_WIDTH], len, high);
    }
  }
  memcpy(s, u, P8_WIDTH * sizeof *s);

  p8_fe t[P8_RATE];
  for (int i = 0; i < P8_RATE; i++) dot(&t[i], k->final_block[i], &s[1], P8_RATE, NULL);
  memcpy(&s[1], t, sizeof t);

  for (int r = P8_HALF_FULL; r < 2 * P8_HALF_FULL; r++) full_round(s, k->full_ark[r], k);
}

#else
/* Not x86-64 GCC/Clang: the portable kernel only (ISO C wants a non-empty translation unit). */
typedef int p8_no_adx_kernel;
#endif
