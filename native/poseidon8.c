/*
 * Poseidon8 permutation and sponge, 4x64-bit Montgomery arithmetic (see poseidon8.h).
 * Same round structure as the WASM kernel (scripts/poseidon8-wasm/poseidon8-module.ts), with the
 * sparse partial-round constants of src/hash/sparseParams.ts:
 *   4 full rounds (add constants, x^17 on all 9 elements, dense MDS),
 *   31 sparse partial rounds (scalar constant + x^17 on element 0, sparse factor: one row of 9
 *   products into element 0 and one column of 8 products into elements 1..8; the column updates
 *   are applied per window of 4 rounds, see permute),
 *   the deferred 8x8 block on elements 1..8,
 *   4 full rounds.
 * Arithmetic: every product, square and dot product is one product-scanning Montgomery
 * multiplication (one reduction per dot product); S-box inputs and intermediate squares are kept
 * in [0, 2p) and only S-box outputs are made canonical.
 * SPDX-License-Identifier: MIT
 */
#include "poseidon8.h"

#include <string.h>

#include "poseidon8-field.h"

typedef unsigned __int128 u128;

/* Is a < p? */
static int lt_p(const p8_fe *a, const p8_consts *k) {
  uint64_t t[4];
  (void)k;
  return (int)sub4(t, a->l, P);
}

/* r = (a + b) mod p for a, b < p (p < 2^253, so the sum fits 256 bits). */
static inline __attribute__((always_inline)) void add_mod(p8_fe *r, const p8_fe *a, const p8_fe *b, const p8_consts *k) {
  (void)k;
  uint64_t s[4], t[4], carry = 0;
  for (int i = 0; i < 4; i++) {
    uint64_t x;
    uint64_t c1 = __builtin_add_overflow(a->l[i], b->l[i], &x);
    uint64_t c2 = __builtin_add_overflow(x, carry, &s[i]);
    carry = c1 | c2;
  }
  /* keep s - p unless it borrowed (branch-free select: the borrow is data-dependent) */
  uint64_t keep_s = 0 - sub4(t, s, P);
  for (int i = 0; i < 4; i++) r->l[i] = (s[i] & keep_s) | (t[i] & ~keep_s);
}

/*
 * Product scanning ("FIPS" Montgomery, column by column): the 512-bit sum of products and the
 * Montgomery reduction are accumulated together, one 64-bit column at a time, in a 192-bit
 * accumulator (w0, w1, w2). No carry is ever propagated beyond it, and the loops have constant
 * bounds, so after inlining everything is straight-line code.
 */
typedef struct {
  uint64_t w0, w1, w2; /* column sum = w0 + w1·2^64 + w2·2^128 */
} acc3;

/* acc += x·y (the compiler turns the comparisons into carry instructions) */
static inline __attribute__((always_inline)) void mac(acc3 *a, uint64_t x, uint64_t y) {
  u128 p = (u128)x * y;
  u128 s = ((u128)a->w1 << 64 | a->w0) + p;
  a->w2 += s < p;
  a->w0 = (uint64_t)s;
  a->w1 = (uint64_t)(s >> 64);
}

/* acc += 2·x·y (one product added twice: the symmetric terms of a square) */
static inline __attribute__((always_inline)) void mac2(acc3 *a, uint64_t x, uint64_t y) {
  u128 p = (u128)x * y;
  u128 s = ((u128)a->w1 << 64 | a->w0) + p;
  a->w2 += s < p;
  s += p;
  a->w2 += s < p;
  a->w0 = (uint64_t)s;
  a->w1 = (uint64_t)(s >> 64);
}

/* acc += x */
static inline __attribute__((always_inline)) void acc_add(acc3 *a, uint64_t x) {
  u128 s = ((u128)a->w1 << 64 | a->w0) + x;
  a->w2 += s < x;
  a->w0 = (uint64_t)s;
  a->w1 = (uint64_t)(s >> 64);
}

