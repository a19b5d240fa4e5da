/*
 * N-API binding of the Poseidon8 kernel (poseidon8.c). Context-aware (NAPI_MODULE_INIT): each
 * environment (main thread, each worker thread) keeps its own constants as instance data.
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

NAPI_MODULE_INIT(/* napi_env env, napi_value exports */) {
  napi_property_descriptor props[] = {
      {"init", NULL, js_init, NULL, NULL, NULL, napi_enumerable, NULL},
      {"hash", NULL, js_hash, NULL, NULL, NULL, napi_enumerable, NULL},
      {"hashBits", NULL, js_hash_bits, NULL, NULL, NULL, napi_enumerable, NULL},
      {"hashBitsMany", NULL, js_hash_bits_many, NULL, NULL, NULL, napi_enumerable, NULL},
      {"permute", NULL, js_permute, NULL, NULL, NULL, napi_enumerable, NULL},
      {"kernels", NULL, js_kernels, NULL, NULL, NULL, napi_enumerable, NULL},
  };
  if (napi_define_properties(env, exports, sizeof props / sizeof props[0], props) != napi_ok) return NULL;
  return exports;
}
