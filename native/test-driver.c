/*
 * Sanitizer driver for the Poseidon8 kernel (scripts/sanitize-native.sh): reads the constants and
 * test cases written by scripts/native-test-input.ts from stdin (hex 64-bit words), hashes each
 * case with poseidon8.c and compares with the expected output. Exit status 1 on any mismatch.
 * Case: kind (0 = elements, 1 = struct bit string), domain (4 limbs), then
 *   kind 0: n, 4·n limbs;   kind 1: word count w, w 32-bit words, element count n;
 * then the expected output (4 limbs). Each case is hashed without and with a first-permutation
 * memo shared by all cases (so both its hits and its misses are checked), on every permutation
 * kernel this CPU supports (poseidon8.h, p8_select_kernel); the kernels not supported are named.
 * Argument `portable`: the portable kernel only (a CPU without the ADX kernel's features).
 * SPDX-License-Identifier: MIT
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

static const char *const KERNEL_NAMES[] = {"portable", "adx"};

int main(int argc, char **argv) {
  const int portable_only = argc > 1 && strcmp(argv[1], "portable") == 0;
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

  /* The kernels to check: every supported one (the portable one only with `portable`). */
  p8_kernel kernels[2];
  int nkernels = 0;
  for (int id = P8_KERNEL_PORTABLE; id <= P8_KERNEL_ADX; id++) {
    if ((portable_only && id != P8_KERNEL_PORTABLE) || !p8_kernel_supported((p8_kernel)id)) {
      printf("test-driver: kernel %s not checked (%s)\n", KERNEL_NAMES[id], portable_only ? "portable only" : "not supported here");
      continue;
    }
    kernels[nkernels++] = (p8_kernel)id;
  }

  size_t ncases = (size_t)word(), failed = 0;
  p8_memo memo[2] = {{0}, {0}};
  for (size_t c = 0; c < ncases; c++) {
    uint64_t kind = word();
    p8_fe domain, want;
    fe(&domain);
    uint64_t *limbs = NULL;
    uint32_t *words = NULL;
    size_t n = 0, nwords = 0;
    if (kind == 0) {
      n = (size_t)word();
      limbs = malloc(4 * n * sizeof *limbs + 1);
      if (limbs == NULL) return 2;
      for (size_t i = 0; i < 4 * n; i++) limbs[i] = word();
    } else {
      nwords = (size_t)word();
      words = malloc(nwords * sizeof *words + 1);
      if (words == NULL) return 2;
      for (size_t i = 0; i < nwords; i++) words[i] = (uint32_t)word();
      n = (size_t)word();
    }
    fe(&want);
    for (int j = 0; j < nkernels; j++) {
      p8_fe got, got_memo;
      if (p8_select_kernel(k, kernels[j]) != 0) return 2;
      int rc = kind == 0 ? p8_hash(k, NULL, &domain, limbs, n, &got) | p8_hash(k, &memo[j], &domain, limbs, n, &got_memo)
                         : p8_hash_bits(k, NULL, &domain, words, nwords, n, &got) |
                               p8_hash_bits(k, &memo[j], &domain, words, nwords, n, &got_memo);
      int ok = rc == 0;
      for (int i = 0; ok && i < 4; i++) ok = got.l[i] == want.l[i] && got_memo.l[i] == want.l[i];
      if (!ok) {
        fprintf(stderr, "case %zu (kind %llu), kernel %s: mismatch\n", c, (unsigned long long)kind, KERNEL_NAMES[kernels[j]]);
        failed++;
      }
    }
    free(limbs);
    free(words);
  }
  /* The rejection path: a non-canonical input (p itself) must be refused. */
  p8_fe zero = {{0, 0, 0, 0}}, out;
  if (p8_hash(k, &memo[0], &zero, k->modulus.l, 1, &out) != -1) {
    fprintf(stderr, "non-canonical input accepted\n");
    failed++;
  }
  free(k);
  printf("test-driver: %zu cases on %d kernel(s), %zu failed\n", ncases, nkernels, failed);
  return failed == 0 ? 0 : 1;
}
