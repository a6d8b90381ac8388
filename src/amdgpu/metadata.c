/* metadata.c - the NT_AMDGPU_METADATA note (code objects v3+): a MessagePack map
 * {amdhsa.version, amdhsa.target, amdhsa.kernels: [{.name, .symbol, sizes,
 * register counts, .args: [{.offset, .size, .value_kind, ...}]}]}.
 *
 * msgpack-c decodes it. Before it does, frame_ok() walks the bytes once checking
 * only the framing (type bytes, lengths, item counts): msgpack-c allocates an
 * array or map as soon as it reads its count, so a 20-byte note claiming four
 * billion elements would make it ask for ~100 GB. After the walk every count is
 * bounded by the bytes that remain, so its allocations stay proportional to the
 * note's size. */
#include <msgpack.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "amdgpu/code_object.h"
#include "runtime/base/mem.h"
#include "runtime/base/status_util.h"

static uint64_t be(const uint8_t* p, int n) {
  uint64_t v = 0;
  for (int i = 0; i < n; ++i) v = v << 8 | p[i];
  return v;
}

/* The framing of exactly one MessagePack value in [p, p+n) (trailing bytes are
 * allowed: notes are padded). Iterative: `pending` counts the values still to come,
 * and can never exceed the bytes left, each value taking at least one byte. */
static bool frame_ok(const uint8_t* p, size_t n) {
  size_t at = 0;
  uint64_t pending = 1;
  while (pending) {
    if (at >= n) return false;
    uint8_t t = p[at];
    size_t head = 1;      /* type byte and length fields */
    uint64_t payload = 0; /* bytes after the head */
    uint64_t items = 0;   /* values that follow (containers) */
    if (t <= 0x7f || t >= 0xe0 || t == 0xc0 || t == 0xc2 || t == 0xc3) {
    } else if (t <= 0x8f) {
      items = 2u * (t & 0x0fu);
    } else if (t <= 0x9f) {
      items = t & 0x0fu;
    } else if (t <= 0xbf) {
      payload = t & 0x1fu;
    } else {
      static const uint8_t k_fixed[] = {
          /* c4..df, by type byte - 0xc4: head length (low nibble) and kind (high) */
          0x11, 0x12, 0x14,       /* bin8/16/32: length field 1/2/4 */
          0x21, 0x22, 0x24,       /* ext8/16/32: length field + 1 type byte */
          0x04, 0x08,             /* float32/64: payload */
          0x01, 0x02, 0x04, 0x08, /* uint8..64 */
          0x01, 0x02, 0x04, 0x08, /* int8..64 */
          0x32, 0x33, 0x35, 0x39, 0x41, /* fixext1/2/4/8/16: type byte + data */
          0x11, 0x12, 0x14,       /* str8/16/32 */
          0x52, 0x54,             /* array16/32 */
          0x62, 0x64,             /* map16/32 */
      };
      if (t == 0xc1) return false; /* never used */
      uint8_t k = k_fixed[t - 0xc4], kind = k >> 4, w = k & 0x0f;
      switch (kind) {
        case 0: payload = w; break;
        case 1: case 2: case 5: case 6:
          head += w;
          if (n - at < head) return false;
          if (kind == 1) payload = be(p + at + 1, w);
          if (kind == 2) payload = be(p + at + 1, w) + 1;
          if (kind == 5) items = be(p + at + 1, w);
          if (kind == 6) items = 2 * be(p + at + 1, w);
          break;
        case 3: payload = (uint64_t)w - 1; head += 1; break; /* fixext: type + data */
        case 4: payload = 16; head += 1; break;
      }
    }
    if (n - at < head || n - at - head < payload) return false;
    at += head + (size_t)payload;
    pending += items;
    pending -= 1;
    if (pending > n - at) return false;
  }
  return true;
}

typedef struct dec_t {
  const air_allocator_t* a;
  const char* name;
  air_amdgpu_code_object_t* co;
} dec_t;

static air_status_t bad(const dec_t* d, const char* fmt, ...) __attribute__((format(printf, 2, 3)));
static air_status_t bad(const dec_t* d, const char* fmt, ...) {
  char msg[400];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return AIR_STATUS(d->a, AIR_STATUS_DATA_LOSS, "%s: AMDGPU metadata: %s", d->name, msg);
}

