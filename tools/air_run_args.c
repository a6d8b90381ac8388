/* air_run_args.c - air-run's arguments: what the command line says about each
 * parameter of the entry is checked against its signature before anything runs
 * (indices, types, numbers that must fit, shapes), then each argument is filled
 * (a .npy file, a number, seeded random values, or zeros with a warning) and the
 * requested outputs are written back after the run. */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "air_run.h"
#include "runtime/base/bf16.h"
#include "tool_util.h"

/* ---- element types ------------------------------------------------------ */

typedef struct elem_info_t {
  const char* name;  /* as AIR spells it */
  uint32_t size;     /* bytes per element in a buffer */
  char kind;         /* npy kind written for it */
  const char* accepts; /* npy kinds accepted on input */
} elem_info_t;

/* MLIR integers are signless, so a memref of iN accepts NumPy's signed or
 * unsigned N-bit arrays; outputs are written signed. bf16 has no NumPy dtype. */
static const elem_info_t* elem_info(uint32_t elem) {
  static const elem_info_t k_info[AIR_ELEMENT_COUNT] = {
      [AIR_ELEMENT_I1] = {"i1", 1, 'b', "bui"},
      [AIR_ELEMENT_I8] = {"i8", 1, 'i', "iu"},
      [AIR_ELEMENT_I16] = {"i16", 2, 'i', "iu"},
      [AIR_ELEMENT_I32] = {"i32", 4, 'i', "iu"},
      [AIR_ELEMENT_I64] = {"i64", 8, 'i', "iu"},
      [AIR_ELEMENT_INDEX] = {"index", 8, 'i', "iu"},
      [AIR_ELEMENT_F16] = {"f16", 2, 'f', "f"},
      [AIR_ELEMENT_BF16] = {"bf16", 2, 'u', "u"},
      [AIR_ELEMENT_F32] = {"f32", 4, 'f', "f"},
      [AIR_ELEMENT_F64] = {"f64", 8, 'f', "f"},
      /* signed / unsigned integers: their own NumPy kind */
      [AIR_ELEMENT_SI8] = {"si8", 1, 'i', "i"},
      [AIR_ELEMENT_SI16] = {"si16", 2, 'i', "i"},
      [AIR_ELEMENT_SI32] = {"si32", 4, 'i', "i"},
      [AIR_ELEMENT_SI64] = {"si64", 8, 'i', "i"},
      [AIR_ELEMENT_UI8] = {"ui8", 1, 'u', "u"},
      [AIR_ELEMENT_UI16] = {"ui16", 2, 'u', "u"},
      [AIR_ELEMENT_UI32] = {"ui32", 4, 'u', "u"},
      [AIR_ELEMENT_UI64] = {"ui64", 8, 'u', "u"},
  };
  if (elem == AIR_ELEMENT_NONE || elem >= AIR_ELEMENT_COUNT) return NULL;
  return &k_info[elem];
}

const char* run_arg_type_string(const air_arg_t* a, char* buf, size_t len) {
  const elem_info_t* ei = elem_info(a->elem);
  const char* en = ei ? ei->name : "?";
  if (a->kind != AIR_ARG_MEMREF) {
    snprintf(buf, len, "%s", en);
    return buf;
  }
  size_t n = (size_t)snprintf(buf, len, "memref<");
  for (uint32_t d = 0; d < a->memref.rank && n < len; ++d) {
    if (a->memref.sizes[d] < 0)
      n += (size_t)snprintf(buf + n, len - n, "?x");
    else
      n += (size_t)snprintf(buf + n, len - n, "%lldx", (long long)a->memref.sizes[d]);
  }
  if (n < len) snprintf(buf + n, len - n, "%s>", en);
  return buf;
}

/* ---- random values ------------------------------------------------------ */

