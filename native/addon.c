/*
 * N-API binding of the Poseidon8 kernel (poseidon8.c) and the BHP hash (bhp.c). Context-aware
 * (NAPI_MODULE_INIT): each environment (main thread, each worker thread) keeps its own Poseidon8
 * constants as instance data, and its own BHP tables (externals).
 *
 *   init(consts: BigUint64Array)                      load the constants (src/hash/native-constants.ts)
 *   hash(domain, input: BigUint64Array, out)          sponge over input.length / 4 elements
 *   hashBits(domain, words: Uint32Array, n, out)      sponge over n 252-bit elements cut from words
 *   hashBitsMany(domain, words: Uint32Array, layout: Uint32Array, out)
 *                                                     several structs in one call: struct i is
 *                                                     layout[3i + 2] elements cut from the
 *                                                     layout[3i + 1] words at layout[3i]; its
 *                                                     output is out[4i .. 4i + 4)
 *   permute(state: BigUint64Array)                    in-place permutation of 9 elements (tests)
 *   kernels(): string[]                               the permutation kernels this CPU runs
 *                                                     ("portable", "adx"; poseidon8.h)
 * The BHP hash (bhp.c, bhp.h; src/hash/bhp/native.ts), on tables that are externals:
 *   bhpLoad(points: BigUint64Array, domainBits: Uint8Array)  a table from 12 limbs per point (x, y,
 *                                                     2·d·x·y, canonical) and the 188 domain bits
 *   bhpBits(table): number                            its bits per round (windows × size × 3)
 *   bhpHashRound(table, bits: Uint8Array, out: Uint8Array)
 *                                                     one round's preimage → its x (32 bytes LE)
 *   bhpHash(table, bits, out)                         a whole input (every round) → out
 *   bhpHashMany(table, bits, layout: Uint32Array, out)
 *                                                     input i is the layout[2i + 1] bits at
 *                                                     layout[2i]; its hash is out[32i .. 32i + 32)
 *   bhpMerkleRoot(leafTable, nodeTable, depth, bits, layout, out)
 *                                                     the BHP Merkle root of those leaves
 * Bits are one byte each (0 or 1). Tables are read-only once loaded (any thread may use one).
 * hash, hashBits, hashBitsMany and permute take an optional last argument, the kernel number
 * (index in kernels' names: 0 portable, 1 adx; default 0), per call: every caller in a thread
 * shares the environment's constants, so the kernel is not a setting of the environment. A
 * kernel this CPU does not run throws.
 *
 * Field elements are 4 64-bit limbs, least significant first. Errors are thrown as JS errors.
 * SPDX-License-Identifier: MIT
 */
#include <node_api.h>
#include <stdlib.h>
#include <string.h>

#include "bhp.h"
#include "poseidon8.h"

#define CALL(env, expr)                                          \
  do {                                                           \
    if ((expr) != napi_ok) {                                     \
      napi_throw_error((env), NULL, "poseidon8 native: " #expr); \
      return NULL;                                               \
    }                                                            \
  } while (0)

/* Per environment: the constants and the first-permutation memo (poseidon8.h). */
typedef struct {
  p8_consts k;
  p8_memo memo;
} instance;

static void free_consts(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  free(data);
}

/*
 * The data of typed array `v` of the given type (*len = element count). An empty array has no
 * data, so for it this returns a pointer to a static dummy word (never read: *len is 0).
 * NULL, with a thrown TypeError, if `v` is not such an array.
 */
static void *typed(napi_env env, napi_value v, napi_typedarray_type want, size_t *len, const char *what) {
  static uint64_t empty;
  bool is = false;
  if (napi_is_typedarray(env, v, &is) != napi_ok || !is) {
    napi_throw_type_error(env, NULL, what);
    return NULL;
  }
  napi_typedarray_type type;
  void *data = NULL;
  if (napi_get_typedarray_info(env, v, &type, len, &data, NULL, NULL) != napi_ok || type != want) {
    napi_throw_type_error(env, NULL, what);
    return NULL;
  }
  return *len == 0 ? (void *)&empty : data;
}

static instance *instance_of(napi_env env) {
  void *inst = NULL;
  if (napi_get_instance_data(env, &inst) != napi_ok || inst == NULL) {
    napi_throw_error(env, NULL, "poseidon8 native: init() was not called");
    return NULL;
  }
  return inst;
}

/*
 * The kernel a call runs on: its optional argument at `index` (0 = portable, 1 = adx; absent or
 * undefined: portable), set on this environment's constants for the call (calls on one thread do
 * not overlap). -1 with a thrown error if it is not a kernel this CPU runs.
 */
static int use_kernel_arg(napi_env env, napi_callback_info info, size_t index, instance *k) {
  napi_value argv[8];
  size_t argc = 8;
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok) {
    napi_throw_error(env, NULL, "poseidon8 native: napi_get_cb_info failed");
    return -1;
  }
  int32_t id = P8_KERNEL_PORTABLE;
  if (argc > index) {
    napi_valuetype t;
    if (napi_typeof(env, argv[index], &t) != napi_ok) return -1;
    if (t != napi_undefined && (t != napi_number || napi_get_value_int32(env, argv[index], &id) != napi_ok)) {
      napi_throw_type_error(env, NULL, "kernel must be a kernel number");
      return -1;
    }
  }
  if (id < P8_KERNEL_PORTABLE || id > P8_KERNEL_ADX || p8_select_kernel(&k->k, (p8_kernel)id) != 0) {
    napi_throw_error(env, NULL, "poseidon8 native: this CPU does not support that kernel");
    return -1;
  }
  return 0;
}

