/*
 * snarkVM's BHP hash (console/algorithms/src/bhp) over precomputed lookup tables, 4x64-bit
 * Montgomery arithmetic over the BLS12-377 scalar field (R = 2^256) on Aleo's twisted Edwards
 * curve (a = -1, d = 3021). Pure C11 (no Node dependency): used by the N-API addon (addon.c).
 *
 * The tables are computed by src/hash/bhp/hasher.ts (buildTables) and handed over once: for each
 * chunk position j, the 8 affine points lookup[8j + c] (c = the 3-bit chunk), each as x, y and
 * 2·d·x·y, canonical, 4 little-endian 64-bit limbs each (12 words a point). One round of a hash is
 * the sum over its 3-bit chunks of the selected points; its output is the affine x-coordinate of
 * the sum. Bit strings are one byte per bit (0 or 1), least significant first, as hasher.ts builds
 * them.
 * SPDX-License-Identifier: MIT
 */
#ifndef BHP_H
#define BHP_H

#include <stddef.h>
#include <stdint.h>

/* Field::size_in_data_bits of the field: the bits of a round's output fed into the next round. */
#define BHP_DATA_BITS 252
/* The domain prefix of the first round (DATA_BITS - 64 bits of input length). */
#define BHP_DOMAIN_BITS 188
/* The largest table accepted (chunk positions, i.e. windows × window size); mainnet's largest,
   BHP1024, has 8 × 54 = 432. */
#define BHP_MAX_CHUNKS 1024

typedef struct bhp_table bhp_table;

/* Error codes of the functions below (0 = success). */
enum {
  BHP_OK = 0,
  BHP_E_TABLE = -1,    /* the table words are not a valid table */
  BHP_E_BIT = -2,      /* a bit byte is neither 0 nor 1 */
  BHP_E_LENGTH = -3,   /* a round's preimage is longer than the hasher's bits */
  BHP_E_IDENTITY = -4, /* a sum's Z is 0 (cannot happen on a complete curve; defensive) */
  BHP_E_MEMORY = -5,
  BHP_E_DEPTH = -6 /* more Merkle leaves than the depth holds */
};

/*
 * A table from `npoints` points (12 words each; npoints a positive multiple of 8, at most
 * 8·BHP_MAX_CHUNKS) and the first round's BHP_DOMAIN_BITS domain bits. Checks that every
 * coordinate is canonical, every point is on the curve and t2d = 2·d·x·y; *err = BHP_E_TABLE (and
 * NULL returned) if not, BHP_E_MEMORY if out of memory. Free with bhp_table_free.
 */
bhp_table *bhp_table_load(const uint64_t *words, size_t npoints, const uint8_t *domain_bits, int *err);
void bhp_table_free(bhp_table *t);
/* windows × window size × 3. */
size_t bhp_table_bits(const bhp_table *t);

/*
 * One round: the x-coordinate of the sum selected by `bits` (n ≤ bhp_table_bits bits; missing bits
 * of the last chunk read as 0), canonical, 4 limbs.
 */
int bhp_hash_round(const bhp_table *t, const uint8_t *bits, size_t n, uint64_t out[4]);

/*
 * The whole hash of an input bit string (hasher.ts bhpHashBits): the rounds
 * [domain ‖ length (u64) ‖ input…], then [previous x (252 bits) ‖ next input bits]; 0 for an
 * empty input.
 */
int bhp_hash(const bhp_table *t, const uint8_t *bits, size_t n, uint64_t out[4]);

/*
 * bhp_hash of `count` inputs: input i is the layout[2i + 1] bits at bits + layout[2i]; its output
 * is out[4i .. 4i + 4). The callers check that the layout lies inside the bits. The final
 * inversions of all inputs are shared (one inversion for the batch).
 */
int bhp_hash_many(const bhp_table *t, const uint8_t *bits, const uint32_t *layout, size_t count, uint64_t *out);

/*
 * The root of snarkVM's BHP Merkle tree of depth `depth` (src/hash/bhp/merkle.ts): leaves hashed
 * with `leaf` (BHP1024) over [0 ‖ leaf], nodes with `node` (BHP512) over [1 ‖ left ‖ right]
 * (253 bits each), padded to a power of two with the empty hash (node of 0, 0), then climbing to
 * `depth` as node(root, empty). Leaves as in bhp_hash_many. BHP_E_DEPTH if 2^depth < count.
 */
int bhp_merkle_root(const bhp_table *leaf, const bhp_table *node, uint32_t depth, const uint8_t *bits,
                    const uint32_t *layout, size_t count, uint64_t out[4]);

#endif