static uint64_t splitmix64(uint64_t* state) {
  uint64_t z = (*state += 0x9e3779b97f4a7c15ull);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/* IEEE half from a float (round to nearest even), enough for values in [-1, 1). */
static uint16_t f32_to_f16(float f) {
  uint32_t x;
  memcpy(&x, &f, 4);
  uint16_t sign = (uint16_t)((x >> 16) & 0x8000u);
  float a = fabsf(f);
  if (a >= 65520.0f) return sign | 0x7c00u;
  if (a < 6.103515625e-05f) { /* subnormal: units of 2^-24 */
    float units = a * 16777216.0f;
    return sign | (uint16_t)lrintf(units);
  }
  int e;
  float m = frexpf(a, &e); /* a = m * 2^e, m in [0.5, 1) */
  long mant = lrintf(m * 2048.0f); /* 11 significant bits, implicit one included */
  if (mant == 2048) {
    mant = 1024;
    ++e;
  }
  uint16_t exp = (uint16_t)(e - 1 + 15);
  return sign | (uint16_t)(exp << 10) | (uint16_t)(mant - 1024);
}

/* Fills `count` elements deterministically from (seed, argument index): an
 * argument's values do not depend on which other arguments are random. */
static void fill_random(void* data, uint64_t count, uint32_t elem, uint64_t seed, uint32_t index) {
  uint64_t st = seed * 0x2545f4914f6cdd1dull + (uint64_t)(index + 1) * 0x9e3779b97f4a7c15ull;
  unsigned char* p = data;
  for (uint64_t i = 0; i < count; ++i) {
    uint64_t r = splitmix64(&st);
    /* Floats on a 2^-23 grid (2^-52 for f64): exact in their type, [-1, 1). */
    float f = (float)((double)(r >> 40) * (1.0 / 8388608.0) - 1.0);
    int64_t small = (int64_t)(r >> 60) - 8; /* [-8, 8) */
    switch (elem) {
      case AIR_ELEMENT_I1: p[i] = (unsigned char)(r >> 63); break;
      case AIR_ELEMENT_I8: case AIR_ELEMENT_SI8: ((int8_t*)p)[i] = (int8_t)small; break;
      case AIR_ELEMENT_I16: case AIR_ELEMENT_SI16:
        ((int16_t*)(void*)p)[i] = (int16_t)small;
        break;
      case AIR_ELEMENT_I32: case AIR_ELEMENT_SI32:
        ((int32_t*)(void*)p)[i] = (int32_t)small;
        break;
      case AIR_ELEMENT_I64: case AIR_ELEMENT_SI64:
      case AIR_ELEMENT_INDEX: ((int64_t*)(void*)p)[i] = small; break;
      /* unsigned: [0, 8) */
      case AIR_ELEMENT_UI8: p[i] = (unsigned char)(small + 8) / 2; break;
      case AIR_ELEMENT_UI16: ((uint16_t*)(void*)p)[i] = (uint16_t)((small + 8) / 2); break;
      case AIR_ELEMENT_UI32: ((uint32_t*)(void*)p)[i] = (uint32_t)((small + 8) / 2); break;
      case AIR_ELEMENT_UI64: ((uint64_t*)(void*)p)[i] = (uint64_t)((small + 8) / 2); break;
      case AIR_ELEMENT_F16: ((uint16_t*)(void*)p)[i] = f32_to_f16(f); break;
      case AIR_ELEMENT_BF16: ((uint16_t*)(void*)p)[i] = air_bf16_from_f32(f); break;
      case AIR_ELEMENT_F32: ((float*)(void*)p)[i] = f; break;
      case AIR_ELEMENT_F64:
        ((double*)(void*)p)[i] = (double)(r >> 11) * (1.0 / 4503599627370496.0) - 1.0;
        break;
      default: break;
    }
  }
}

static const arg_spec_t* find_input(const run_options_t* o, uint32_t index) {
  for (uint32_t k = 0; k < o->n_inputs; ++k)
    if (o->inputs[k].index == index) return &o->inputs[k];
  return NULL;
}

/* The values a scalar of this type holds, for range checks and messages. MLIR
 * integers are signless, so iN takes -2^(N-1) .. 2^N - 1 (either reading of its
 * bits); an index is a size or a position here and never negative. */
static void int_range(uint32_t elem, int64_t* lo, uint64_t* hi) {
  switch (elem) {
    case AIR_ELEMENT_I1: *lo = 0; *hi = 1; break;
    case AIR_ELEMENT_I8: *lo = INT8_MIN; *hi = UINT8_MAX; break;
    case AIR_ELEMENT_I16: *lo = INT16_MIN; *hi = UINT16_MAX; break;
    case AIR_ELEMENT_I32: *lo = INT32_MIN; *hi = UINT32_MAX; break;
    case AIR_ELEMENT_INDEX: *lo = 0; *hi = INT64_MAX; break;
    case AIR_ELEMENT_SI8: *lo = INT8_MIN; *hi = INT8_MAX; break;
    case AIR_ELEMENT_SI16: *lo = INT16_MIN; *hi = INT16_MAX; break;
    case AIR_ELEMENT_SI32: *lo = INT32_MIN; *hi = INT32_MAX; break;
    case AIR_ELEMENT_SI64: *lo = INT64_MIN; *hi = INT64_MAX; break;
    case AIR_ELEMENT_UI8: *lo = 0; *hi = UINT8_MAX; break;
    case AIR_ELEMENT_UI16: *lo = 0; *hi = UINT16_MAX; break;
    case AIR_ELEMENT_UI32: *lo = 0; *hi = UINT32_MAX; break;
    case AIR_ELEMENT_UI64: *lo = 0; *hi = UINT64_MAX; break;
    default: *lo = INT64_MIN; *hi = UINT64_MAX; break;
  }
}

static double float_max(uint32_t elem) {
  switch (elem) {
    case AIR_ELEMENT_F16: return 65504.0;
    case AIR_ELEMENT_BF16: return 3.3895313892515355e38;
    case AIR_ELEMENT_F32: return FLT_MAX;
    default: return DBL_MAX;
  }
}

/* Parses a number given for a scalar argument: 0 when it is one that fits (b
 * set), -1 when it is no number (it may be a .npy file), 1 when it is a number the
 * type cannot hold (`why` says which values it can). */
static int parse_scalar_literal(const char* s, const air_arg_t* param, air_binding_t* b,
                                char* why, size_t why_len) {
  char ty[64];
  run_arg_type_string(param, ty, sizeof ty);
  char* end = NULL;
  errno = 0;
  if (param->kind == AIR_ARG_FLOAT) {
    double v = strtod(s, &end);
    if (end == s || *end) return -1;
    double max = float_max(param->elem);
    /* inf and nan are taken when spelled so; a finite number that overflows is not. */
    int spelled_inf = strpbrk(s, "iInN") != NULL;
    if ((errno == ERANGE && fabs(v) > 1.0) || (isfinite(v) && fabs(v) > max) ||
        (isinf(v) && !spelled_inf)) {
      snprintf(why, why_len, "%s holds finite values up to %g in magnitude", ty, max);
      return 1;
    }
    b->f = v;
    return 0;
  }
  int64_t lo;
  uint64_t hi;
  int_range(param->elem, &lo, &hi);
  if (strcmp(s, "true") == 0 || strcmp(s, "false") == 0) {
    b->i = s[0] == 't';
    return 0;
  }
  const char* digits = s[0] == '-' || s[0] == '+' ? s + 1 : s;
  if (*digits < '0' || *digits > '9') return -1;
  int in_range = 1;
  if (s[0] == '-') {
    long long v = strtoll(s, &end, 0);
    if (end == s || *end) return -1;
    in_range = errno != ERANGE && v >= lo;
    b->i = v;
  } else {
    unsigned long long v = strtoull(s, &end, 0);
    if (end == s || *end) return -1;
    in_range = errno != ERANGE && v <= hi;
    b->i = (int64_t)v; /* the bits; a signless integer reads them either way */
  }
  if (in_range) return 0;
  if (param->elem == AIR_ELEMENT_INDEX)
    snprintf(why, why_len, "an index here is a size or a position: 0 to %llu",
             (unsigned long long)hi);
  else
    snprintf(why, why_len, "%s holds %lld to %llu", ty, (long long)lo, (unsigned long long)hi);
  return 1;
}

/* Checks an .npy array against a memref parameter; 0 when it fits. */
static int check_array(const char* path, const npy_array_t* a, const air_arg_t* param,
                       uint32_t index, const char* entry) {
  const elem_info_t* ei = elem_info(param->elem);
  int ok = ei && a->itemsize == ei->size && strchr(ei->accepts, a->kind) != NULL;
  uint32_t rank = param->kind == AIR_ARG_MEMREF ? param->memref.rank : 0;
  int shape_ok = a->rank == rank;
  for (uint32_t d = 0; shape_ok && d < rank; ++d) shape_ok = a->shape[d] == param->memref.sizes[d];
  if (param->kind != AIR_ARG_MEMREF) /* a scalar: () or (1,) */
    shape_ok = a->count == 1 && a->rank <= 1;
  if (ok && shape_ok) return 0;
  char have_dt[8], have_sh[NPY_MAX_RANK * 24], want_dt[8], want_sh[AIR_MAX_RANK * 24], ty[256];
  int64_t one = 1;
  npy_dtype_string(a->kind, a->itemsize, have_dt);
  npy_shape_string(a->rank, a->shape, have_sh, sizeof have_sh);
  if (ei)
    npy_dtype_string(ei->kind, ei->size, want_dt);
  else
    snprintf(want_dt, sizeof want_dt, "?");
  if (param->kind == AIR_ARG_MEMREF)
    npy_shape_string(rank, param->memref.sizes, want_sh, sizeof want_sh);
  else
    npy_shape_string(0, &one, want_sh, sizeof want_sh);
  const char* what = !ok && !shape_ok ? "dtype and shape mismatch" : !ok ? "dtype mismatch"
                                                                        : "shape mismatch";
  return tool_error(-1, path,
                    "%s: the file holds dtype '%s' with shape %s, but argument %u of @%s is "
                    "%s, which needs dtype '%s' with shape %s%s",
                    what, have_dt, have_sh, index, entry,
                    run_arg_type_string(param, ty, sizeof ty), want_dt, want_sh,
                    param->elem == AIR_ELEMENT_BF16 ? " (bf16 travels as its raw bits, '<u2')"
                                                    : "");
}

/* The most bytes a .npy file for `param` can have: its data plus room for any
 * header NumPy writes. Reading stops there, so /dev/zero or a huge file given by
 * mistake is an error naming the argument, not a machine out of memory. */
static uint64_t npy_limit(uint64_t data_bytes) {
  return data_bytes > UINT64_MAX / 2 ? UINT64_MAX / 2 : data_bytes + ((uint64_t)1 << 20);
}

static uint64_t memref_bytes(const air_arg_t* param) {
  const elem_info_t* ei = elem_info(param->elem);
  uint64_t n = ei ? ei->size : 8;
  for (uint32_t d = 0; d < param->memref.rank; ++d) {
    uint64_t s = param->memref.sizes[d] > 0 ? (uint64_t)param->memref.sizes[d] : 0;
    if (s && n > UINT64_MAX / s) return UINT64_MAX / 2;
    n *= s;
  }
  return n;
}

static int read_npy(const char* path, const air_arg_t* param, uint32_t index, const char* entry,
                    npy_array_t* out) {
  char err[512], ty[256];
  uint64_t data = param->kind == AIR_ARG_MEMREF ? memref_bytes(param) : 8;
  uint64_t limit = npy_limit(data);
  int too_big = 0;
  if (npy_read_file_limited(path, limit, out, err, sizeof err, &too_big)) {
    if (too_big)
      return tool_error(TOOL_EXIT_FAILURE, path,
                        "the file is larger than argument %u of @%s can take (%s, %llu bytes "
                        "of data)", index, entry, run_arg_type_string(param, ty, sizeof ty),
                        (unsigned long long)data);
    if (param->kind != AIR_ARG_MEMREF)
      return tool_error(TOOL_EXIT_FAILURE, path,
                        "%s (argument %u is a scalar %s: give a number or a .npy file)", err,
                        index, run_arg_type_string(param, ty, sizeof ty));
    return tool_error(TOOL_EXIT_FAILURE, path, "%s", err);
  }
  return 0;
}

int run_check_arguments(const run_state_t* r, const run_options_t* o, const char* display) {
  const char* entry = r->entry_name ? r->entry_name : "entry";
  char ty[256], why[160];
  int rc = 0;
  for (uint32_t k = 0; k < o->n_inputs + o->n_outputs; ++k) {
    const arg_spec_t* a = k < o->n_inputs ? &o->inputs[k] : &o->outputs[k - o->n_inputs];
    if (a->is_result) {
      rc = tool_error(TOOL_EXIT_FAILURE, display,
                      "%s r%u=...: @%s returns no memref (results are not supported by "
                      "air-run yet; pass the memref as an argument)",
                      a->option, a->index, entry);
      continue;
    }
    if (a->index >= r->n_params) {
      rc = tool_error(TOOL_EXIT_FAILURE, display, "%s %u=...: @%s has %u argument%s%s",
                      a->option, a->index, entry, r->n_params, r->n_params == 1 ? "" : "s",
                      r->n_params ? " (numbered from 0)" : "");
      continue;
    }
    const air_arg_t* p = &r->params[a->index];
    if (k >= o->n_inputs && p->kind != AIR_ARG_MEMREF) {
      rc = tool_error(TOOL_EXIT_FAILURE, display,
                      "--output %u=...: argument %u of @%s is a scalar %s; only memrefs are "
                      "written back",
                      a->index, a->index, entry, run_arg_type_string(p, ty, sizeof ty));
      continue;
    }
    if (k < o->n_inputs && p->kind != AIR_ARG_MEMREF) {
      air_binding_t b;
      if (parse_scalar_literal(a->value, p, &b, why, sizeof why) == 1)
        rc = tool_error(TOOL_EXIT_FAILURE, display,
                        "--input %u=%s: argument %u of @%s does not take it: %s", a->index,
                        a->value, a->index, entry, why);
    }
  }
  for (uint32_t i = 0; i < r->n_params; ++i) {
    const air_arg_t* p = &r->params[i];
    if (p->kind == AIR_ARG_MEMREF) {
      for (uint32_t d = 0; d < p->memref.rank; ++d)
        if (p->memref.sizes[d] < 0) {
          rc = tool_error(TOOL_EXIT_FAILURE, display,
                          "argument %u of @%s is %s: dynamic shapes cannot be run yet", i,
                          entry, run_arg_type_string(p, ty, sizeof ty));
          break;
        }
      if (!elem_info(p->elem))
        rc = tool_error(TOOL_EXIT_FAILURE, display,
                        "argument %u of @%s has an element type air-run cannot fill", i, entry);
    }
  }
  return rc;
}

static int is_output(const run_options_t* o, uint32_t index) {
  for (uint32_t k = 0; k < o->n_outputs; ++k)
    if (!o->outputs[k].is_result && o->outputs[k].index == index) return 1;
  return 0;
}

int run_prepare_argument(run_state_t* r, const run_options_t* o, uint32_t i) {
  const air_arg_t* param = &r->params[i];
  const arg_spec_t* in = find_input(o, i);
  const char* entry = r->entry_name ? r->entry_name : "?";
  air_binding_t* b = &r->bindings[i];
  char err[512], ty[256], why[160];
  run_arg_type_string(param, ty, sizeof ty);
  if (param->kind != AIR_ARG_MEMREF) {
    if (in) {
      if (parse_scalar_literal(in->value, param, b, why, sizeof why) >= 0) return 0;
      npy_array_t a;
      if (read_npy(in->value, param, i, entry, &a)) return TOOL_EXIT_FAILURE;
      if (check_array(in->value, &a, param, i, entry)) {
        npy_free(&a);
        return TOOL_EXIT_FAILURE;
      }
      const unsigned char* p = a.data;
      switch (param->elem) {
        case AIR_ELEMENT_F32: { float v; memcpy(&v, p, 4); b->f = v; break; }
        case AIR_ELEMENT_F64: { double v; memcpy(&v, p, 8); b->f = v; break; }
        case AIR_ELEMENT_I1:
        case AIR_ELEMENT_I8: case AIR_ELEMENT_SI8: case AIR_ELEMENT_UI8:
          b->i = a.kind == 'i' ? (int8_t)p[0] : p[0];
          break;
        case AIR_ELEMENT_I16: case AIR_ELEMENT_SI16: { int16_t v; memcpy(&v, p, 2); b->i = v; break; }
        case AIR_ELEMENT_UI16: { uint16_t v; memcpy(&v, p, 2); b->i = v; break; }
        case AIR_ELEMENT_I32: case AIR_ELEMENT_SI32: { int32_t v; memcpy(&v, p, 4); b->i = v; break; }
        case AIR_ELEMENT_UI32: { uint32_t v; memcpy(&v, p, 4); b->i = v; break; }
        default: { int64_t v; memcpy(&v, p, 8); b->i = v; break; }
        case AIR_ELEMENT_F16:
        case AIR_ELEMENT_BF16:
          npy_free(&a);
          return tool_error(TOOL_EXIT_FAILURE, in->value,
                            "give %s scalar argument %u as a number", ty, i);
      }
      npy_free(&a);
      if (param->elem == AIR_ELEMENT_INDEX && b->i < 0)
        return tool_error(TOOL_EXIT_FAILURE, in->value,
                          "argument %u of @%s is an index (a size or a position) and the file "
                          "holds %lld", i, entry, (long long)b->i);
    } else if (o->random) {
      uint64_t st = o->seed * 0x2545f4914f6cdd1dull + (uint64_t)(i + 1) * 0x9e3779b97f4a7c15ull;
      uint64_t v = splitmix64(&st);
      if (param->kind == AIR_ARG_FLOAT)
        b->f = (double)(v >> 40) * (1.0 / 8388608.0) - 1.0;
      else if (param->elem == AIR_ELEMENT_I1)
        b->i = (int64_t)(v >> 63);
      else if (param->elem == AIR_ELEMENT_INDEX)
        b->i = (int64_t)(v >> 61); /* [0, 8): an index is never negative */
      else
        b->i = (int64_t)(v >> 60) - 8;
    } else {
      tool_warning("air-run",
                   "argument %u of @%s (%s) has no --input: it is 0 (give --input %u=NUMBER, "
                   "or --random)", i, entry, ty, i);
    }
    if (o->verbose)
      fprintf(stderr, "air-run: argument %u: %s = %g%s\n", i, ty,
              param->kind == AIR_ARG_FLOAT ? b->f : (double)b->i,
              in ? "" : o->random ? " (random)" : " (default)");
    return 0;
  }

  const elem_info_t* ei = elem_info(param->elem);
  npy_array_t* host = &r->host[i];
  if (in) {
    if (read_npy(in->value, param, i, entry, host)) return TOOL_EXIT_FAILURE;
    if (check_array(in->value, host, param, i, entry)) return TOOL_EXIT_FAILURE;
  } else {
    if (npy_alloc(host, ei->kind, ei->size, param->memref.rank, param->memref.sizes, err,
                  sizeof err))
      return tool_error(TOOL_EXIT_FAILURE, o->file, "argument %u of @%s: %s", i, entry, err);
    if (o->random)
      fill_random(host->data, host->count, param->elem, o->seed, i);
    else if (!is_output(o, i))
      /* An argument only written back is likely a result buffer; one nobody gives
       * or takes is likely a forgotten input. */
      tool_warning("air-run",
                   "argument %u of @%s (%s) has no --input: it starts as zeros (give --input "
                   "%u=PATH.npy, or --random)", i, entry, ty, i);
  }
  if (o->verbose)
    fprintf(stderr, "air-run: argument %u: %s <- %s\n", i, ty,
            in ? in->value : o->random ? "random" : "zeros");
  return 0;
}

/* `path` with its first `{rank}` replaced by the rank's number. */
static int rank_path(const char* path, uint32_t rank, char* buf, size_t len) {
  const char* at = strstr(path, "{rank}");
  int n = snprintf(buf, len, "%.*s%u%s", (int)(at - path), path, rank, at + 6);
  return n < 0 || (size_t)n >= len;
}

int run_write_output(run_state_t* r, const run_options_t* o, const arg_spec_t* out) {
  uint32_t i = out->index;
  const air_arg_t* param = &r->params[i];
  npy_array_t* host = &r->host[i];
  char err[512];
  /* Write with the memref's own dtype (an input may have been unsigned). */
  const elem_info_t* ei = elem_info(param->elem);
  host->kind = ei->kind;
  if (strstr(out->value, "{rank}") && air_rank_copies_count(r->rank_copies)) {
    /* One file per rank this process ran: each rank's own copy. */
    uint32_t first = 0, end = 0;
    air_rank_copies_local(r->rank_copies, &first, &end);
    for (uint32_t k = first; k < end; ++k) {
      char path[4096];
      if (rank_path(out->value, k, path, sizeof path))
        return tool_error(TOOL_EXIT_FAILURE, out->value, "output path too long");
      air_status_t s = air_rank_copies_read(r->rank_copies, i, k, 0, host->data, host->nbytes);
      if (s) return tool_fail_status(path, s);
      if (npy_write_file(path, host, err, sizeof err))
        return tool_error(TOOL_EXIT_FAILURE, path, "%s", err);
      if (o->verbose) fprintf(stderr, "air-run: wrote rank %u's argument %u to %s\n", k, i, path);
    }
    return 0;
  }
  /* Under mpirun every process holds a copy of the buffer (its first rank's);
   * rank 0's, the one a plain path names, is process 0's. */
  if (r->transport && r->transport->process != 0) return 0;
  void* ptr = NULL;
  air_status_t s = air_buffer_map(r->buffers[i], 0, host->nbytes, AIR_MAP_READ, &ptr);
  if (s) return tool_fail_status(out->value, s);
  if (host->nbytes) memcpy(host->data, ptr, (size_t)host->nbytes);
  air_buffer_unmap(r->buffers[i], ptr);
  char one[4096];
  const char* path = out->value;
  if (strstr(path, "{rank}")) { /* no air.rank ran: the program is rank 0 */
    if (rank_path(out->value, 0, one, sizeof one))
      return tool_error(TOOL_EXIT_FAILURE, out->value, "output path too long");
    path = one;
  }
  if (npy_write_file(path, host, err, sizeof err))
    return tool_error(TOOL_EXIT_FAILURE, path, "%s", err);
  if (o->verbose) fprintf(stderr, "air-run: wrote argument %u to %s\n", i, path);
  return 0;
}
