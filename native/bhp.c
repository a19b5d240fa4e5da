/*
 * snarkVM's BHP hash over precomputed lookup tables (see bhp.h), the same computation as
 * src/hash/bhp/hasher.ts:
 *   per round, the sum over the preimage's 3-bit chunks c_j of the affine point lookup[8j + c_j]
 *   (mixed additions into extended coordinates X : Y : Z : T, add-2008-hwcd-3 for a = -1,
 *   7 multiplications each), then the affine x = X / Z of the sum.
 * Computed once when a table is loaded, from the points hasher.ts hands over:
 *   - for each pair of chunk positions, the 64 affine sums lookup[8j + c] + lookup[8(j+1) + c'],
 *     so that one addition takes 6 bits (half the additions; 6 KiB a pair, 1.3 MiB for BHP1024);
 *   - the sum of the first 62 chunks of the first round (bits 0 .. 185: the hasher's domain, the
 *     same for every input), and that sum plus chunks 68 .. 83 (length bits 16 .. 63, all 0 for
 *     an input shorter than 2^16 bits);
 *   - the hash of the empty Merkle node [1 ‖ 0 ‖ 0] (used when the table is the node hasher).
 * A Merkle root's climb to its depth, node(root, empty) again and again, sums the chunks that do
 * not hold root's bits once (climb).
 * Field arithmetic: 4×64-bit Montgomery multiplication (R = 2^256, operand scanning without the
 * extra carry words: p's top limb is below 2^62), every value canonical; inverses by the binary
 * extended Euclid (4× faster here than a^(p−2)); a batch shares one inversion (Montgomery's trick).
 * Public data only (hashes of ledger values): nothing here needs to be constant-time.
 * SPDX-License-Identifier: MIT
 */
#include "bhp.h"

#include <stdlib.h>
#include <string.h>

#include "poseidon8-field.h" /* P, N0, sub4, cond_sub_p */

typedef unsigned __int128 u128;

/* A field element, 4 little-endian limbs; Montgomery form unless named plain. */
typedef struct {
  uint64_t l[4];
} fe;

/* A point in extended coordinates, x = X/Z, y = Y/Z, x·y = T/Z. */
typedef struct {
  fe x, y, z, t;
} ext;

/* A table point: y − x, y + x and 2·d·x·y of the affine point (what a mixed addition reads). */
typedef struct {
  fe ymx, ypx, t2d;
} tpoint;

struct bhp_table {
  size_t chunks; /* windows × window size */
  tpoint *pts;   /* 8 per chunk position: lookup[8j + c] */
  /* 64 per pair of chunk positions (2k, 2k + 1), k < chunks / 2: pairs[64k + c + 8c'] =
     lookup[16k + c] + lookup[16k + 8 + c'], so that one addition takes two chunks (6 bits). */
  tpoint *pairs;
  uint8_t domain[BHP_DOMAIN_BITS];
  size_t prefix_chunks; /* chunks of the domain alone */
  ext prefix;           /* their sum */
  ext short_prefix;     /* the prefix plus the chunks of length bits 16 … 63, all 0 when the
                           input is shorter than 2^16 bits (chunks SHORT_FROM … SHORT_TO − 1) */
  fe empty;             /* plain: the hash of a Merkle node [1 ‖ 0 ‖ 0] on this table (when used as
                           the node hasher: the empty hash of bhp_merkle_root) */
};

/* The first round's chunks that hold only length bits 16 … 63 (bits 204 … 251). */
#define SHORT_LEN_BITS 16
#define SHORT_FROM ((BHP_DOMAIN_BITS + SHORT_LEN_BITS) / 3)
#define SHORT_TO (BHP_DATA_BITS / 3)
_Static_assert((BHP_DOMAIN_BITS + SHORT_LEN_BITS) % 3 == 0 && BHP_DATA_BITS % 3 == 0 && SHORT_FROM % 2 == 0 && SHORT_TO % 2 == 0,
               "the short-length chunks are whole chunks starting on pair boundaries");