static bool key_is(const msgpack_object* k, const char* s) {
  size_t n = strlen(s);
  return k->type == MSGPACK_OBJECT_STR && k->via.str.size == n && memcmp(k->via.str.ptr, s, n) == 0;
}

static air_status_t get_u32(const dec_t* d, const msgpack_object* v, const char* what,
                            uint32_t* out) {
  if (v->type != MSGPACK_OBJECT_POSITIVE_INTEGER || v->via.u64 > UINT32_MAX)
    return bad(d, "%s is not an unsigned 32-bit integer", what);
  *out = (uint32_t)v->via.u64;
  return NULL;
}

/* A NUL-terminated arena copy of a string value. */
static air_status_t get_str(const dec_t* d, const msgpack_object* v, const char* what,
                            const char** out) {
  if (v->type != MSGPACK_OBJECT_STR) return bad(d, "%s is not a string", what);
  char* s = air_arena_alloc(&d->co->arena, (size_t)v->via.str.size + 1);
  if (!s) return AIR_STATUS_OOM(d->a, "code-object metadata");
  memcpy(s, v->via.str.ptr, v->via.str.size);
  if (memchr(s, '\0', v->via.str.size)) return bad(d, "%s contains a NUL byte", what);
  *out = s;
  return NULL;
}

static const struct {
  const char* spelling;
  air_amdgpu_arg_kind_t kind;
} k_kinds[] = {
    {"by_value", AIR_AMDGPU_ARG_BY_VALUE},
    {"global_buffer", AIR_AMDGPU_ARG_GLOBAL_BUFFER},
    {"dynamic_shared_pointer", AIR_AMDGPU_ARG_DYNAMIC_SHARED_POINTER},
    {"hidden_global_offset_x", AIR_AMDGPU_ARG_HIDDEN_GLOBAL_OFFSET_X},
    {"hidden_global_offset_y", AIR_AMDGPU_ARG_HIDDEN_GLOBAL_OFFSET_Y},
    {"hidden_global_offset_z", AIR_AMDGPU_ARG_HIDDEN_GLOBAL_OFFSET_Z},
    {"hidden_block_count_x", AIR_AMDGPU_ARG_HIDDEN_BLOCK_COUNT_X},
    {"hidden_block_count_y", AIR_AMDGPU_ARG_HIDDEN_BLOCK_COUNT_Y},
    {"hidden_block_count_z", AIR_AMDGPU_ARG_HIDDEN_BLOCK_COUNT_Z},
    {"hidden_group_size_x", AIR_AMDGPU_ARG_HIDDEN_GROUP_SIZE_X},
    {"hidden_group_size_y", AIR_AMDGPU_ARG_HIDDEN_GROUP_SIZE_Y},
    {"hidden_group_size_z", AIR_AMDGPU_ARG_HIDDEN_GROUP_SIZE_Z},
    {"hidden_remainder_x", AIR_AMDGPU_ARG_HIDDEN_REMAINDER_X},
    {"hidden_remainder_y", AIR_AMDGPU_ARG_HIDDEN_REMAINDER_Y},
    {"hidden_remainder_z", AIR_AMDGPU_ARG_HIDDEN_REMAINDER_Z},
    {"hidden_grid_dims", AIR_AMDGPU_ARG_HIDDEN_GRID_DIMS},
    {"hidden_none", AIR_AMDGPU_ARG_HIDDEN_NONE},
};

static air_amdgpu_arg_kind_t kind_of(const char* s) {
  for (size_t i = 0; i < sizeof k_kinds / sizeof k_kinds[0]; ++i)
    if (!strcmp(s, k_kinds[i].spelling)) return k_kinds[i].kind;
  return strncmp(s, "hidden_", 7) == 0 ? AIR_AMDGPU_ARG_HIDDEN_OTHER : AIR_AMDGPU_ARG_OTHER;
}

