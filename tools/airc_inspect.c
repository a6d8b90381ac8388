/* airc_inspect.c - `airc inspect FILE.hsaco|FILE.airbin [--json]`: what an AMDGPU
 * code object holds (TOOLS.md): its target and, per kernel, the metadata's segment
 * sizes, register counts and arguments. `--json` prints one JSON object
 * {"target", "kernels": [{"name", "kernarg_segment_size", "group_segment_fixed_size",
 * "private_segment_fixed_size", "wavefront_size", "sgpr_count", "vgpr_count",
 * "args": [{"offset", "size", "value_kind"}]}]}, the values `llvm-readelf --notes`
 * shows. Exit 1 for a file that is not a readable code object. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "amdgpu/code_object.h"
#include "tool_util.h"

static void usage(FILE* f) {
  fprintf(f,
          "usage: airc inspect FILE.hsaco|FILE.airbin [--json]\n"
          "  Prints an AMDGPU code object's target and kernels: segment sizes, register\n"
          "  counts, wavefront size and arguments (offset, size, kind). --json prints one\n"
          "  JSON object with the same values.\n");
}

static int usage_error(const char* what, const char* arg) {
  fprintf(stderr, "airc inspect: error: %s%s%s\n", what, arg ? ": " : "", arg ? arg : "");
  usage(stderr);
  return TOOL_EXIT_USAGE;
}

/* A JSON string: metadata strings are arbitrary bytes. */
static void json_str(FILE* f, const char* s) {
  fputc('"', f);
  for (const unsigned char* p = (const unsigned char*)s; *p; ++p) {
    if (*p == '"' || *p == '\\') fprintf(f, "\\%c", *p);
    else if (*p < 0x20 || *p >= 0x7f) fprintf(f, "\\u%04x", *p);
    else fputc(*p, f);
  }
  fputc('"', f);
}

static void print_json(FILE* f, const air_amdgpu_code_object_t* co) {
  fputs("{\"target\":", f);
  json_str(f, co->target);
  fputs(",\"kernels\":[", f);
  for (uint32_t k = 0; k < co->n_kernels; ++k) {
    const air_amdgpu_kernel_t* K = &co->kernels[k];
    fputs(k ? ",{\"name\":" : "{\"name\":", f);
    json_str(f, K->name);
    fprintf(f,
            ",\"kernarg_segment_size\":%u,\"group_segment_fixed_size\":%u,"
            "\"private_segment_fixed_size\":%u,\"wavefront_size\":%u,\"sgpr_count\":%u,"
            "\"vgpr_count\":%u,\"args\":[",
            K->kernarg_segment_size, K->group_segment_fixed_size,
            K->private_segment_fixed_size, K->wavefront_size, K->sgpr_count, K->vgpr_count);
    for (uint32_t i = 0; i < K->n_args; ++i) {
      fprintf(f, "%s{\"offset\":%u,\"size\":%u,\"value_kind\":", i ? "," : "",
              K->args[i].offset, K->args[i].size);
      json_str(f, K->args[i].value_kind);
      fputc('}', f);
    }
    fputs("]}", f);
  }
  fputs("]}\n", f);
}

static const char* feature(air_gfx_feature_t f) {
  switch (f) {
    case AIR_GFX_FEATURE_ANY: return "any";
    case AIR_GFX_FEATURE_ON: return "on";
    case AIR_GFX_FEATURE_OFF: return "off";
    default: return "unsupported";
  }
}

static void print_text(FILE* f, const char* display, const air_amdgpu_code_object_t* co) {
  fprintf(f, "%s: AMDGPU code object v%u (%s), %s, e_flags 0x%x (xnack %s, sramecc %s)\n",
          display, co->version, co->e_type == 3 ? "ET_DYN" : "ET_REL", co->target, co->e_flags,
          feature(co->xnack), feature(co->sramecc));
  for (uint32_t k = 0; k < co->n_kernels; ++k) {
    const air_amdgpu_kernel_t* K = &co->kernels[k];
    fprintf(f,
            "kernel %s (%s at 0x%llx, code at 0x%llx)\n"
            "  kernarg %u bytes (align %u), group %u, private %u, wave%u, sgpr %u, vgpr %u",
            K->name, K->symbol, (unsigned long long)K->kd_address,
            (unsigned long long)K->entry_address, K->kernarg_segment_size,
            K->kernarg_segment_align, K->group_segment_fixed_size,
            K->private_segment_fixed_size, K->wavefront_size, K->sgpr_count, K->vgpr_count);
    if (K->max_flat_workgroup_size) fprintf(f, ", max workgroup %u", K->max_flat_workgroup_size);
    fputc('\n', f);
    for (uint32_t i = 0; i < K->n_args; ++i) {
      const air_amdgpu_arg_t* A = &K->args[i];
      fprintf(f, "  arg %2u: offset %3u size %2u %s%s%s\n", i, A->offset, A->size,
              A->value_kind, A->name ? " " : "", A->name ? A->name : "");
    }
  }
}

int airc_cmd_inspect(int argc, char** argv) {
  const char* in_path = NULL;
  int json = 0;
  for (int i = 1; i < argc; ++i) {
    if (!strcmp(argv[i], "--json")) {
      json = 1;
    } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
      usage(stdout);
      return TOOL_EXIT_OK;
    } else if (argv[i][0] == '-' && argv[i][1]) {
      return usage_error("unknown option", argv[i]);
    } else if (in_path) {
      return usage_error("more than one input file", argv[i]);
    } else {
      in_path = argv[i];
    }
  }
  if (!in_path) return usage_error("no input file", NULL);
  const char* display = tool_display_name(in_path);
  char* data = NULL;
  size_t len = 0;
  if (tool_read_input(in_path, &data, &len)) return TOOL_EXIT_FAILURE;
  air_amdgpu_code_object_t* co = NULL;
  air_status_t s = air_amdgpu_code_object_read(NULL, data, len, display, &co);
  free(data);
  if (s) {
    tool_report_status(display, s);
    air_status_free(s);
    return TOOL_EXIT_FAILURE;
  }
  if (json) print_json(stdout, co);
  else print_text(stdout, display, co);
  air_amdgpu_code_object_free(co);
  return TOOL_EXIT_OK;
}