/* R mod p (1 in Montgomery form), R^2 mod p, and d, 2·d in Montgomery form (d = 3021). */
static const fe ONE = {{UINT64_C(0x7d1c7ffffffffff3), UINT64_C(0x7257f50f6ffffff2), UINT64_C(0x16d81575512c0fee), UINT64_C(0x0d4bda322bbb9a9d)}};
static const fe R2 = {{UINT64_C(0x25d577bab861857b), UINT64_C(0xcc2c27b58860591f), UINT64_C(0xa7cc008fe5dc8593), UINT64_C(0x011fdae7eff1c939)}};
static const fe D_M = {{UINT64_C(0xd047ffffffff5e30), UINT64_C(0xf0a91026ffff57d2), UINT64_C(0x09013f560d102582), UINT64_C(0x09fd242ca7be5700)}};
static const fe D2_M = {{UINT64_C(0x967e7ffffffebc5f), UINT64_C(0x87a7a94f2ffeafa4), UINT64_C(0xb14e318dbde89b04), UINT64_C(0x014ee2fab55008a9)}};

static inline void fe_add(fe *r, const fe *a, const fe *b) {
  uint64_t carry = 0;
  for (int i = 0; i < 4; i++) {
    uint64_t x;
    uint64_t c1 = __builtin_add_overflow(a->l[i], b->l[i], &x);
    uint64_t c2 = __builtin_add_overflow(x, carry, &r->l[i]);
    carry = c1 | c2;
  }
  /* a, b < p < 2^253: the sum fits 256 bits (carry is 0) and one subtraction makes it canonical */
  cond_sub_p(r->l);
}

static inline void fe_sub(fe *r, const fe *a, const fe *b) {
  uint64_t mask = 0 - sub4(r->l, a->l, b->l);
  uint64_t carry = 0;
  for (int i = 0; i < 4; i++) {
    uint64_t x;
    uint64_t c1 = __builtin_add_overflow(r->l[i], P[i] & mask, &x);
    uint64_t c2 = __builtin_add_overflow(x, carry, &r->l[i]);
    carry = c1 | c2;
  }
}

/*
 * r = a·b·2^-256 mod p for a, b < p (CIOS without the two extra carry words, valid because
 * p[3] < 2^63 − 2; the result before the subtraction is < 2p).
 */
static inline void fe_mul(fe *r, const fe *a, const fe *b) {
  uint64_t t[4] = {0, 0, 0, 0};
  for (int i = 0; i < 4; i++) {
    u128 s = (u128)a->l[0] * b->l[i] + t[0];
    uint64_t A = (uint64_t)(s >> 64);
    t[0] = (uint64_t)s;
    uint64_t m = t[0] * N0;
    u128 c = (u128)m * P[0] + t[0];
    uint64_t C = (uint64_t)(c >> 64);
    for (int j = 1; j < 4; j++) {
      s = (u128)a->l[j] * b->l[i] + t[j] + A;
      A = (uint64_t)(s >> 64);
      t[j] = (uint64_t)s;
      c = (u128)m * P[j] + t[j] + C;
      C = (uint64_t)(c >> 64);
      t[j - 1] = (uint64_t)c;
    }
    t[3] = C + A;
  }
  cond_sub_p(t);
  memcpy(r->l, t, sizeof t);
}

static inline int fe_is_zero(const fe *a) { return (a->l[0] | a->l[1] | a->l[2] | a->l[3]) == 0; }

static inline int fe_eq(const fe *a, const fe *b) {
  return ((a->l[0] ^ b->l[0]) | (a->l[1] ^ b->l[1]) | (a->l[2] ^ b->l[2]) | (a->l[3] ^ b->l[3])) == 0;
}

static int fe_canonical(const fe *a) {
  uint64_t t[4];
  return (int)sub4(t, a->l, P);
}

static void to_mont(fe *r, const fe *plain) { fe_mul(r, plain, &R2); }

static void from_mont(fe *plain, const fe *a) {
  static const fe one_plain = {{1, 0, 0, 0}};
  fe_mul(plain, a, &one_plain);
}

/* R^3 mod p: fe_mul(w, R3) = w·R^2, the Montgomery form of z^-1 when w = (zR)^-1. */
static const fe R3 = {{UINT64_C(0x6a4295c90f65454c), UINT64_C(0x624d23ffae271699), UINT64_C(0xb1e55ef6f1c9d713), UINT64_C(0x0601dfa555c48dda)}};

/* v >>= k for 0 < k < 64. */
static inline void shr4(uint64_t v[4], unsigned k) {
  v[0] = (v[0] >> k) | (v[1] << (64 - k));
  v[1] = (v[1] >> k) | (v[2] << (64 - k));
  v[2] = (v[2] >> k) | (v[3] << (64 - k));
  v[3] >>= k;
}