static air_status_t decode_arg(const dec_t* d, const msgpack_object* m, uint32_t k, uint32_t i,
                               air_amdgpu_arg_t* arg) {
  if (m->type != MSGPACK_OBJECT_MAP) return bad(d, "kernel %u argument %u is not a map", k, i);
  bool have_offset = false, have_size = false;
  for (uint32_t j = 0; j < m->via.map.size; ++j) {
    const msgpack_object* key = &m->via.map.ptr[j].key;
    const msgpack_object* v = &m->via.map.ptr[j].val;
    if (key_is(key, ".offset")) {
      AIR_RETURN_IF_ERROR(get_u32(d, v, ".args[].offset", &arg->offset));
      have_offset = true;
    } else if (key_is(key, ".size")) {
      AIR_RETURN_IF_ERROR(get_u32(d, v, ".args[].size", &arg->size));
      have_size = true;
    } else if (key_is(key, ".value_kind")) {
      AIR_RETURN_IF_ERROR(get_str(d, v, ".args[].value_kind", &arg->value_kind));
    } else if (key_is(key, ".name")) {
      AIR_RETURN_IF_ERROR(get_str(d, v, ".args[].name", &arg->name));
    } else if (key_is(key, ".type_name")) {
      AIR_RETURN_IF_ERROR(get_str(d, v, ".args[].type_name", &arg->type_name));
    } else if (key_is(key, ".address_space")) {
      AIR_RETURN_IF_ERROR(get_str(d, v, ".args[].address_space", &arg->address_space));
    }
  }
  if (!have_offset || !have_size || !arg->value_kind)
    return bad(d, "kernel %u argument %u lacks .offset, .size or .value_kind", k, i);
  arg->kind = kind_of(arg->value_kind);
  return NULL;
}

/* Where each required kernel field lands. */
#define KFIELD(key, field) {key, offsetof(air_amdgpu_kernel_t, field)}
static const struct {
  const char* key;
  size_t at;
} k_u32_fields[] = {
    KFIELD(".kernarg_segment_size", kernarg_segment_size),
    KFIELD(".kernarg_segment_align", kernarg_segment_align),
    KFIELD(".group_segment_fixed_size", group_segment_fixed_size),
    KFIELD(".private_segment_fixed_size", private_segment_fixed_size),
    KFIELD(".wavefront_size", wavefront_size),
    KFIELD(".sgpr_count", sgpr_count),
    KFIELD(".vgpr_count", vgpr_count),
    KFIELD(".agpr_count", agpr_count),
    KFIELD(".max_flat_workgroup_size", max_flat_workgroup_size),
};
enum { REQUIRED_U32 = 7 }; /* the first seven are required */

static air_status_t decode_kernel(const dec_t* d, const msgpack_object* m, uint32_t k,
                                  air_amdgpu_kernel_t* kern) {
  if (m->type != MSGPACK_OBJECT_MAP) return bad(d, "kernel %u is not a map", k);
  uint32_t seen = 0;
  const msgpack_object* args = NULL;
  for (uint32_t j = 0; j < m->via.map.size; ++j) {
    const msgpack_object* key = &m->via.map.ptr[j].key;
    const msgpack_object* v = &m->via.map.ptr[j].val;
    if (key_is(key, ".name")) {
      AIR_RETURN_IF_ERROR(get_str(d, v, ".name", &kern->name));
    } else if (key_is(key, ".symbol")) {
      AIR_RETURN_IF_ERROR(get_str(d, v, ".symbol", &kern->symbol));
    } else if (key_is(key, ".args")) {
      if (v->type != MSGPACK_OBJECT_ARRAY) return bad(d, "kernel %u: .args is not an array", k);
      args = v;
    } else if (key_is(key, ".uses_dynamic_stack")) {
      if (v->type != MSGPACK_OBJECT_BOOLEAN)
        return bad(d, "kernel %u: .uses_dynamic_stack is not a boolean", k);
      kern->uses_dynamic_stack = v->via.boolean;
    } else {
      for (uint32_t f = 0; f < sizeof k_u32_fields / sizeof k_u32_fields[0]; ++f) {
        if (!key_is(key, k_u32_fields[f].key)) continue;
        AIR_RETURN_IF_ERROR(
            get_u32(d, v, k_u32_fields[f].key, (uint32_t*)((char*)kern + k_u32_fields[f].at)));
        seen |= 1u << f;
      }
    }
  }
  if (!kern->name || !kern->symbol) return bad(d, "kernel %u lacks .name or .symbol", k);
  for (uint32_t f = 0; f < REQUIRED_U32; ++f)
    if (!(seen & (1u << f))) return bad(d, "kernel '%s' lacks %s", kern->name, k_u32_fields[f].key);
  const air_amdgpu_kernel_t* K = kern;
  if (K->wavefront_size != 32 && K->wavefront_size != 64)
    return bad(d, "kernel '%s': .wavefront_size %u is neither 32 nor 64", K->name,
               K->wavefront_size);
  if (K->kernarg_segment_align == 0 || (K->kernarg_segment_align & (K->kernarg_segment_align - 1)))
    return bad(d, "kernel '%s': .kernarg_segment_align %u is not a power of two", K->name,
               K->kernarg_segment_align);
  if (args && args->via.array.size) {
    kern->n_args = args->via.array.size;
    kern->args = air_arena_alloc(&d->co->arena, (size_t)kern->n_args * sizeof *kern->args);
    if (!kern->args) return AIR_STATUS_OOM(d->a, "code-object metadata");
    for (uint32_t i = 0; i < kern->n_args; ++i) {
      air_amdgpu_arg_t* arg = &kern->args[i];
      AIR_RETURN_IF_ERROR(decode_arg(d, &args->via.array.ptr[i], k, i, arg));
      /* Packing writes [offset, offset + size): it must be inside the segment. */
      if ((uint64_t)arg->offset + arg->size > K->kernarg_segment_size)
        return bad(d, "kernel '%s' argument %u ([%u, +%u)) lies outside its %u-byte kernarg "
                   "segment", K->name, i, arg->offset, arg->size, K->kernarg_segment_size);
    }
  }
  return NULL;
}

