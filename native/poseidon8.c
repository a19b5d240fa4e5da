/*
 * Poseidon8 permutation and sponge, 4x64-bit Montgomery arithmetic (see poseidon8.h).
 * Same round structure as src/hash/poseidon8-fast.ts and the WASM kernel:
 *   4 full rounds (add constants, x^17 on all 9 elements, dense MDS),
 *   31 sparse partial rounds (scalar constant + x^17 on element 0, sparse factor: one row of 9
 *   products into element 0 and one column of 8 products into elements 1..8),
 *   the deferred 8x8 block on elements 1..8,
 *   4 full rounds.
 * SPDX-License-Identifier: MIT
 */
#include "poseidon8.h"

#include <string.h>

typedef unsigned __int128 u128;

/*
 * The field is fixed (BLS12-377 scalar field), so p and n0 = -p^-1 mod 2^64 are compile-time
 * constants here (immediate operands); p8_load_consts refuses constants generated for another p.
 */
static const uint64_t P[4] = {UINT64_C(0x0a11800000000001), UINT64_C(0x59aa76fed0000001),
                              UINT64_C(0x60b44d1e5c37b001), UINT64_C(0x12ab655e9a2ca556)};
static const uint64_t N0 = UINT64_C(0x0a117fffffffffff);

/* r = a - b over 4 limbs; returns the borrow (0 or 1). */
static inline __attribute__((always_inline)) uint64_t sub4(uint64_t r[4], const uint64_t a[4], const uint64_t b[4]) {
  uint64_t borrow = 0;
  for (int i = 0; i < 4; i++) {
    uint64_t d;
    uint64_t b1 = __builtin_sub_overflow(a[i], b[i], &d);
    uint64_t b2 = __builtin_sub_overflow(d, borrow, &r[i]);
    borrow = b1 | b2;
  }
  return borrow;
}

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
 * Montgomery product r = a·b·2^-256 mod p, CIOS with the "no carry" shortcut (valid because the
 * top limb of p is below 2^62): per limb b_i, t += a·b_i, m = t_0·n0, t = (t + m·p) / 2^64, with
 * both carry chains kept in registers and no fifth limb. Inputs < p, t < 2p, then one
 * conditional subtraction.
 */
static inline __attribute__((always_inline)) void mont_mul(p8_fe *r, const p8_fe *a, const p8_fe *b, const p8_consts *k) {
  (void)k;
  uint64_t t[4] = {0, 0, 0, 0};
  for (int i = 0; i < 4; i++) {
    u128 s = (u128)a->l[0] * b->l[i] + t[0];
    uint64_t ca = (uint64_t)(s >> 64);
    uint64_t t0 = (uint64_t)s;
    uint64_t m = t0 * N0;
    s = (u128)m * P[0] + t0;
    uint64_t cm = (uint64_t)(s >> 64);
    for (int j = 1; j < 4; j++) {
      s = (u128)a->l[j] * b->l[i] + t[j] + ca;
      ca = (uint64_t)(s >> 64);
      s = (u128)m * P[j] + (uint64_t)s + cm;
      cm = (uint64_t)(s >> 64);
      t[j - 1] = (uint64_t)s;
    }
    t[3] = ca + cm;
  }
  uint64_t d[4];
  uint64_t keep_t = 0 - sub4(d, t, P);
  for (int i = 0; i < 4; i++) r->l[i] = (t[i] & keep_t) | (d[i] & ~keep_t);
}

/* acc[i..8] += x·y (y: 4 limbs), carrying into the higher limbs; the caller keeps acc < 2^576. */
static inline __attribute__((always_inline)) void mac4(uint64_t acc[9], int i, uint64_t x, const uint64_t y[4]) {
  uint64_t carry = 0;
  for (int j = 0; j < 4; j++) {
    u128 s = (u128)x * y[j] + acc[i + j] + carry;
    acc[i + j] = (uint64_t)s;
    carry = (uint64_t)(s >> 64);
  }
  for (int j = i + 4; j < 9 && carry != 0; j++) {
    u128 s = (u128)acc[j] + carry;
    acc[j] = (uint64_t)s;
    carry = (uint64_t)(s >> 64);
  }
}

/*
 * Dot product r = Σ a_i·b_i·2^-256 mod p with one reduction: the n ≤ 9 full 512-bit products
 * are summed (< 9p^2 < 2^510), then Montgomery-reduced once (4 steps of adding m·p·2^(64i) so the
 * low limbs vanish); the result < 9p^2/2^256 + p < 3p needs at most two subtractions of p.
 */
static inline __attribute__((always_inline)) void dot(p8_fe *r, const p8_fe *a, const p8_fe *b, int n) {
  uint64_t acc[9] = {0, 0, 0, 0, 0, 0, 0, 0, 0};
  for (int k = 0; k < n; k++)
    for (int i = 0; i < 4; i++) mac4(acc, i, b[k].l[i], a[k].l);
  for (int i = 0; i < 4; i++) mac4(acc, i, acc[i] * N0, P);
  /* acc[4..8] < 3p < 2^255: acc[8] = 0; subtract p twice, keeping each result that did not borrow */
  uint64_t v[4] = {acc[4], acc[5], acc[6], acc[7]};
  for (int pass = 0; pass < 2; pass++) {
    uint64_t d[4];
    uint64_t keep_v = 0 - sub4(d, v, P);
    for (int i = 0; i < 4; i++) v[i] = (v[i] & keep_v) | (d[i] & ~keep_v);
  }
  memcpy(r->l, v, sizeof v);
}