/* x = x / 2 mod p for x < p (branch-free: x + p when odd; x + p < 2^254 fits). */
static inline void half_mod(uint64_t x[4]) {
  uint64_t mask = 0 - (x[0] & 1), carry = 0, s[4];
  for (int i = 0; i < 4; i++) {
    uint64_t t;
    uint64_t c1 = __builtin_add_overflow(x[i], P[i] & mask, &t);
    uint64_t c2 = __builtin_add_overflow(t, carry, &s[i]);
    carry = c1 | c2;
  }
  x[0] = (s[0] >> 1) | (s[1] << 63);
  x[1] = (s[1] >> 1) | (s[2] << 63);
  x[2] = (s[2] >> 1) | (s[3] << 63);
  x[3] = s[3] >> 1;
}

static inline int is_one(const uint64_t v[4]) { return v[0] == 1 && (v[1] | v[2] | v[3]) == 0; }

/*
 * The Montgomery form of a^-1 for a ≠ 0 in Montgomery form (binary extended Euclid, Guide to
 * ECC Alg. 2.22, on the plain integer aR; not constant-time: public data only).
 */
static void fe_inv(fe *r, const fe *a) {
  uint64_t u[4], v[4];
  fe x1 = {{1, 0, 0, 0}}, x2 = {{0, 0, 0, 0}};
  memcpy(u, a->l, sizeof u);
  memcpy(v, P, sizeof v);
  while (!is_one(u) && !is_one(v)) {
    while ((u[0] & 1) == 0) {
      unsigned k = u[0] == 0 ? 63 : (unsigned)__builtin_ctzll(u[0]);
      shr4(u, k);
      for (unsigned i = 0; i < k; i++) half_mod(x1.l);
    }
    while ((v[0] & 1) == 0) {
      unsigned k = v[0] == 0 ? 63 : (unsigned)__builtin_ctzll(v[0]);
      shr4(v, k);
      for (unsigned i = 0; i < k; i++) half_mod(x2.l);
    }
    uint64_t d[4];
    if (!sub4(d, u, v)) { /* u ≥ v */
      memcpy(u, d, sizeof d);
      fe_sub(&x1, &x1, &x2);
    } else {
      sub4(v, v, u);
      fe_sub(&x2, &x2, &x1);
    }
  }
  fe_mul(r, is_one(u) ? &x1 : &x2, &R3);
}

static void identity(ext *p) {
  memset(p, 0, sizeof *p);
  p->y = ONE;
  p->z = ONE;
}

/* p += q (q affine, as a tpoint). */
static inline void madd(ext *p, const tpoint *q) {
  fe a, b, c, d, e, f, g, h;
  fe_sub(&a, &p->y, &p->x);
  fe_mul(&a, &a, &q->ymx);
  fe_add(&b, &p->y, &p->x);
  fe_mul(&b, &b, &q->ypx);
  fe_mul(&c, &p->t, &q->t2d);
  fe_add(&d, &p->z, &p->z);
  fe_sub(&e, &b, &a);
  fe_sub(&f, &d, &c);
  fe_add(&g, &d, &c);
  fe_add(&h, &b, &a);
  fe_mul(&p->x, &e, &f);
  fe_mul(&p->y, &g, &h);
  fe_mul(&p->z, &f, &g);
  fe_mul(&p->t, &e, &h);
}

/*
 * acc += Σ lookup[8j + c_j] over the chunks j ≥ j0 (j0 even) of bits[0 .. n) (n ≤ 3·chunks):
 * two chunks an addition from the pair table while both lie in the bits, then the last one alone.
 * bits[n], bits[n + 1] and bits[n + 2] must be readable and 0.
 */
static void sum_chunks(ext *acc, const bhp_table *t, const uint8_t *bits, size_t n, size_t j0) {
  size_t j = j0, i = 3 * j0;
  for (; i + 3 < n; j += 2, i += 6) { /* chunk j + 1 starts inside the bits: j + 1 < chunks */
    unsigned c = (unsigned)bits[i] | (unsigned)bits[i + 1] << 1 | (unsigned)bits[i + 2] << 2 | (unsigned)bits[i + 3] << 3 |
                 (unsigned)bits[i + 4] << 4 | (unsigned)bits[i + 5] << 5;
    madd(acc, &t->pairs[32 * j + c]); /* 64 · (j / 2) */
  }
  if (i < n) {
    unsigned c = (unsigned)bits[i] | (unsigned)bits[i + 1] << 1 | (unsigned)bits[i + 2] << 2;
    madd(acc, &t->pts[8 * j + c]);
  }
}