static napi_value js_init(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 1) {
    napi_throw_type_error(env, NULL, "init(consts) needs a BigUint64Array");
    return NULL;
  }
  size_t len = 0;
  const uint64_t *words = typed(env, argv[0], napi_biguint64_array, &len, "consts must be a BigUint64Array");
  if (words == NULL) return NULL;
  instance *k = calloc(1, sizeof *k);
  if (k == NULL) {
    napi_throw_error(env, NULL, "poseidon8 native: out of memory");
    return NULL;
  }
  if (p8_load_consts(&k->k, words, len) != 0) {
    free(k);
    napi_throw_range_error(env, NULL, "poseidon8 native: inconsistent constants");
    return NULL;
  }
  void *old = NULL;
  if (napi_get_instance_data(env, &old) == napi_ok && old != NULL) {
    /* Re-init: napi_set_instance_data does not finalize the data it replaces. */
    free(old);
  }
  if (napi_set_instance_data(env, k, free_consts, NULL) != napi_ok) {
    free(k);
    napi_throw_error(env, NULL, "poseidon8 native: napi_set_instance_data failed");
    return NULL;
  }
  return NULL;
}

/* Reads the (domain, …, out) arguments shared by hash and hashBits. */
static uint64_t *fe_arg(napi_env env, napi_value v, const char *what) {
  size_t len = 0;
  uint64_t *d = typed(env, v, napi_biguint64_array, &len, what);
  if (d == NULL) return NULL;
  if (len != 4) {
    napi_throw_range_error(env, NULL, what);
    return NULL;
  }
  return d;
}

/*
 * The arguments shared by hash and hashBits: argv (argc of them), this environment's instance,
 * the domain (argv[0], copied) and the output (argv[argc - 1]). -1 with a thrown error otherwise.
 */
static int hash_args(napi_env env, napi_callback_info info, size_t argc, napi_value *argv, const char *usage,
                     instance **k, p8_fe *domain, uint64_t **out) {
  size_t got = argc;
  if (napi_get_cb_info(env, info, &got, argv, NULL, NULL) != napi_ok) {
    napi_throw_error(env, NULL, "poseidon8 native: napi_get_cb_info failed");
    return -1;
  }
  *k = instance_of(env);
  if (*k == NULL) return -1;
  if (got < argc) {
    napi_throw_type_error(env, NULL, usage);
    return -1;
  }
  uint64_t *d = fe_arg(env, argv[0], "domain must be a BigUint64Array of 4 limbs");
  if (d == NULL) return -1;
  memcpy(domain->l, d, sizeof domain->l);
  *out = fe_arg(env, argv[argc - 1], "out must be a BigUint64Array of 4 limbs");
  return *out == NULL ? -1 : 0;
}