/* Move to the next column: acc /= 2^64; returns the low word that was shifted out. */
static inline __attribute__((always_inline)) uint64_t shift(acc3 *a) {
  uint64_t low = a->w0;
  a->w0 = a->w1;
  a->w1 = a->w2;
  a->w2 = 0;
  return low;
}

/*
 * Reduction part of column c (called after the column's products are in the accumulator):
 * adds m_j·p_(c-j) for the earlier quotient digits; for c < 4 picks m_c = acc·n0 mod 2^64 and adds
 * m_c·p_0, which clears the low word; for c >= 4 the shifted-out word is result limb c - 4.
 */
static inline __attribute__((always_inline)) void reduce_column(acc3 *a, int c, uint64_t m[4], uint64_t v[4]) {
#pragma GCC unroll 4
  for (int j = 0; j < 4; j++)
    if (j < c && c - j < 4) mac(a, m[j], P[c - j]);
  if (c < 4) {
    m[c] = a->w0 * N0;
    mac(a, m[c], P[0]);
    (void)shift(a);
  } else {
    v[c - 4] = shift(a);
  }
}

/*
 * Dot product r = (pre + Σ a_k·b_k)·2^-256 mod p over n ≤ 12 canonical pairs with one reduction;
 * `pre` (8 limbs, or NULL for 0) is added first (the window update uses it to add an element
 * times 2^256). The callers keep pre + Σ a_k·b_k < 12p^2 + p·2^256, so before the
 * final subtractions r < 12p^2/2^256 + p + p < 3p (p < 2^253): it fits 256 bits and two
 * conditional subtractions make it canonical. A column sum has at most 53 terms plus the carry-in
 * (< 2^135): the accumulator cannot overflow.
 */
static inline __attribute__((always_inline)) void dot(p8_fe *r, const p8_fe *a, const p8_fe *b, int n,
                                                      const uint64_t *pre) {
  acc3 acc = {0, 0, 0};
  uint64_t m[4], v[4];
#pragma GCC unroll 8
  for (int c = 0; c < 8; c++) {
    if (pre != NULL) acc_add(&acc, pre[c]);
#pragma GCC unroll 12
    for (int k = 0; k < n; k++)
#pragma GCC unroll 4
      for (int i = 0; i < 4; i++)
        if (c - i >= 0 && c - i < 4) mac(&acc, a[k].l[i], b[k].l[c - i]);
    reduce_column(&acc, c, m, v);
  }
  cond_sub_p(v);
  cond_sub_p(v);
  memcpy(r->l, v, sizeof v);
}

/*
 * Montgomery product r = a·b·2^-256 mod p, canonical for a, b < 2p: before the subtraction
 * r < 4p^2/2^256 + p < 1.5p (p < 2^253), so one subtraction suffices.
 */
static inline __attribute__((always_inline)) void mont_mul(p8_fe *r, const p8_fe *a, const p8_fe *b) {
  acc3 acc = {0, 0, 0};
  uint64_t m[4], v[4];
#pragma GCC unroll 8
  for (int c = 0; c < 8; c++) {
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++)
      if (c - i >= 0 && c - i < 4) mac(&acc, a->l[i], b->l[c - i]);
    reduce_column(&acc, c, m, v);
  }
  cond_sub_p(v);
  memcpy(r->l, v, sizeof v);
}

/*
 * Montgomery square r = a^2·2^-256 mod p: in column c each product a_i·a_j with i < j is computed
 * once and added twice, the diagonal a_i^2 once (10 products instead of 16), same reduction.
 * Lazy: no final subtraction. For a < 2p the result is < 4p^2/2^256 + p < 1.5p (p < 2^253),
 * so squarings can be chained on values in [0, 2p) and only the last product is made canonical.
 */
static inline __attribute__((always_inline)) void mont_sqr(p8_fe *r, const p8_fe *a) {
  acc3 acc = {0, 0, 0};
  uint64_t m[4], v[4];
#pragma GCC unroll 8
  for (int c = 0; c < 8; c++) {
#pragma GCC unroll 4
    for (int i = 0; i < 4; i++) {
      int j = c - i;
      if (j > i && j < 4) mac2(&acc, a->l[i], a->l[j]);
      if (j == i) mac(&acc, a->l[i], a->l[i]);
    }
    reduce_column(&acc, c, m, v);
  }
  memcpy(r->l, v, sizeof v);
}