/* acc += Σ lookup[8j + c_j] over the chunks j0 ≤ j < j1 of bits (pairs from an even j on). */
static void sum_chunk_range(ext *acc, const bhp_table *t, const uint8_t *bits, size_t j0, size_t j1) {
  size_t j = j0;
  if (j < j1 && (j & 1) != 0) {
    const uint8_t *b = bits + 3 * j;
    madd(acc, &t->pts[8 * j + ((unsigned)b[0] | (unsigned)b[1] << 1 | (unsigned)b[2] << 2)]);
    j++;
  }
  for (; j + 1 < j1; j += 2) {
    const uint8_t *b = bits + 3 * j;
    unsigned c = (unsigned)b[0] | (unsigned)b[1] << 1 | (unsigned)b[2] << 2 | (unsigned)b[3] << 3 | (unsigned)b[4] << 4 | (unsigned)b[5] << 5;
    madd(acc, &t->pairs[32 * j + c]);
  }
  if (j < j1) {
    const uint8_t *b = bits + 3 * j;
    madd(acc, &t->pts[8 * j + ((unsigned)b[0] | (unsigned)b[1] << 1 | (unsigned)b[2] << 2)]);
  }
}

/* The tpoint of an affine point (Montgomery form). */
static void to_tpoint(tpoint *r, const fe *x, const fe *y) {
  fe xy;
  fe_sub(&r->ymx, y, x);
  fe_add(&r->ypx, y, x);
  fe_mul(&xy, x, y);
  fe_mul(&r->t2d, &xy, &D2_M);
}

/*
 * The pair table (see bhp_table) from the affine points xy (x, y of lookup[i] at 2i, 2i + 1):
 * each sum in extended coordinates, then affine with one inversion per pair position.
 */
static int build_pairs(bhp_table *t, const fe *xy) {
  const size_t npairs = t->chunks / 2;
  for (size_t k = 0; k < npairs; k++) {
    ext sum[64];
    fe prefix[64], run = ONE;
    for (size_t c2 = 0; c2 < 8; c2++) {
      for (size_t c1 = 0; c1 < 8; c1++) {
        ext *p = &sum[c1 + 8 * c2];
        const fe *x = &xy[2 * (16 * k + c1)], *y = &xy[2 * (16 * k + c1) + 1];
        p->x = *x;
        p->y = *y;
        p->z = ONE;
        fe_mul(&p->t, x, y);
        madd(p, &t->pts[16 * k + 8 + c2]);
      }
    }
    for (size_t i = 0; i < 64; i++) {
      prefix[i] = run;
      fe_mul(&run, &run, &sum[i].z);
    }
    if (fe_is_zero(&run)) return BHP_E_IDENTITY;
    fe inv;
    fe_inv(&inv, &run);
    for (size_t i = 64; i-- > 0;) {
      fe zi, ax, ay;
      fe_mul(&zi, &inv, &prefix[i]);
      fe_mul(&inv, &inv, &sum[i].z);
      fe_mul(&ax, &sum[i].x, &zi);
      fe_mul(&ay, &sum[i].y, &zi);
      to_tpoint(&t->pairs[64 * k + i], &ax, &ay);
    }
  }
  return BHP_OK;
}

/* Nonzero if some byte of bits[0 .. n) is neither 0 nor 1. */
static int bad_bits(const uint8_t *bits, size_t n) {
  uint8_t any = 0;
  for (size_t i = 0; i < n; i++) any |= bits[i];
  return (any & 0xfe) != 0;
}

/* Affine x of p, plain and canonical. */
static int affine_x(fe *plain, const ext *p) {
  if (fe_is_zero(&p->z)) return BHP_E_IDENTITY;
  fe zi, x;
  fe_inv(&zi, &p->z);
  fe_mul(&x, &p->x, &zi);
  from_mont(plain, &x);
  return BHP_OK;
}

/* The low `count` bits of a plain element, least significant first. */
static void fe_bits(uint8_t *out, const fe *plain, int count) {
  for (int i = 0; i < count; i++) out[i] = (uint8_t)((plain->l[i / 64] >> (i % 64)) & 1u);
}

static void fe_to_words(uint64_t out[4], const fe *plain) { memcpy(out, plain->l, sizeof plain->l); }

size_t bhp_table_bits(const bhp_table *t) { return 3 * t->chunks; }

/* Size of the preimage buffer a hash of this table needs (its bits plus 3 zero bytes). */
static size_t buffer_size(const bhp_table *t) { return 3 * t->chunks + 3; }

static int hash_nodes(const bhp_table *node, const fe *left, const fe *right, size_t count, fe *out);