static napi_value js_hash(napi_env env, napi_callback_info info) {
  napi_value argv[3];
  instance *k;
  p8_fe d, result;
  uint64_t *out;
  if (hash_args(env, info, 3, argv, "hash(domain, input, out)", &k, &d, &out) != 0) return NULL;
  size_t len = 0;
  uint64_t *input = typed(env, argv[1], napi_biguint64_array, &len, "input must be a BigUint64Array");
  if (input == NULL) return NULL;
  if (len % 4 != 0) {
    napi_throw_range_error(env, NULL, "input length must be a multiple of 4 limbs");
    return NULL;
  }
  if (use_kernel_arg(env, info, 3, k) != 0) return NULL;
  if (p8_hash(&k->k, &k->memo, &d, input, len / 4, &result) != 0) {
    napi_throw_range_error(env, NULL, "poseidon8 native: a value is not a canonical field element");
    return NULL;
  }
  memcpy(out, result.l, sizeof result.l);
  return NULL;
}

static napi_value js_hash_bits(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  instance *k;
  p8_fe d, result;
  uint64_t *out;
  if (hash_args(env, info, 4, argv, "hashBits(domain, words, n, out)", &k, &d, &out) != 0) return NULL;
  size_t nwords = 0;
  const uint32_t *words = typed(env, argv[1], napi_uint32_array, &nwords, "words must be a Uint32Array");
  if (words == NULL) return NULL;
  int64_t n = -1;
  if (napi_get_value_int64(env, argv[2], &n) != napi_ok || n < 0 || (uint64_t)n > (uint64_t)nwords * 32 / 252 + 1) {
    napi_throw_range_error(env, NULL, "n must be an element count the words can hold");
    return NULL;
  }
  if (use_kernel_arg(env, info, 4, k) != 0) return NULL;
  if (p8_hash_bits(&k->k, &k->memo, &d, words, nwords, (size_t)n, &result) != 0) {
    napi_throw_range_error(env, NULL, "poseidon8 native: the domain is not a canonical field element");
    return NULL;
  }
  memcpy(out, result.l, sizeof result.l);
  return NULL;
}

static napi_value js_hash_bits_many(napi_env env, napi_callback_info info) {
  napi_value argv[4];
  size_t got = 4;
  CALL(env, napi_get_cb_info(env, info, &got, argv, NULL, NULL));
  instance *k = instance_of(env);
  if (k == NULL) return NULL;
  if (got < 4) {
    napi_throw_type_error(env, NULL, "hashBitsMany(domain, words, layout, out)");
    return NULL;
  }
  const uint64_t *dl = fe_arg(env, argv[0], "domain must be a BigUint64Array of 4 limbs");
  if (dl == NULL) return NULL;
  p8_fe d;
  memcpy(d.l, dl, sizeof d.l);
  size_t nwords = 0, nlayout = 0, nout = 0;
  const uint32_t *words = typed(env, argv[1], napi_uint32_array, &nwords, "words must be a Uint32Array");
  if (words == NULL) return NULL;
  const uint32_t *layout = typed(env, argv[2], napi_uint32_array, &nlayout, "layout must be a Uint32Array");
  if (layout == NULL) return NULL;
  uint64_t *out = typed(env, argv[3], napi_biguint64_array, &nout, "out must be a BigUint64Array");
  if (out == NULL) return NULL;
  if (nlayout % 3 != 0 || nout != 4 * (nlayout / 3)) {
    napi_throw_range_error(env, NULL, "layout must hold 3 numbers per struct and out 4 limbs per struct");
    return NULL;
  }
  for (size_t i = 0; i < nlayout; i += 3) {
    size_t at = layout[i], w = layout[i + 1], n = layout[i + 2];
    if (at > nwords || w > nwords - at || n > w * 32 / 252 + 1) {
      napi_throw_range_error(env, NULL, "a struct's words or element count lie outside the words");
      return NULL;
    }
  }
  if (use_kernel_arg(env, info, 4, k) != 0) return NULL;
  for (size_t i = 0; i < nlayout; i += 3) {
    p8_fe result;
    if (p8_hash_bits(&k->k, &k->memo, &d, words + layout[i], layout[i + 1], layout[i + 2], &result) != 0) {
      napi_throw_range_error(env, NULL, "poseidon8 native: the domain is not a canonical field element");
      return NULL;
    }
    memcpy(out + 4 * (i / 3), result.l, sizeof result.l);
  }
  return NULL;
}

static const char *const KERNEL_NAMES[] = {"portable", "adx"};

static napi_value js_kernels(napi_env env, napi_callback_info info) {
  (void)info;
  napi_value list;
  CALL(env, napi_create_array(env, &list));
  uint32_t at = 0;
  for (int id = P8_KERNEL_PORTABLE; id <= P8_KERNEL_ADX; id++) {
    if (!p8_kernel_supported((p8_kernel)id)) continue;
    napi_value name;
    CALL(env, napi_create_string_utf8(env, KERNEL_NAMES[id], NAPI_AUTO_LENGTH, &name));
    CALL(env, napi_set_element(env, list, at++, name));
  }
  return list;
}