/* x^17 = x^16 · x (four lazy squarings, one product); x < 2p in, canonical out. */
static inline __attribute__((always_inline)) void pow17(p8_fe *x, const p8_consts *k) {
  (void)k;
  p8_fe y;
  mont_sqr(&y, x);
  mont_sqr(&y, &y);
  mont_sqr(&y, &y);
  mont_sqr(&y, &y);
  mont_mul(x, &y, x);
}

/* Full round: add the round constants, S-box on every element, dense MDS. */
static void full_round(p8_fe s[P8_WIDTH], const p8_fe ark[P8_WIDTH], const p8_consts *k) {
  p8_fe t[P8_WIDTH];
  for (int i = 0; i < P8_WIDTH; i++) {
    add_lazy(&t[i], &s[i], &ark[i]);
    pow17(&t[i], k);
  }
  for (int i = 0; i < P8_WIDTH; i++) dot(&s[i], k->mds[i], t, P8_WIDTH, NULL);
}

/* The permutation on a state in Montgomery form. */
static void permute(p8_fe s[P8_WIDTH], const p8_consts *k) {
  for (int r = 0; r < P8_HALF_FULL; r++) full_round(s, k->full_ark[r], k);

  /*
   * Sparse partial rounds: x0 = S(s0 + c_r); s0' = row_r · (x0, s1..s8); sj' = sj + col_r[j]·x0.
   * The column updates are deferred to the end of each window of P8_WINDOW rounds: within a
   * window s1..s8 keep their values at the window start, so round r's row also takes the
   * terms (row_r[1..8]·col_q)·x0_q of the window's earlier rounds q (precomputed constants in
   * partial_row[r][9..]), and at the window end sj += Σ_q col_q[j]·x0_q is one dot product per
   * element. u = (s0, s1..s8, the window's x0 values in round order).
   */
  p8_fe u[P8_WIDTH + P8_WINDOW];
  memcpy(u, s, P8_WIDTH * sizeof *s);
  for (int w = 0; w < P8_WINDOWS; w++) {
    const int r0 = w * P8_WINDOW;
    /* Not unrolled: the unrolled copies (one per term count) made the code slower (size). */
#pragma GCC unroll 1
    for (int d = 0; d < P8_WINDOW; d++) {
      if (r0 + d >= P8_PARTIAL) break;
      const p8_fe *row = k->partial_row[r0 + d];
      p8_fe x0;
      add_lazy(&x0, &u[0], &k->partial_const[r0 + d]);
      pow17(&x0, k);
      u[0] = x0;
      dot(&u[0], row, u, P8_WIDTH + d, NULL);
      u[P8_WIDTH + d] = x0;
    }
    const int len = P8_PARTIAL - r0 < P8_WINDOW ? P8_PARTIAL - r0 : P8_WINDOW;
    for (int j = 1; j < P8_WIDTH; j++) {
      const uint64_t high[8] = {0, 0, 0, 0, u[j].l[0], u[j].l[1], u[j].l[2], u[j].l[3]}; /* u[j]·2^256 */
      dot(&u[j], k->window_col[w][j - 1], &u[P8_WIDTH], len, high);
    }
  }
  memcpy(s, u, P8_WIDTH * sizeof *s);

  /* The deferred block M̂^31 on elements 1..8 (element 0 is unchanged). */
  p8_fe t[P8_RATE];
  for (int i = 0; i < P8_RATE; i++) dot(&t[i], k->final_block[i], &s[1], P8_RATE, NULL);
  memcpy(&s[1], t, sizeof t);

  for (int r = P8_HALF_FULL; r < 2 * P8_HALF_FULL; r++) full_round(s, k->full_ark[r], k);
}

