/*
 * The x86-64 instruction sequences of the ADX kernel (poseidon8-adx.c), as inline-assembly
 * strings: MULX (BMI2) products with two independent carry chains, ADCX (carry flag) for the low
 * words and ADOX (overflow flag) for the high words, so that consecutive products need not wait
 * for each other's additions. Operands are named in the asm statements of poseidon8-adx.c.
 *
 *   P8_ASM_MUL4X4   t[0..7] = a·b (512-bit product of two 4-limb values; row i = a_i·b)
 *   P8_ASM_SQR4     t[0..7] = a² (the 6 cross products once, doubled, plus the 4 squares)
 *   P8_ASM_REDUCE9  word-by-word Montgomery reduction of t[0..8] (< 2^511): for i = 0..3,
 *                   m = t_i·n0 mod 2^64 and t += m·p·2^(64i) (t_i becomes 0, the carries run to
 *                   t_8); the result (t + m·p)/2^256 < 2^255 is t[4..7] (t_8 ends at 0).
 * Each row starts with `xor lo, lo` (clears CF and OF); `movl $0, reg` keeps the flags, so a
 * freed register serves as the zero that adds a pending carry.
 * SPDX-License-Identifier: MIT
 */
#ifndef POSEIDON8_ADX_ASM_H
#define POSEIDON8_ADX_ASM_H

#define P8_ASM_MUL4X4 \
  "movq 0(%[a]), %%rdx\n\t" \
  "xorl %k[lo], %k[lo]\n\t" \
  "mulxq 0(%[b]), %[t0], %[t1]\n\t" \
  "mulxq 8(%[b]), %[lo], %[t2]\n\t" \
  "adcxq %[lo], %[t1]\n\t" \
  "mulxq 16(%[b]), %[lo], %[t3]\n\t" \
  "adcxq %[lo], %[t2]\n\t" \
  "mulxq 24(%[b]), %[lo], %[t4]\n\t" \
  "adcxq %[lo], %[t3]\n\t" \
  "movl $0, %k[lo]\n\t" \
  "adcxq %[lo], %[t4]\n\t" \
  "movq 8(%[a]), %%rdx\n\t" \
  "xorl %k[lo], %k[lo]\n\t" \
  "mulxq 0(%[b]), %[lo], %[hi]\n\t" \
  "adcxq %[lo], %[t1]\n\t" \
  "adoxq %[hi], %[t2]\n\t" \
  "mulxq 8(%[b]), %[lo], %[hi]\n\t" \
  "adcxq %[lo], %[t2]\n\t" \
  "adoxq %[hi], %[t3]\n\t" \
  "mulxq 16(%[b]), %[lo], %[hi]\n\t" \
  "adcxq %[lo], %[t3]\n\t" \
  "adoxq %[hi], %[t4]\n\t" \
  "mulxq 24(%[b]), %[lo], %[t5]\n\t" \
  "adcxq %[lo], %[t4]\n\t" \
  "movl $0, %k[lo]\n\t" \
  "adoxq %[lo], %[t5]\n\t" \
  "adcxq %[lo], %[t5]\n\t" \
  "movq 16(%[a]), %%rdx\n\t" \
  "xorl %k[lo], %k[lo]\n\t" \
  "mulxq 0(%[b]), %[lo], %[hi]\n\t" \
  "adcxq %[lo], %[t2]\n\t" \
  "adoxq %[hi], %[t3]\n\t" \
  "mulxq 8(%[b]), %[lo], %[hi]\n\t" \
  "adcxq %[lo], %[t3]\n\t" \
  "adoxq %[hi], %[t4]\n\t" \
  "mulxq 16(%[b]), %[lo], %[hi]\n\t" \
  "adcxq %[lo], %[t4]\n\t" \
  "adoxq %[hi], %[t5]\n\t" \
  "mulxq 24(%[b]), %[lo], %[t6]\n\t" \
  "adcxq %[lo], %[t5]\n\t" \
  "movl $0, %k[lo]\n\t" \
  "adoxq %[lo], %[t6]\n\t" \
  "adcxq %[lo], %[t6]\n\t" \
  "movq 24(%[a]), %%rdx\n\t" \
  "xorl %k[lo], %k[lo]\n\t" \
  "mulxq 0(%[b]), %[lo], %[hi]\n\t" \
  "adcxq %[lo], %[t3]\n\t" \
  "adoxq %[hi], %[t4]\n\t" \
  "mulxq 8(%[b]), %[lo], %[hi]\n\t" \
  "adcxq %[lo], %[t4]\n\t" \
  "adoxq %[hi], %[t5]\n\t" \
  "mulxq 16(%[b]), %[lo], %[hi]\n\t" \
  "adcxq %[lo], %[t5]\n\t" \
  "adoxq %[hi], %[t6]\n\t" \
  "mulxq 24(%[b]), %[lo], %[t7]\n\t" \
  "adcxq %[lo], %[t6]\n\t" \
  "movl $0, %k[lo]\n\t" \
  "adoxq %[lo], %[t7]\n\t" \
  "adcxq %[lo], %[t7]\n\t" \
  ""