static napi_value js_permute(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  instance *k = instance_of(env);
  if (k == NULL) return NULL;
  size_t len = 0;
  uint64_t *s = argc < 1 ? NULL : typed(env, argv[0], napi_biguint64_array, &len, "state must be a BigUint64Array");
  if (s == NULL) return NULL;
  if (len != 4 * P8_WIDTH) {
    napi_throw_range_error(env, NULL, "state must hold 9 elements (36 limbs)");
    return NULL;
  }
  p8_fe tmp[P8_WIDTH];
  for (int i = 0; i < P8_WIDTH; i++) memcpy(tmp[i].l, s + 4 * i, sizeof tmp[i].l);
  if (use_kernel_arg(env, info, 1, k) != 0) return NULL;
  if (p8_permute_plain(&k->k, tmp) != 0) {
    napi_throw_range_error(env, NULL, "poseidon8 native: a value is not a canonical field element");
    return NULL;
  }
  for (int i = 0; i < P8_WIDTH; i++) memcpy(s + 4 * i, tmp[i].l, sizeof tmp[i].l);
  return NULL;
}

/* ---- BHP (bhp.c) ---- */

/* Marks the externals that hold a bhp_table, so that no other external is taken for one. */
static const napi_type_tag BHP_TABLE_TAG = {UINT64_C(0x8f6b0d1c2a3e4b57), UINT64_C(0xb4c1e2d3f5a69788)};

static void free_bhp_table(napi_env env, void *data, void *hint) {
  (void)env;
  (void)hint;
  bhp_table_free(data);
}

static const bhp_table *bhp_table_arg(napi_env env, napi_value v) {
  napi_valuetype t;
  bool tagged = false;
  void *data = NULL;
  if (napi_typeof(env, v, &t) != napi_ok || t != napi_external || napi_check_object_type_tag(env, v, &BHP_TABLE_TAG, &tagged) != napi_ok ||
      !tagged || napi_get_value_external(env, v, &data) != napi_ok || data == NULL) {
    napi_throw_type_error(env, NULL, "table must be a BHP table (bhpLoad)");
    return NULL;
  }
  return data;
}

/* Throws the JS error for a bhp.h error code; returns NULL (the callback's result). */
static napi_value bhp_throw(napi_env env, int rc) {
  switch (rc) {
    case BHP_E_TABLE: napi_throw_range_error(env, NULL, "bhp native: not a valid BHP table (points off the curve, non-canonical, or a wrong count)"); break;
    case BHP_E_BIT: napi_throw_range_error(env, NULL, "bhp native: a bit is neither 0 nor 1"); break;
    case BHP_E_LENGTH: napi_throw_range_error(env, NULL, "bhp native: the preimage is longer than one round of this hasher"); break;
    case BHP_E_IDENTITY: napi_throw_error(env, NULL, "bhp native: a sum has Z = 0"); break;
    case BHP_E_DEPTH: napi_throw_range_error(env, NULL, "bhp native: more leaves than the Merkle tree's depth holds (or a depth above 64)"); break;
    default: napi_throw_error(env, NULL, "bhp native: out of memory"); break;
  }
  return NULL;
}

/* 4 limbs as 32 little-endian bytes. */
static void words_to_bytes(uint8_t *out, const uint64_t w[4]) {
  for (int i = 0; i < 32; i++) out[i] = (uint8_t)(w[i / 8] >> (8 * (i % 8)));
}

static napi_value js_bhp_load(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value argv[2];
  CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 2) {
    napi_throw_type_error(env, NULL, "bhpLoad(points, domainBits)");
    return NULL;
  }
  size_t nwords = 0, ndomain = 0;
  const uint64_t *words = typed(env, argv[0], napi_biguint64_array, &nwords, "points must be a BigUint64Array");
  if (words == NULL) return NULL;
  const uint8_t *domain = typed(env, argv[1], napi_uint8_array, &ndomain, "domainBits must be a Uint8Array");
  if (domain == NULL) return NULL;
  if (nwords % 12 != 0 || ndomain != BHP_DOMAIN_BITS) {
    napi_throw_range_error(env, NULL, "bhpLoad: 12 limbs per point and 188 domain bits");
    return NULL;
  }
  int err = BHP_OK;
  bhp_table *t = bhp_table_load(words, nwords / 12, domain, &err);
  if (t == NULL) return bhp_throw(env, err);
  napi_value ext;
  if (napi_create_external(env, t, free_bhp_table, NULL, &ext) != napi_ok) {
    bhp_table_free(t);
    napi_throw_error(env, NULL, "bhp native: napi_create_external failed");
    return NULL;
  }
  CALL(env, napi_type_tag_object(env, ext, &BHP_TABLE_TAG));
  return ext;
}