bhp_table *bhp_table_load(const uint64_t *words, size_t npoints, const uint8_t *domain_bits, int *err) {
  *err = BHP_E_TABLE;
  if (npoints == 0 || npoints % 8 != 0 || npoints / 8 > BHP_MAX_CHUNKS) return NULL;
  size_t chunks = npoints / 8;
  if (3 * chunks <= BHP_DATA_BITS) return NULL; /* no room for input bits past a round's prefix */
  if (bad_bits(domain_bits, BHP_DOMAIN_BITS)) return NULL;
  bhp_table *t = calloc(1, sizeof *t);
  tpoint *pts = t == NULL ? NULL : malloc(npoints * sizeof *pts);
  tpoint *pairs = pts == NULL ? NULL : malloc(64 * (chunks / 2) * sizeof *pairs);
  fe *xy = pairs == NULL ? NULL : malloc(2 * npoints * sizeof *xy);
  if (xy == NULL) {
    free(pairs);
    free(pts);
    free(t);
    *err = BHP_E_MEMORY;
    return NULL;
  }
  t->chunks = chunks;
  t->pts = pts;
  t->pairs = pairs;
  memcpy(t->domain, domain_bits, BHP_DOMAIN_BITS);
  for (size_t i = 0; i < npoints; i++) {
    fe x, y, t2d;
    memcpy(x.l, words + 12 * i, sizeof x.l);
    memcpy(y.l, words + 12 * i + 4, sizeof y.l);
    memcpy(t2d.l, words + 12 * i + 8, sizeof t2d.l);
    if (!fe_canonical(&x) || !fe_canonical(&y) || !fe_canonical(&t2d)) goto invalid;
    to_mont(&x, &x);
    to_mont(&y, &y);
    to_mont(&t2d, &t2d);
    /* on the curve: −x² + y² = 1 + d·x²·y², and t2d = 2·d·x·y */
    fe x2, y2, lhs, rhs, dxy;
    fe_mul(&x2, &x, &x);
    fe_mul(&y2, &y, &y);
    fe_sub(&lhs, &y2, &x2);
    fe_mul(&rhs, &x2, &y2);
    fe_mul(&rhs, &rhs, &D_M);
    fe_add(&rhs, &rhs, &ONE);
    fe_mul(&dxy, &x, &y);
    fe_mul(&dxy, &dxy, &D2_M);
    if (!fe_eq(&lhs, &rhs) || !fe_eq(&dxy, &t2d)) goto invalid;
    fe_sub(&pts[i].ymx, &y, &x);
    fe_add(&pts[i].ypx, &y, &x);
    pts[i].t2d = t2d;
    xy[2 * i] = x;
    xy[2 * i + 1] = y;
  }
  {
    int rc = build_pairs(t, xy);
    free(xy);
    xy = NULL;
    if (rc != BHP_OK) {
      *err = rc;
      bhp_table_free(t);
      return NULL;
    }
  }
  t->prefix_chunks = BHP_DOMAIN_BITS / 3;
  identity(&t->prefix);
  {
    uint8_t bits[BHP_DOMAIN_BITS + 3] = {0};
    memcpy(bits, t->domain, 3 * t->prefix_chunks);
    sum_chunks(&t->prefix, t, bits, 3 * t->prefix_chunks, 0);
  }
  t->short_prefix = t->prefix;
  for (size_t j = SHORT_FROM; j < SHORT_TO; j++) madd(&t->short_prefix, &t->pts[8 * j]); /* chunk value 0 */
  {
    const fe zero = {{0, 0, 0, 0}};
    int rc = hash_nodes(t, &zero, &zero, 1, &t->empty);
    if (rc != BHP_OK) {
      *err = rc;
      bhp_table_free(t);
      return NULL;
    }
  }
  *err = BHP_OK;
  return t;
invalid:
  free(xy);
  bhp_table_free(t);
  return NULL;
}

void bhp_table_free(bhp_table *t) {
  if (t == NULL) return;
  free(t->pts);
  free(t->pairs);
  free(t);
}

/*
 * The sum of one round whose preimage is buf[0 .. n) (buf[n .. n + 3) readable); the domain's
 * chunks come from the precomputed prefix when the preimage starts with the domain.
 */
enum { LATER_ROUND, FIRST_ROUND, FIRST_ROUND_SHORT };