#define P8_ASM_REDUCE9 \
  "movq %[t0], %%rdx\n\t" \
  "imulq %[n0], %%rdx\n\t" \
  "xorl %k[lo], %k[lo]\n\t" \
  "mulxq %[p0], %[lo], %[hi]\n\t" \
  "adcxq %[lo], %[t0]\n\t" \
  "adoxq %[hi], %[t1]\n\t" \
  "mulxq %[p1], %[lo], %[hi]\n\t" \
  "adcxq %[lo], %[t1]\n\t" \
  "adoxq %[hi], %[t2]\n\t" \
  "mulxq %[p2], %[lo], %[hi]\n\t" \
  "adcxq %[lo], %[t2]\n\t" \
  "adoxq %[hi], %[t3]\n\t" \
  "mulxq %[p3], %[lo], %[hi]\n\t" \
  "adcxq %[lo], %[t3]\n\t" \
  "adoxq %[hi], %[t4]\n\t" \
  "movl $0, %k[hi]\n\t" \
  "adcxq %[hi], %[t4]\n\t" \
  "adoxq %[hi], %[t5]\n\t" \
  "adcxq %[hi], %[t5]\n\t" \
  "adoxq %[hi], %[t6]\n\t" \
  "adcxq %[hi], %[t6]\n\t" \
  "adoxq %[hi], %[t7]\n\t" \
  "adcxq %[hi], %[t7]\n\t" \
  "adoxq %[hi], %[t8]\n\t" \
  "adcxq %[hi], %[t8]\n\t" \
  "movq %[t1], %%rdx\n\t" \
  "imulq %[n0], %%rdx\n\t" \
  "xorl %k[lo], %k[lo]\n\t" \
  "mulxq %[p0], %[lo], %[hi]\n\t" \
  "adcxq %[lo], %[t1]\n\t" \
  "adoxq %[hi], %[t2]\n\t" \
  "mulxq %[p1], %[lo], %[hi]\n\t" \
  "adcxq %[lo], %[t2]\n\t" \
  "adoxq %[hi], %[t3]\n\t" \
  "mulxq %[p2], %[lo], %[hi]\n\t" \
  "adcxq %[lo], %[t3]\n\t" \
  "adoxq %[hi], %[t4]\n\t" \
  "mulxq %[p3], %[lo], %[hi]\n\t" \
  "adcxq %[lo], %[t4]\n\t" \
  "adoxq %[hi], %[t5]\n\t" \
  "movl $0, %k[hi]\n\t" \
  "adcxq %[hi], %[t5]\n\t" \
  "adoxq %[hi], %[t6]\n\t" \
  "adcxq %[hi], %[t6]\n\t" \
  "adoxq %[hi], %[t7]\n\t" \
  "adcxq %[hi], %[t7]\n\t" \
  "adoxq %[hi], %[t8]\n\t" \
  "adcxq %[hi], %[t8]\n\t" \
  "movq %[t2], %%rdx\n\t" \
  "imulq %[n0], %%rdx\n\t" \
  "xorl %k[lo], %k[lo]\n\t" \
  "mulxq %[p0], %[lo], %[hi]\n\t" \
  "adcxq %[lo], %[t2]\n\t" \
  "adoxq %[hi], %[t3]\n\t" \
  "mulxq %[p1], %[lo], %[hi]\n\t" \
  "adcxq %[lo], %[t3]\n\t" \
  "adoxq %[hi], %[t4]\n\t" \
  "mulxq %[p2], %[lo], %[hi]\n\t" \
  "adcxq %[lo], %[t4]\n\t" \
  "adoxq %[hi], %[t5]\n\t" \
  "mulxq %[p3], %[lo], %[hi]\n\t" \
  "adcxq %[lo], %[t5]\n\t" \
  "adoxq %[hi], %[t6]\n\t" \
  "movl $0, %k[hi]\n\t" \
  "adcxq %[hi], %[t6]\n\t" \
  "adoxq %[hi], %[t7]\n\t" \
  "adcxq %[hi], %[t7]\n\t" \
  "adoxq %[hi], %[t8]\n\t" \
  "adcxq %[hi], %[t8]\n\t" \
  "movq %[t3], %%rdx\n\t" \
  "imulq %[n0], %%rdx\n\t" \
  "xorl %k[lo], %k[lo]\n\t" \
  "mulxq %[p0], %[lo], %[hi]\n\t" \
  "adcxq %[lo], %[t3]\n\t" \
  "adoxq %[hi], %[t4]\n\t" \
  "mulxq %[p1], %[lo], %[hi]\n\t" \
  "adcxq %[lo], %[t4]\n\t" \
  "adoxq %[hi], %[t5]\n\t" \
  "mulxq %[p2], %[lo], %[hi]\n\t" \
  "adcxq %[lo], %[t5]\n\t" \
  "adoxq %[hi], %[t6]\n\t" \
  "mulxq %[p3], %[lo], %[hi]\n\t" \
  "adcxq %[lo], %[t6]\n\t" \
  "adoxq %[hi], %[t7]\n\t" \
  "movl $0, %k[hi]\n\t" \
  "adcxq %[hi], %[t7]\n\t" \
  "adoxq %[hi], %[t8]\n\t" \
  "adcxq %[hi], %[t8]\n\t" \
  ""