int p8_kernel_supported(p8_kernel id) {
  switch (id) {
    case P8_KERNEL_PORTABLE:
      return 1;
    case P8_KERNEL_ADX:
#if P8_HAVE_ADX
      return p8_cpu_has_adx();
#else
      return 0;
#endif
  }
  return 0;
}

int p8_select_kernel(p8_consts *k, p8_kernel id) {
  if (!p8_kernel_supported(id)) return -1;
#if P8_HAVE_ADX
  k->permute = id == P8_KERNEL_ADX ? p8_permute_adx : permute;
#else
  k->permute = permute;
#endif
  return 0;
}

static void to_mont(p8_fe *r, const p8_fe *a, const p8_consts *k) { mont_mul(r, a, &k->r2); }

static void from_mont(p8_fe *r, const p8_fe *a) {
  static const p8_fe one = {{1, 0, 0, 0}};
  mont_mul(r, a, &one);
}

int p8_load_consts(p8_consts *k, const uint64_t *words, size_t count) {
  if (count != P8_CONST_WORDS) return -1;
  size_t at = 0;
#define TAKE_FE(dst)                                  \
  do {                                                \
    memcpy((dst)->l, words + at, 4 * sizeof(uint64_t)); \
    at += 4;                                          \
  } while (0)
  TAKE_FE(&k->modulus);
  TAKE_FE(&k->r2);
  k->n0 = words[at++];
  for (int r = 0; r < 2 * P8_HALF_FULL; r++)
    for (int j = 0; j < P8_WIDTH; j++) TAKE_FE(&k->full_ark[r][j]);
  for (int i = 0; i < P8_WIDTH; i++)
    for (int j = 0; j < P8_WIDTH; j++) TAKE_FE(&k->mds[i][j]);
  for (int r = 0; r < P8_PARTIAL; r++) TAKE_FE(&k->partial_const[r]);
  for (int r = 0; r < P8_PARTIAL; r++)
    for (int j = 0; j < P8_ROW_TERMS; j++) TAKE_FE(&k->partial_row[r][j]);
  for (int w = 0; w < P8_WINDOWS; w++)
    for (int j = 0; j < P8_RATE; j++)
      for (int i = 0; i < P8_WINDOW; i++) TAKE_FE(&k->window_col[w][j][i]);
  for (int i = 0; i < P8_RATE; i++)
    for (int j = 0; j < P8_RATE; j++) TAKE_FE(&k->final_block[i][j]);
#undef TAKE_FE
  k->permute = permute;
  /* Checks: the constants are for this kernel's p (and n0 = -p^-1 mod 2^64). */
  for (int i = 0; i < 4; i++)
    if (k->modulus.l[i] != P[i]) return -1;
  if (k->n0 != N0 || N0 * P[0] != UINT64_MAX) return -1;
  const p8_fe *all = &k->full_ark[0][0];
  size_t n = (size_t)(&k->final_block[P8_RATE - 1][P8_RATE - 1] - all) + 1;
  if (!lt_p(&k->r2, k)) return -1;
  for (size_t i = 0; i < n; i++)
    if (!lt_p(&all[i], k)) return -1;
  return 0;
}

/*
 * The duplex sponge (see src/hash/sponge.ts): state [capacity, rate0..rate7] starts at zero with
 * the prefix block [domain, n, 0 × 6] in the rate; each further block of 8 input elements is
 * added into the rate after a permutation; one last permutation squeezes; output = rate0.
 * `next(i, &x)` yields input element i in Montgomery form.
 */
typedef void (*elem_fn)(const void *ctx, size_t i, p8_fe *x, const p8_consts *k);

/* s = the state after the first permutation (of the prefix block), from the memo if it matches. */
static void first_block(const p8_consts *k, p8_memo *memo, const p8_fe *domain, size_t n, p8_fe s[P8_WIDTH]) {
  if (memo != NULL && memo->valid && memo->n == n && memcmp(memo->domain.l, domain->l, sizeof domain->l) == 0) {
    memcpy(s, memo->state, sizeof memo->state);
    return;
  }
  memset(s, 0, P8_WIDTH * sizeof *s);
  p8_fe len = {{(uint64_t)n, 0, 0, 0}}; /* n < 2^64 < p */
  to_mont(&s[1], domain, k);
  to_mont(&s[2], &len, k);
  k->permute(s, k);
  if (memo != NULL) {
    memo->valid = 1;
    memo->domain = *domain;
    memo->n = n;
    memcpy(memo->state, s, sizeof memo->state);
  }
}