static void round_sum(ext *acc, const bhp_table *t, uint8_t *buf, size_t n, int kind) {
  buf[n] = buf[n + 1] = buf[n + 2] = 0;
  if (kind == FIRST_ROUND_SHORT) { /* n > BHP_DATA_BITS, length < 2^16: chunks 68 … 83 are 0 */
    *acc = t->short_prefix;
    sum_chunk_range(acc, t, buf, t->prefix_chunks, SHORT_FROM);
    sum_chunks(acc, t, buf, n, SHORT_TO);
  } else if (kind == FIRST_ROUND) {
    *acc = t->prefix;
    sum_chunks(acc, t, buf, n, t->prefix_chunks);
  } else {
    identity(acc);
    sum_chunks(acc, t, buf, n, 0);
  }
}

int bhp_hash_round(const bhp_table *t, const uint8_t *bits, size_t n, uint64_t out[4]) {
  if (n > 3 * t->chunks) return BHP_E_LENGTH;
  if (bad_bits(bits, n)) return BHP_E_BIT;
  uint8_t *buf = malloc(buffer_size(t));
  if (buf == NULL) return BHP_E_MEMORY;
  memcpy(buf, bits, n);
  size_t pre = 3 * t->prefix_chunks;
  ext acc;
  round_sum(&acc, t, buf, n, n >= pre && memcmp(buf, t->domain, pre) == 0 ? FIRST_ROUND : LATER_ROUND);
  free(buf);
  fe x;
  int rc = affine_x(&x, &acc);
  if (rc == BHP_OK) fe_to_words(out, &x);
  return rc;
}

/*
 * Every round of the hash of in[0 .. n) (n > 0, bits already checked) but the last inversion:
 * the last round's sum in *acc. buf: buffer_size(t) bytes.
 */
static int hash_sum(const bhp_table *t, const uint8_t *in, size_t n, uint8_t *buf, ext *acc) {
  const size_t per = 3 * t->chunks - BHP_DATA_BITS;
  const size_t rounds = (n + per - 1) / per;
  fe x;
  for (size_t r = 0; r < rounds; r++) {
    const size_t off = r * per;
    const size_t len = n - off < per ? n - off : per;
    if (r == 0) {
      memcpy(buf, t->domain, BHP_DOMAIN_BITS);
      const uint64_t total = (uint64_t)n;
      for (int i = 0; i < 64; i++) buf[BHP_DOMAIN_BITS + i] = (uint8_t)((total >> i) & 1u);
    } else {
      int rc = affine_x(&x, acc);
      if (rc != BHP_OK) return rc;
      fe_bits(buf, &x, BHP_DATA_BITS);
    }
    memcpy(buf + BHP_DATA_BITS, in + off, len);
    round_sum(acc, t, buf, BHP_DATA_BITS + len, r > 0 ? LATER_ROUND : n < ((size_t)1 << SHORT_LEN_BITS) ? FIRST_ROUND_SHORT : FIRST_ROUND);
  }
  return BHP_OK;
}

int bhp_hash(const bhp_table *t, const uint8_t *bits, size_t n, uint64_t out[4]) {
  if (bad_bits(bits, n)) return BHP_E_BIT;
  if (n == 0) { /* snarkVM runs no round: the identity, whose x is 0 */
    memset(out, 0, 4 * sizeof *out);
    return BHP_OK;
  }
  uint8_t *buf = malloc(buffer_size(t));
  if (buf == NULL) return BHP_E_MEMORY;
  ext acc;
  int rc = hash_sum(t, bits, n, buf, &acc);
  free(buf);
  fe x;
  if (rc == BHP_OK) rc = affine_x(&x, &acc);
  if (rc == BHP_OK) fe_to_words(out, &x);
  return rc;
}

