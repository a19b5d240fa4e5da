/*
 * Poseidon8 over the BLS12-377 scalar field, 4x64-bit Montgomery arithmetic (R = 2^256).
 * Pure C (no Node dependency): used by the N-API addon (addon.c) and the sanitizer driver.
 * SPDX-License-Identifier: MIT
 */
#ifndef POSEIDON8_H
#define POSEIDON8_H

#include <stddef.h>
#include <stdint.h>

#define P8_WIDTH 9
#define P8_RATE 8
#define P8_HALF_FULL 4
#define P8_PARTIAL 31
/* Partial rounds are applied in windows of P8_WINDOW rounds (see poseidon8.c, permute). */
#define P8_WINDOW 4
#define P8_WINDOWS ((P8_PARTIAL + P8_WINDOW - 1) / P8_WINDOW)
#define P8_ROW_TERMS (P8_WIDTH + P8_WINDOW - 1)

/* A field element: 4 little-endian 64-bit limbs. */
typedef struct { uint64_t l[4]; } p8_fe;

/*
 * The constants, all taken from the generated parameters (src/generated/poseidonParams.ts via
 * src/hash/sparseParams.ts) and laid out by src/hash/native-constants.ts; everything except
 * modulus, n0 and r2 is in Montgomery form.
 */
typedef struct p8_consts_s {
  p8_fe modulus;                              /* p */
  p8_fe r2;                                   /* R^2 mod p (plain integer) */
  uint64_t n0;                                /* -p^-1 mod 2^64 */
  p8_fe full_ark[2 * P8_HALF_FULL][P8_WIDTH]; /* full-round constants (row 4 carries the partial ones) */
  p8_fe mds[P8_WIDTH][P8_WIDTH];              /* dense MDS of the full rounds */
  p8_fe partial_const[P8_PARTIAL];            /* scalar constant on element 0 per partial round */
  p8_fe partial_row[P8_PARTIAL][P8_ROW_TERMS]; /* first row of each sparse factor, then the
                                                 window terms row_r[1..8]·col_q for the window's
                                                 earlier rounds q (0 where unused) */
  p8_fe window_col[P8_WINDOWS][P8_RATE][P8_WINDOW]; /* per window and element j = 1..8: col_q[j] of
                                                       the window's rounds q (0 where unused) */
  p8_fe final_block[P8_RATE][P8_RATE];        /* deferred 8x8 block after the partial rounds */
  /* The permutation kernel (not part of the constant words): set to the portable one by
     p8_load_consts, changed by p8_select_kernel. */
  void (*permute)(p8_fe s[P8_WIDTH], const struct p8_consts_s *k);
} p8_consts;

/*
 * The sponge's first permutation acts on [0, domain, n, 0 × 6] only, so its result depends on
 * (domain, n) alone: a memo keeps the last one (every struct hash of one size shares it).
 * Owned by the caller, zero-initialised, used by one thread at a time.
 */
typedef struct {
  int valid;
  p8_fe domain; /* plain */
  size_t n;
  p8_fe state[P8_WIDTH]; /* Montgomery form, after the first permutation */
} p8_memo;

/* Number of 64-bit words p8_load_consts reads. */
#define P8_CONST_WORDS (4 + 4 + 1 + 4 * (2 * P8_HALF_FULL * P8_WIDTH + P8_WIDTH * P8_WIDTH + P8_PARTIAL + P8_PARTIAL * P8_ROW_TERMS + P8_WINDOWS * P8_RATE * P8_WINDOW + P8_RATE * P8_RATE))

/*
 * Fills `k` from `words` (P8_CONST_WORDS words in field order of p8_consts: modulus, r2, n0, …).
 * Returns 0 on success, -1 if the constants are inconsistent (n0·p ≠ −1, a value ≥ p).
 */
int p8_load_consts(p8_consts *k, const uint64_t *words, size_t count);

/*
 * Poseidon8 sponge hash of `n` canonical elements under `domain` (both plain integers < p;
 * `input` holds 4 limbs per element); writes the canonical output element. `memo`: NULL or the
 * caller's p8_memo.
 * Returns -1 (and writes nothing) if a value is ≥ p.
 */
int p8_hash(const p8_consts *k, p8_memo *memo, const p8_fe *domain, const uint64_t *input, size_t n, p8_fe *out);

/*
 * Same hash over the elements cut from a bit string: element i is bits [252·i, 252·i + 252) of
 * the little-endian 32-bit words `words` (`nwords` of them; bits past the end read as 0).
 * Returns -1 (and writes nothing) if the domain is ≥ p.
 */
int p8_hash_bits(const p8_consts *k, p8_memo *memo, const p8_fe *domain, const uint32_t *words, size_t nwords,
                 size_t n, p8_fe *out);

/*
 * The permutation kernels, chosen at run time:
 *   P8_KERNEL_PORTABLE  plain C (poseidon8.c), every platform;
 *   P8_KERNEL_ADX       MULX/ADCX/ADOX (poseidon8-adx.c): x86-64 GCC/Clang builds, on CPUs with
 *                       BMI2 and ADX (CPUID leaf 7).
 * All give the same results. p8_kernel_supported: compiled in and runnable on this CPU.
 * p8_select_kernel: makes `k` use kernel `id`; -1 (k unchanged) if it is not supported.
 */
typedef enum { P8_KERNEL_PORTABLE = 0, P8_KERNEL_ADX = 1 } p8_kernel;
int p8_kernel_supported(p8_kernel id);
int p8_select_kernel(p8_consts *k, p8_kernel id);

/* P8_NO_ADX: build without it (scripts/build-native.mjs retries so if the first build fails). */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(P8_NO_ADX)
#define P8_HAVE_ADX 1
/* poseidon8-adx.c: the CPU check and the permutation on a state in Montgomery form. */
int p8_cpu_has_adx(void);
void p8_permute_adx(p8_fe s[P8_WIDTH], const p8_consts *k);
#else
#define P8_HAVE_ADX 0
#endif

/* In-place permutation of 9 canonical elements (plain form; for tests); -1 if one is ≥ p. */
int p8_permute_plain(const p8_consts *k, p8_fe state[P8_WIDTH]);

#endif