static napi_value js_bhp_bits(napi_env env, napi_callback_info info) {
  size_t argc = 1;
  napi_value argv[1];
  CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  const bhp_table *t = argc < 1 ? NULL : bhp_table_arg(env, argv[0]);
  if (t == NULL) {
    if (argc < 1) napi_throw_type_error(env, NULL, "bhpBits(table)");
    return NULL;
  }
  napi_value n;
  CALL(env, napi_create_uint32(env, (uint32_t)bhp_table_bits(t), &n));
  return n;
}

/* (table, bits, out) of bhpHashRound and bhpHash; -1 with a thrown error otherwise. */
static int bhp_args3(napi_env env, napi_callback_info info, const char *usage, const bhp_table **t, const uint8_t **bits,
                     size_t *n, uint8_t **out) {
  size_t argc = 3;
  napi_value argv[3];
  if (napi_get_cb_info(env, info, &argc, argv, NULL, NULL) != napi_ok || argc < 3) {
    napi_throw_type_error(env, NULL, usage);
    return -1;
  }
  if ((*t = bhp_table_arg(env, argv[0])) == NULL) return -1;
  if ((*bits = typed(env, argv[1], napi_uint8_array, n, "bits must be a Uint8Array")) == NULL) return -1;
  size_t nout = 0;
  if ((*out = typed(env, argv[2], napi_uint8_array, &nout, "out must be a Uint8Array of 32 bytes")) == NULL) return -1;
  if (nout != 32) {
    napi_throw_range_error(env, NULL, "out must be a Uint8Array of 32 bytes");
    return -1;
  }
  return 0;
}

static napi_value js_bhp_hash_round(napi_env env, napi_callback_info info) {
  const bhp_table *t;
  const uint8_t *bits;
  size_t n;
  uint8_t *out;
  if (bhp_args3(env, info, "bhpHashRound(table, bits, out)", &t, &bits, &n, &out) != 0) return NULL;
  uint64_t w[4];
  int rc = bhp_hash_round(t, bits, n, w);
  if (rc != BHP_OK) return bhp_throw(env, rc);
  words_to_bytes(out, w);
  return NULL;
}

static napi_value js_bhp_hash(napi_env env, napi_callback_info info) {
  const bhp_table *t;
  const uint8_t *bits;
  size_t n;
  uint8_t *out;
  if (bhp_args3(env, info, "bhpHash(table, bits, out)", &t, &bits, &n, &out) != 0) return NULL;
  uint64_t w[4];
  int rc = bhp_hash(t, bits, n, w);
  if (rc != BHP_OK) return bhp_throw(env, rc);
  words_to_bytes(out, w);
  return NULL;
}

/* bits and layout (2 numbers per input, inside the bits); NULL with a thrown error otherwise. */
static const uint32_t *bhp_layout_arg(napi_env env, napi_value vbits, napi_value vlayout, const uint8_t **bits, size_t *count) {
  size_t nbits = 0, nlayout = 0;
  if ((*bits = typed(env, vbits, napi_uint8_array, &nbits, "bits must be a Uint8Array")) == NULL) return NULL;
  const uint32_t *layout = typed(env, vlayout, napi_uint32_array, &nlayout, "layout must be a Uint32Array");
  if (layout == NULL) return NULL;
  if (nlayout % 2 != 0) {
    napi_throw_range_error(env, NULL, "layout must hold 2 numbers (offset, bit count) per input");
    return NULL;
  }
  for (size_t i = 0; i < nlayout; i += 2) {
    if (layout[i] > nbits || layout[i + 1] > nbits - layout[i]) {
      napi_throw_range_error(env, NULL, "an input's bits lie outside the bits");
      return NULL;
    }
  }
  *count = nlayout / 2;
  return layout;
}