/* The hashes of `count` inputs (layout as in bhp_hash_many) as plain elements, one inversion. */
static int hash_many(const bhp_table *t, const uint8_t *bits, const uint32_t *layout, size_t count, fe *out) {
  for (size_t i = 0; i < count; i++)
    if (bad_bits(bits + layout[2 * i], layout[2 * i + 1])) return BHP_E_BIT;
  if (count == 0) return BHP_OK;
  if (count > SIZE_MAX / (2 * sizeof(ext))) return BHP_E_MEMORY;
  ext *acc = malloc(count * sizeof *acc);
  fe *prefix = malloc(count * sizeof *prefix);
  uint8_t *buf = malloc(buffer_size(t));
  int rc = acc == NULL || prefix == NULL || buf == NULL ? BHP_E_MEMORY : BHP_OK;
  for (size_t i = 0; rc == BHP_OK && i < count; i++) {
    if (layout[2 * i + 1] == 0)
      identity(&acc[i]);
    else
      rc = hash_sum(t, bits + layout[2 * i], layout[2 * i + 1], buf, &acc[i]);
  }
  if (rc == BHP_OK) {
    /* Montgomery's trick: prefix[i] = Z_0 ⋯ Z_(i−1), one inversion of the whole product. */
    fe run = ONE;
    for (size_t i = 0; i < count; i++) {
      prefix[i] = run;
      fe_mul(&run, &run, &acc[i].z);
    }
    if (fe_is_zero(&run)) {
      rc = BHP_E_IDENTITY;
    } else {
      fe inv;
      fe_inv(&inv, &run);
      for (size_t i = count; i-- > 0;) {
        fe zi, x;
        fe_mul(&zi, &inv, &prefix[i]);
        fe_mul(&inv, &inv, &acc[i].z);
        fe_mul(&x, &acc[i].x, &zi);
        from_mont(&out[i], &x);
      }
    }
  }
  free(acc);
  free(prefix);
  free(buf);
  return rc;
}

int bhp_hash_many(const bhp_table *t, const uint8_t *bits, const uint32_t *layout, size_t count, uint64_t *out) {
  fe *xs = count == 0 ? NULL : malloc(count * sizeof *xs);
  if (count != 0 && xs == NULL) return BHP_E_MEMORY;
  int rc = hash_many(t, bits, layout, count, xs);
  if (rc == BHP_OK)
    for (size_t i = 0; i < count; i++) fe_to_words(out + 4 * i, &xs[i]);
  free(xs);
  return rc;
}

/* The preimage of a Merkle node: [1 ‖ left (253 bits) ‖ right (253 bits)]. */
#define NODE_BITS (1 + 2 * 253)

static void node_preimage(uint8_t *out, const fe *left, const fe *right) {
  out[0] = 1;
  fe_bits(out + 1, left, 253);
  fe_bits(out + 1 + 253, right, 253);
}

/* The node hashes of the `count` pairs (left[i], right[i]), one batch. */
static int hash_nodes(const bhp_table *node, const fe *left, const fe *right, size_t count, fe *out) {
  if (count > UINT32_MAX / NODE_BITS) return BHP_E_MEMORY;
  uint8_t *bits = malloc(count * NODE_BITS + 1);
  uint32_t *layout = malloc(2 * count * sizeof *layout + 1);
  int rc = bits == NULL || layout == NULL ? BHP_E_MEMORY : BHP_OK;
  if (rc == BHP_OK) {
    for (size_t i = 0; i < count; i++) {
      node_preimage(bits + i * NODE_BITS, &left[i], &right[i]);
      layout[2 * i] = (uint32_t)(i * NODE_BITS);
      layout[2 * i + 1] = NODE_BITS;
    }
    rc = hash_many(node, bits, layout, count, out);
  }
  free(bits);
  free(layout);
  return rc;
}

/*
 * The climb of a Merkle root to its depth: *root = node(*root, empty), `times` times. Each step's
 * preimage [domain ‖ length ‖ 1 ‖ root ‖ empty] differs from the last only in root's 253 bits
 * (chunks 84 … 168 of 253), so the sum of the other chunks is computed once: each step costs
 * about half a node hash.
 */
static int climb(const bhp_table *node, fe *root, const fe *empty, uint32_t times) {
  const size_t n = BHP_DATA_BITS + NODE_BITS;
  if (n > 3 * node->chunks) { /* the node takes more than one round: no shortcut (not mainnet's) */
    int rc = BHP_OK;
    for (uint32_t i = 0; rc == BHP_OK && i < times; i++) rc = hash_nodes(node, root, empty, 1, root);
    return rc;
  }
  uint8_t *buf = malloc(buffer_size(node));
  if (buf == NULL) return BHP_E_MEMORY;
  const fe zero = {{0, 0, 0, 0}};
  memcpy(buf, node->domain, BHP_DOMAIN_BITS);
  for (int i = 0; i < 64; i++) buf[BHP_DOMAIN_BITS + i] = (uint8_t)(((uint64_t)NODE_BITS >> i) & 1u);
  node_preimage(buf + BHP_DATA_BITS, &zero, empty);
  buf[n] = buf[n + 1] = buf[n + 2] = 0;
  const size_t lo = (BHP_DATA_BITS + 1) / 3, hi = (BHP_DATA_BITS + 1 + 253 - 1) / 3 + 1, end = (n + 2) / 3;
  ext fixed = node->prefix;
  sum_chunk_range(&fixed, node, buf, node->prefix_chunks, lo);
  sum_chunk_range(&fixed, node, buf, hi, end);
  int rc = BHP_OK;
  for (uint32_t i = 0; rc == BHP_OK && i < times; i++) {
    fe_bits(buf + BHP_DATA_BITS + 1, root, 253);
    ext acc = fixed;
    sum_chunk_range(&acc, node, buf, lo, hi);
    rc = affine_x(root, &acc);
  }
  free(buf);
  return rc;
}

