/*
 * Field helpers shared by the Poseidon8 kernels (poseidon8.c, poseidon8-adx.c): the modulus as
 * compile-time constants, 4-limb subtraction, the lazy addition and the conditional subtraction.
 * Internal header (static inline functions only).
 * SPDX-License-Identifier: MIT
 */
#ifndef POSEIDON8_FIELD_H
#define POSEIDON8_FIELD_H

#include <stdint.h>
#include <string.h>

#include "poseidon8.h"

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

/* r = a + b without reduction (a, b < p: r < 2p < 2^254); only used as an S-box input. */
static inline __attribute__((always_inline)) void add_lazy(p8_fe *r, const p8_fe *a, const p8_fe *b) {
  uint64_t s[4], carry = 0;
  for (int i = 0; i < 4; i++) {
    uint64_t x;
    uint64_t c1 = __builtin_add_overflow(a->l[i], b->l[i], &x);
    uint64_t c2 = __builtin_add_overflow(x, carry, &s[i]);
    carry = c1 | c2;
  }
  memcpy(r->l, s, sizeof s);
}

/* v = v - p if that does not borrow, else v (branch-free: the borrow is data-dependent). */
static inline __attribute__((always_inline)) void cond_sub_p(uint64_t v[4]) {
  uint64_t d[4];
  uint64_t keep_v = 0 - sub4(d, v, P);
  for (int i = 0; i < 4; i++) v[i] = (v[i] & keep_v) | (d[i] & ~keep_v);
}

#endif