static void sponge(const p8_consts *k, p8_memo *memo, const p8_fe *domain, size_t n, elem_fn next,
                   const void *ctx, p8_fe *out) {
  p8_fe s[P8_WIDTH];
  first_block(k, memo, domain, n, s);
  /* With no input the first permutation is also the squeeze. */
  size_t filled = 0;
  for (size_t i = 0; i < n; i++) {
    if (filled == P8_RATE) {
      k->permute(s, k);
      filled = 0;
    }
    p8_fe x;
    next(ctx, i, &x, k);
    add_mod(&s[1 + filled], &s[1 + filled], &x, k);
    filled++;
  }
  if (n > 0) k->permute(s, k);
  from_mont(out, &s[1]);
}

static void elem_from_limbs(const void *ctx, size_t i, p8_fe *x, const p8_consts *k) {
  p8_fe plain;
  memcpy(plain.l, (const uint64_t *)ctx + 4 * i, sizeof plain.l);
  to_mont(x, &plain, k);
}

int p8_hash(const p8_consts *k, p8_memo *memo, const p8_fe *domain, const uint64_t *input, size_t n, p8_fe *out) {
  if (!lt_p(domain, k)) return -1;
  for (size_t i = 0; i < n; i++) {
    p8_fe x;
    memcpy(x.l, input + 4 * i, sizeof x.l);
    if (!lt_p(&x, k)) return -1;
  }
  sponge(k, memo, domain, n, elem_from_limbs, input, out);
  return 0;
}

struct bits_ctx {
  const uint32_t *words;
  size_t nwords;
};

/* 64 bits of the bit string starting at bit `pos` (bits past the end are 0). */
static uint64_t bits64(const struct bits_ctx *b, size_t pos) {
  size_t w = pos >> 5;
  unsigned sh = (unsigned)(pos & 31);
  uint64_t lo = 0, mid = 0, hi = 0;
  if (w < b->nwords) lo = b->words[w];
  if (w + 1 < b->nwords) mid = b->words[w + 1];
  if (w + 2 < b->nwords) hi = b->words[w + 2];
  uint64_t v = (lo | (mid << 32)) >> sh;
  if (sh != 0) v |= hi << (64 - sh);
  return v;
}

/* Element i = bits [252·i, 252·i + 252): three full limbs and a 60-bit top limb (< 2^252 < p). */
static void elem_from_bits(const void *ctx, size_t i, p8_fe *x, const p8_consts *k) {
  const struct bits_ctx *b = ctx;
  size_t base = 252 * i;
  p8_fe plain;
  plain.l[0] = bits64(b, base);
  plain.l[1] = bits64(b, base + 64);
  plain.l[2] = bits64(b, base + 128);
  plain.l[3] = bits64(b, base + 192) & ((UINT64_C(1) << 60) - 1);
  to_mont(x, &plain, k);
}

int p8_hash_bits(const p8_consts *k, p8_memo *memo, const p8_fe *domain, const uint32_t *words, size_t nwords,
                 size_t n, p8_fe *out) {
  if (!lt_p(domain, k)) return -1;
  struct bits_ctx b = {words, nwords};
  sponge(k, memo, domain, n, elem_from_bits, &b, out);
  return 0;
}

int p8_permute_plain(const p8_consts *k, p8_fe state[P8_WIDTH]) {
  for (int i = 0; i < P8_WIDTH; i++)
    if (!lt_p(&state[i], k)) return -1;
  for (int i = 0; i < P8_WIDTH; i++) to_mont(&state[i], &state[i], k);
  k->permute(state, k);
  for (int i = 0; i < P8_WIDTH; i++) from_mont(&state[i], &state[i]);
  return 0;
}