int bhp_merkle_root(const bhp_table *leaf, const bhp_table *node, uint32_t depth, const uint8_t *bits,
                    const uint32_t *layout, size_t count, uint64_t out[4]) {
  uint64_t width = 1;
  uint32_t levels = 0;
  while (width < count) {
    width <<= 1;
    levels++;
  }
  if (levels > depth || depth > 64) return BHP_E_DEPTH;
  for (size_t i = 0; i < count; i++)
    if (bad_bits(bits + layout[2 * i], layout[2 * i + 1])) return BHP_E_BIT;
  const fe zero = {{0, 0, 0, 0}};
  const fe empty = node->empty;

  /* The leaves: [0 ‖ leaf] hashed with the leaf hasher, padded with the empty hash. */
  size_t total = 0;
  for (size_t i = 0; i < count; i++) total += 1 + (size_t)layout[2 * i + 1];
  if (total > UINT32_MAX || width > SIZE_MAX / (3 * sizeof(fe))) return BHP_E_MEMORY;
  fe *level = malloc((size_t)width * sizeof *level);
  fe *left = malloc((size_t)width / 2 * sizeof *left + sizeof *left);
  fe *right = malloc((size_t)width / 2 * sizeof *right + sizeof *right);
  uint8_t *lbits = malloc(total + 1);
  uint32_t *llayout = malloc(2 * count * sizeof *llayout + 1);
  int rc = level == NULL || left == NULL || right == NULL || lbits == NULL || llayout == NULL ? BHP_E_MEMORY : BHP_OK;
  if (rc == BHP_OK) {
    size_t at = 0;
    for (size_t i = 0; i < count; i++) {
      const size_t len = layout[2 * i + 1];
      llayout[2 * i] = (uint32_t)at;
      llayout[2 * i + 1] = (uint32_t)(1 + len);
      lbits[at] = 0;
      memcpy(lbits + at + 1, bits + layout[2 * i], len);
      at += 1 + len;
    }
    rc = hash_many(leaf, lbits, llayout, count, level);
  }
  if (rc == BHP_OK) {
    for (size_t i = count; i < width; i++) level[i] = empty;
    /* Pairs of empty nodes recur at every level of a sparse tree: each level's is hashed once,
       and only when the level has one (merkle.ts; the padding is a suffix, so once a level has
       none, no level above has). The other pairs of a level are hashed in one batch. */
    fe empty_pair = empty;
    int have_empty = 1;
    for (uint64_t w = width; rc == BHP_OK && w > 1; w /= 2) {
      size_t n = 0, empties = 0;
      for (size_t i = 0; i < w; i += 2) {
        if (have_empty && fe_eq(&level[i], &empty_pair) && fe_eq(&level[i + 1], &empty_pair)) {
          empties++;
          continue;
        }
        left[n] = level[i];
        right[n] = level[i + 1];
        n++;
      }
      fe empty_parent = zero;
      if (empties > 0) rc = hash_nodes(node, &empty_pair, &empty_pair, 1, &empty_parent);
      fe *hashed = left; /* the outputs overwrite the left children, already read */
      if (rc == BHP_OK) rc = hash_nodes(node, left, right, n, hashed);
      size_t k = 0;
      for (size_t i = 0; rc == BHP_OK && i < w; i += 2) {
        const int both_empty = have_empty && fe_eq(&level[i], &empty_pair) && fe_eq(&level[i + 1], &empty_pair);
        level[i / 2] = both_empty ? empty_parent : hashed[k++];
      }
      have_empty = empties > 0;
      empty_pair = empty_parent;
    }
  }
  fe root = rc == BHP_OK ? level[0] : zero;
  if (rc == BHP_OK && levels < depth) rc = climb(node, &root, &empty, depth - levels);
  if (rc == BHP_OK) fe_to_words(out, &root);
  free(level);
  free(left);
  free(right);
  free(lbits);
  free(llayout);
  return rc;
}