static air_status_t decode_root(const dec_t* d, const msgpack_object* root) {
  air_amdgpu_code_object_t* co = d->co;
  if (root->type != MSGPACK_OBJECT_MAP) return bad(d, "the root is not a map");
  const msgpack_object* kernels = NULL;
  bool have_version = false;
  for (uint32_t j = 0; j < root->via.map.size; ++j) {
    const msgpack_object* key = &root->via.map.ptr[j].key;
    const msgpack_object* v = &root->via.map.ptr[j].val;
    if (key_is(key, "amdhsa.version")) {
      if (v->type != MSGPACK_OBJECT_ARRAY || v->via.array.size != 2)
        return bad(d, "amdhsa.version is not a [major, minor] pair");
      AIR_RETURN_IF_ERROR(get_u32(d, &v->via.array.ptr[0], "amdhsa.version[0]",
                                  &co->metadata_version[0]));
      AIR_RETURN_IF_ERROR(get_u32(d, &v->via.array.ptr[1], "amdhsa.version[1]",
                                  &co->metadata_version[1]));
      have_version = true;
    } else if (key_is(key, "amdhsa.target")) {
      AIR_RETURN_IF_ERROR(get_str(d, v, "amdhsa.target", &co->target));
    } else if (key_is(key, "amdhsa.kernels")) {
      if (v->type != MSGPACK_OBJECT_ARRAY) return bad(d, "amdhsa.kernels is not an array");
      kernels = v;
    }
  }
  if (!have_version) return bad(d, "no amdhsa.version");
  if (!kernels) return bad(d, "no amdhsa.kernels");
  co->n_kernels = kernels->via.array.size;
  if (co->n_kernels) {
    co->kernels = air_arena_alloc(&co->arena, (size_t)co->n_kernels * sizeof *co->kernels);
    if (!co->kernels) return AIR_STATUS_OOM(d->a, "code-object metadata");
  }
  for (uint32_t k = 0; k < co->n_kernels; ++k)
    AIR_RETURN_IF_ERROR(decode_kernel(d, &kernels->via.array.ptr[k], k, &co->kernels[k]));
  return NULL;
}

air_status_t air_amdgpu_metadata_decode(const air_allocator_t* allocator, const char* name,
                                        const uint8_t* data, size_t size,
                                        air_amdgpu_code_object_t* co) {
  dec_t d = {allocator, name, co};
  if (!frame_ok(data, size)) return bad(&d, "malformed MessagePack");
  msgpack_unpacked u;
  msgpack_unpacked_init(&u);
  size_t off = 0;
  msgpack_unpack_return r = msgpack_unpack_next(&u, (const char*)data, size, &off);
  air_status_t s;
  if (r == MSGPACK_UNPACK_SUCCESS || r == MSGPACK_UNPACK_EXTRA_BYTES)
    s = decode_root(&d, &u.data);
  else if (r == MSGPACK_UNPACK_NOMEM_ERROR)
    s = AIR_STATUS_OOM(allocator, "code-object metadata (msgpack)");
  else
    s = bad(&d, "msgpack-c could not decode it (%d)", (int)r);
  msgpack_unpacked_destroy(&u);
  return s;
}