#define P8_ASM_SQR4 \
  "xorl %k[lo], %k[lo]\n\t" \
  "movq 0(%[a]), %%rdx\n\t" \
  "mulxq 8(%[a]), %[t1], %[t2]\n\t" \
  "mulxq 16(%[a]), %[lo], %[t3]\n\t" \
  "adcxq %[lo], %[t2]\n\t" \
  "mulxq 24(%[a]), %[lo], %[t4]\n\t" \
  "adcxq %[lo], %[t3]\n\t" \
  "movl $0, %k[lo]\n\t" \
  "adcxq %[lo], %[t4]\n\t" \
  "movq 8(%[a]), %%rdx\n\t" \
  "xorl %k[lo], %k[lo]\n\t" \
  "mulxq 16(%[a]), %[lo], %[hi]\n\t" \
  "adcxq %[lo], %[t3]\n\t" \
  "adoxq %[hi], %[t4]\n\t" \
  "mulxq 24(%[a]), %[lo], %[t5]\n\t" \
  "adcxq %[lo], %[t4]\n\t" \
  "movl $0, %k[lo]\n\t" \
  "adoxq %[lo], %[t5]\n\t" \
  "adcxq %[lo], %[t5]\n\t" \
  "movq 16(%[a]), %%rdx\n\t" \
  "xorl %k[lo], %k[lo]\n\t" \
  "mulxq 24(%[a]), %[lo], %[t6]\n\t" \
  "adcxq %[lo], %[t5]\n\t" \
  "movl $0, %k[lo]\n\t" \
  "adcxq %[lo], %[t6]\n\t" \
  "xorl %k[t7], %k[t7]\n\t" \
  "addq %[t1], %[t1]\n\t" \
  "adcq %[t2], %[t2]\n\t" \
  "adcq %[t3], %[t3]\n\t" \
  "adcq %[t4], %[t4]\n\t" \
  "adcq %[t5], %[t5]\n\t" \
  "adcq %[t6], %[t6]\n\t" \
  "adcq %[t7], %[t7]\n\t" \
  "movq 0(%[a]), %%rdx\n\t" \
  "mulxq %%rdx, %[t0], %[hi]\n\t" \
  "addq %[hi], %[t1]\n\t" \
  "movq 8(%[a]), %%rdx\n\t" \
  "mulxq %%rdx, %[lo], %[hi]\n\t" \
  "adcq %[lo], %[t2]\n\t" \
  "adcq %[hi], %[t3]\n\t" \
  "movq 16(%[a]), %%rdx\n\t" \
  "mulxq %%rdx, %[lo], %[hi]\n\t" \
  "adcq %[lo], %[t4]\n\t" \
  "adcq %[hi], %[t5]\n\t" \
  "movq 24(%[a]), %%rdx\n\t" \
  "mulxq %%rdx, %[lo], %[hi]\n\t" \
  "adcq %[lo], %[t6]\n\t" \
  "adcq %[hi], %[t7]\n\t" \
  ""

#endif