/* x^17 = x^16 · x (four squarings, one product). */
static inline __attribute__((always_inline)) void pow17(p8_fe *x, const p8_consts *k) {
  p8_fe y;
  mont_mul(&y, x, x, k);
  mont_mul(&y, &y, &y, k);
  mont_mul(&y, &y, &y, k);
  mont_mul(&y, &y, &y, k);
  mont_mul(x, &y, x, k);
}

/* Full round: add the round constants, S-box on every element, dense MDS. */
static void full_round(p8_fe s[P8_WIDTH], const p8_fe ark[P8_WIDTH], const p8_consts *k) {
  p8_fe t[P8_WIDTH];
  for (int i = 0; i < P8_WIDTH; i++) {
    add_mod(&t[i], &s[i], &ark[i], k);
    pow17(&t[i], k);
  }
  for (int i = 0; i < P8_WIDTH; i++) dot(&s[i], k->mds[i], t, P8_WIDTH);
}

/* The permutation on a state in Montgomery form. */
static void permute(p8_fe s[P8_WIDTH], const p8_consts *k) {
  for (int r = 0; r < P8_HALF_FULL; r++) full_round(s, k->full_ark[r], k);

  /* Sparse partial rounds: x0 = S(s0 + c_r); s0' = row_r · (x0, s1..s8); sj' = sj + col_r[j]·x0. */
  for (int r = 0; r < P8_PARTIAL; r++) {
    p8_fe x0, acc, prod;
    add_mod(&x0, &s[0], &k->partial_const[r], k);
    pow17(&x0, k);
    s[0] = x0;
    dot(&acc, k->partial_row[r], s, P8_WIDTH);
    for (int j = 1; j < P8_WIDTH; j++) {
      mont_mul(&prod, &k->partial_col[r][j - 1], &x0, k);
      add_mod(&s[j], &s[j], &prod, k);
    }
    s[0] = acc;
  }

  /* The deferred block M̂^31 on elements 1..8 (element 0 is unchanged). */
  p8_fe t[P8_RATE];
  for (int i = 0; i < P8_RATE; i++) dot(&t[i], k->final_block[i], &s[1], P8_RATE);
  memcpy(&s[1], t, sizeof t);

  for (int r = P8_HALF_FULL; r < 2 * P8_HALF_FULL; r++) full_round(s, k->full_ark[r], k);
}

static void to_mont(p8_fe *r, const p8_fe *a, const p8_consts *k) { mont_mul(r, a, &k->r2, k); }

static void from_mont(p8_fe *r, const p8_fe *a, const p8_consts *k) {
  static const p8_fe one = {{1, 0, 0, 0}};
  mont_mul(r, a, &one, k);
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
    for (int j = 0; j < P8_WIDTH; j++) TAKE_FE(&k->partial_row[r][j]);
  for (int r = 0; r < P8_PARTIAL; r++)
    for (int j = 0; j < P8_RATE; j++) TAKE_FE(&k->partial_col[r][j]);
  for (int i = 0; i < P8_RATE; i++)
    for (int j = 0; j < P8_RATE; j++) TAKE_FE(&k->final_block[i][j]);
#undef TAKE_FE
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

static void sponge(const p8_consts *k, const p8_fe *domain, size_t n, elem_fn next, const void *ctx,
                   p8_fe *out) {
  p8_fe s[P8_WIDTH];
  memset(s, 0, sizeof s);
  p8_fe len = {{(uint64_t)n, 0, 0, 0}}; /* n < 2^64 < p */
  to_mont(&s[1], domain, k);
  to_mont(&s[2], &len, k);
  size_t filled = P8_RATE;
  for (size_t i = 0; i < n; i++) {
    if (filled == P8_RATE) {
      permute(s, k);
      filled = 0;
    }
    p8_fe x;
    next(ctx, i, &x, k);
    add_mod(&s[1 + filled], &s[1 + filled], &x, k);
    filled++;
  }
  permute(s, k);
  from_mont(out, &s[1], k);
}

static void elem_from_limbs(const void *ctx, size_t i, p8_fe *x, const p8_consts *k) {
  p8_fe plain;
  memcpy(plain.l, (const uint64_t *)ctx + 4 * i, sizeof plain.l);
  to_mont(x, &plain, k);
}

int p8_hash(const p8_consts *k, const p8_fe *domain, const uint64_t *input, size_t n, p8_fe *out) {
  if (!lt_p(domain, k)) return -1;
  for (size_t i = 0; i < n; i++) {
    p8_fe x;
    memcpy(x.l, input + 4 * i, sizeof x.l);
    if (!lt_p(&x, k)) return -1;
  }
  sponge(k, domain, n, elem_from_limbs, input, out);
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

int p8_hash_bits(const p8_consts *k, const p8_fe *domain, const uint32_t *words, size_t nwords,
                 size_t n, p8_fe *out) {
  if (!lt_p(domain, k)) return -1;
  struct bits_ctx b = {words, nwords};
  sponge(k, domain, n, elem_from_bits, &b, out);
  return 0;
}

int p8_permute_plain(const p8_consts *k, p8_fe state[P8_WIDTH]) {
  for (int i = 0; i < P8_WIDTH; i++)
    if (!lt_p(&state[i], k)) return -1;
  for (int i = 0; i < P8_WIDTH; i++) to_mont(&state[i], &state[i], k);
  permute(state, k);
  for (int i = 0; i < P8_WIDTH; i++) from_mont(&state[i], &state[i], k);
  return 0;
}
