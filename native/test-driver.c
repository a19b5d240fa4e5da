/*
 * Sanitizer driver for the Poseidon8 kernel (scripts/sanitize-native.sh): reads the constants and
 * test cases written by scripts/native-test-input.ts from stdin (hex 64-bit words), hashes each
 * case with poseidon8.c and compares with the expected output. Exit status 1 on any mismatch.
 * Case: kind (0 = elements, 1 = struct bit string), domain (4 limbs), then
 *   kind 0: n, 4·n limbs;   kind 1: word count w, w 32-bit words, element count n;
 * then the expected output (4 limbs). Each case is hashed without and with a first-permutation
 * memo shared by all cases (so both its hits and its misses are checked).
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>

#include "poseidon8.h"

static uint64_t word(void) {
  unsigned long long v;
  if (scanf("%llx", &v) != 1) {
    fprintf(stderr, "test-driver: truncated input\n");
    exit(2);
  }
  return (uint64_t)v;
}

static void fe(p8_fe *x) {
  for (int i = 0; i < 4; i++) x->l[i] = word();
}

int main(void) {
  size_t nconst = (size_t)word();
  uint64_t *cw = malloc(nconst * sizeof *cw + 1);
  if (cw == NULL) return 2;
  for (size_t i = 0; i < nconst; i++) cw[i] = word();
  p8_consts *k = malloc(sizeof *k);
  if (k == NULL || p8_load_consts(k, cw, nconst) != 0) {
    fprintf(stderr, "test-driver: constants rejected\n");
    return 2;
  }
  free(cw);

  size_t ncases = (size_t)word(), failed = 0;
  p8_memo memo = {0};
  for (size_t c = 0; c < ncases; c++) {
    uint64_t kind = word();
    p8_fe domain, got, got_memo, want;
    fe(&domain);
    int rc;
    if (kind == 0) {
      size_t n = (size_t)word();
      uint64_t *limbs = malloc(4 * n * sizeof *limbs + 1);
      if (limbs == NULL) return 2;
      for (size_t i = 0; i < 4 * n; i++) limbs[i] = word();
      rc = p8_hash(k, NULL, &domain, limbs, n, &got) | p8_hash(k, &memo, &domain, limbs, n, &got_memo);
      free(limbs);
    } else {
      size_t nwords = (size_t)word();
      uint32_t *words = malloc(nwords * sizeof *words + 1);
      if (words == NULL) return 2;
      for (size_t i = 0; i < nwords; i++) words[i] = (uint32_t)word();
      size_t n = (size_t)word();
      rc = p8_hash_bits(k, NULL, &domain, words, nwords, n, &got) |
           p8_hash_bits(k, &memo, &domain, words, nwords, n, &got_memo);
      free(words);
    }
    fe(&want);
    int ok = rc == 0;
    for (int i = 0; ok && i < 4; i++) ok = got.l[i] == want.l[i] && got_memo.l[i] == want.l[i];
    if (!ok) {
      fprintf(stderr, "case %zu (kind %llu): mismatch\n", c, (unsigned long long)kind);
      failed++;
    }
  }
  /* The rejection path: a non-canonical input (p itself) must be refused. */
  p8_fe zero = {{0, 0, 0, 0}}, out;
  if (p8_hash(k, &memo, &zero, k->modulus.l, 1, &out) != -1) {
    fprintf(stderr, "non-canonical input accepted\n");
    failed++;
  }
  free(k);
  printf("test-driver: %zu cases, %zu failed\n", ncases, failed);
  return failed == 0 ? 0 : 1;
}
