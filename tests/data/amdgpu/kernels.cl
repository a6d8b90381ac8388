// Test input for the code-object reader (tests/amdgpu.cmake builds it with
// Debian's clang for several targets): three kernels that give the metadata
// different shapes. No device libraries (-nogpulib), so work-item ids come from
// the AMDGPU builtins.
kernel void vadd(global const float* a, global const float* b, global float* c, int n) {
  int i = __builtin_amdgcn_workgroup_id_x() * 64 + __builtin_amdgcn_workitem_id_x();
  if (i < n) c[i] = a[i] + b[i];
}

// 1 KiB of LDS: group_segment_fixed_size 1024.
kernel void lds_reverse(global float* x) {
  local float tile[256];
  uint t = __builtin_amdgcn_workitem_id_x();
  tile[t] = x[t];
  __builtin_amdgcn_fence(__ATOMIC_RELEASE, "workgroup");
  __builtin_amdgcn_s_barrier();
  __builtin_amdgcn_fence(__ATOMIC_ACQUIRE, "workgroup");
  x[t] = tile[255 - t];
}

// A private array indexed by run-time values: scratch (private_segment_fixed_size).
kernel void private_pick(global const int* idx, global float* out, float bias, char flag,
                         long big) {
  float v[97];
  uint t = __builtin_amdgcn_workitem_id_x();
  for (int i = 0; i < 97; ++i) v[i] = (float)(i * t) + bias;
  out[t] = v[idx[t] % 97] + (flag ? (float)big : 0.0f);
}
