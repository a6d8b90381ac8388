// Test input for the code-object reader: a HIP kernel that reads its workgroup
// size through the implicit-argument pointer, so its metadata lists the hidden
// arguments of HIP's ABI (hidden_block_count_*, hidden_group_size_*,
// hidden_remainder_*, ... in code-object v5; hidden_global_offset_* and friends
// in v4).
extern "C" __attribute__((global)) void scale(float* x, float s, int n) {
  const unsigned short* implicit = (const unsigned short*)__builtin_amdgcn_implicitarg_ptr();
  int i = __builtin_amdgcn_workgroup_id_x() * implicit[6] + __builtin_amdgcn_workitem_id_x();
  if (i < n) x[i] *= s;
}