static napi_value js_bhp_hash_many(napi_env env, napi_callback_info info) {
  size_t argc = 4;
  napi_value argv[4];
  CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 4) {
    napi_throw_type_error(env, NULL, "bhpHashMany(table, bits, layout, out)");
    return NULL;
  }
  const bhp_table *t = bhp_table_arg(env, argv[0]);
  if (t == NULL) return NULL;
  const uint8_t *bits;
  size_t count = 0, nout = 0;
  const uint32_t *layout = bhp_layout_arg(env, argv[1], argv[2], &bits, &count);
  if (layout == NULL) return NULL;
  uint8_t *out = typed(env, argv[3], napi_uint8_array, &nout, "out must be a Uint8Array");
  if (out == NULL) return NULL;
  if (nout != 32 * count) {
    napi_throw_range_error(env, NULL, "out must hold 32 bytes per input");
    return NULL;
  }
  uint64_t *w = malloc(32 * count + 1);
  if (w == NULL) return bhp_throw(env, BHP_E_MEMORY);
  int rc = bhp_hash_many(t, bits, layout, count, w);
  if (rc == BHP_OK)
    for (size_t i = 0; i < count; i++) words_to_bytes(out + 32 * i, w + 4 * i);
  free(w);
  return rc == BHP_OK ? NULL : bhp_throw(env, rc);
}

static napi_value js_bhp_merkle_root(napi_env env, napi_callback_info info) {
  size_t argc = 6;
  napi_value argv[6];
  CALL(env, napi_get_cb_info(env, info, &argc, argv, NULL, NULL));
  if (argc < 6) {
    napi_throw_type_error(env, NULL, "bhpMerkleRoot(leafTable, nodeTable, depth, bits, layout, out)");
    return NULL;
  }
  const bhp_table *leaf = bhp_table_arg(env, argv[0]);
  if (leaf == NULL) return NULL;
  const bhp_table *node = bhp_table_arg(env, argv[1]);
  if (node == NULL) return NULL;
  uint32_t depth = 0;
  if (napi_get_value_uint32(env, argv[2], &depth) != napi_ok) {
    napi_throw_type_error(env, NULL, "depth must be a number");
    return NULL;
  }
  const uint8_t *bits;
  size_t count = 0, nout = 0;
  const uint32_t *layout = bhp_layout_arg(env, argv[3], argv[4], &bits, &count);
  if (layout == NULL) return NULL;
  uint8_t *out = typed(env, argv[5], napi_uint8_array, &nout, "out must be a Uint8Array of 32 bytes");
  if (out == NULL) return NULL;
  if (nout != 32) {
    napi_throw_range_error(env, NULL, "out must be a Uint8Array of 32 bytes");
    return NULL;
  }
  uint64_t w[4];
  int rc = bhp_merkle_root(leaf, node, depth, bits, layout, count, w);
  if (rc != BHP_OK) return bhp_throw(env, rc);
  words_to_bytes(out, w);
  return NULL;
}

NAPI_MODULE_INIT(/* napi_env env, napi_value exports */) {
  napi_property_descriptor props[] = {
      {"init", NULL, js_init, NULL, NULL, NULL, napi_enumerable, NULL},
      {"hash", NULL, js_hash, NULL, NULL, NULL, napi_enumerable, NULL},
      {"hashBits", NULL, js_hash_bits, NULL, NULL, NULL, napi_enumerable, NULL},
      {"hashBitsMany", NULL, js_hash_bits_many, NULL, NULL, NULL, napi_enumerable, NULL},
      {"permute", NULL, js_permute, NULL, NULL, NULL, napi_enumerable, NULL},
      {"kernels", NULL, js_kernels, NULL, NULL, NULL, napi_enumerable, NULL},
      {"bhpLoad", NULL, js_bhp_load, NULL, NULL, NULL, napi_enumerable, NULL},
      {"bhpBits", NULL, js_bhp_bits, NULL, NULL, NULL, napi_enumerable, NULL},
      {"bhpHashRound", NULL, js_bhp_hash_round, NULL, NULL, NULL, napi_enumerable, NULL},
      {"bhpHash", NULL, js_bhp_hash, NULL, NULL, NULL, napi_enumerable, NULL},
      {"bhpHashMany", NULL, js_bhp_hash_many, NULL, NULL, NULL, napi_enumerable, NULL},
      {"bhpMerkleRoot", NULL, js_bhp_merkle_root, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  if (napi_define_properties(env, exports, sizeof props / sizeof props[0], props) != napi_ok) return NULL;
  return exports;
}
