/* aql_layout.c - compile-time proof that src/amdgpu/aql.h's packets are the HSA
 * ones: every field's offset and size, the packet types, header bit positions and
 * fence scopes, checked against <hsa/hsa.h> (Debian's libhsa-runtime-dev). Only
 * built when the headers are present; there is no code in it. */
#ifdef AIR_HAVE_HSA
#include <hsa/hsa.h>
#include <stddef.h>

#include "amdgpu/aql.h"

#define SAME_FIELD(ours, theirs, field)                                        \
  _Static_assert(offsetof(ours, field) == offsetof(theirs, field) &&          \
                     sizeof(((ours*)0)->field) == sizeof(((theirs*)0)->field), \
                 #ours "." #field " differs from " #theirs)

_Static_assert(sizeof(air_aql_dispatch_t) == sizeof(hsa_kernel_dispatch_packet_t), "dispatch size");
SAME_FIELD(air_aql_dispatch_t, hsa_kernel_dispatch_packet_t, header);
SAME_FIELD(air_aql_dispatch_t, hsa_kernel_dispatch_packet_t, setup);
SAME_FIELD(air_aql_dispatch_t, hsa_kernel_dispatch_packet_t, workgroup_size_x);
SAME_FIELD(air_aql_dispatch_t, hsa_kernel_dispatch_packet_t, workgroup_size_y);
SAME_FIELD(air_aql_dispatch_t, hsa_kernel_dispatch_packet_t, workgroup_size_z);
SAME_FIELD(air_aql_dispatch_t, hsa_kernel_dispatch_packet_t, reserved0);
SAME_FIELD(air_aql_dispatch_t, hsa_kernel_dispatch_packet_t, grid_size_x);
SAME_FIELD(air_aql_dispatch_t, hsa_kernel_dispatch_packet_t, grid_size_y);
SAME_FIELD(air_aql_dispatch_t, hsa_kernel_dispatch_packet_t, grid_size_z);
SAME_FIELD(air_aql_dispatch_t, hsa_kernel_dispatch_packet_t, private_segment_size);
SAME_FIELD(air_aql_dispatch_t, hsa_kernel_dispatch_packet_t, group_segment_size);
SAME_FIELD(air_aql_dispatch_t, hsa_kernel_dispatch_packet_t, kernel_object);
SAME_FIELD(air_aql_dispatch_t, hsa_kernel_dispatch_packet_t, kernarg_address);
SAME_FIELD(air_aql_dispatch_t, hsa_kernel_dispatch_packet_t, reserved2);
SAME_FIELD(air_aql_dispatch_t, hsa_kernel_dispatch_packet_t, completion_signal);

_Static_assert(sizeof(air_aql_barrier_t) == sizeof(hsa_barrier_and_packet_t), "barrier size");
SAME_FIELD(air_aql_barrier_t, hsa_barrier_and_packet_t, header);
SAME_FIELD(air_aql_barrier_t, hsa_barrier_and_packet_t, reserved0);
SAME_FIELD(air_aql_barrier_t, hsa_barrier_and_packet_t, reserved1);
SAME_FIELD(air_aql_barrier_t, hsa_barrier_and_packet_t, dep_signal);
SAME_FIELD(air_aql_barrier_t, hsa_barrier_and_packet_t, reserved2);
SAME_FIELD(air_aql_barrier_t, hsa_barrier_and_packet_t, completion_signal);
/* Barrier-OR has the same layout. */
SAME_FIELD(air_aql_barrier_t, hsa_barrier_or_packet_t, dep_signal);
SAME_FIELD(air_aql_barrier_t, hsa_barrier_or_packet_t, completion_signal);

/* A signal travels in a packet as its 64-bit handle. */
_Static_assert(sizeof(hsa_signal_t) == sizeof(uint64_t), "hsa_signal_t is one u64 handle");

_Static_assert((int)AIR_AQL_TYPE_VENDOR == (int)HSA_PACKET_TYPE_VENDOR_SPECIFIC, "type");
_Static_assert((int)AIR_AQL_TYPE_INVALID == (int)HSA_PACKET_TYPE_INVALID, "type");
_Static_assert((int)AIR_AQL_TYPE_KERNEL_DISPATCH == (int)HSA_PACKET_TYPE_KERNEL_DISPATCH, "type");
_Static_assert((int)AIR_AQL_TYPE_BARRIER_AND == (int)HSA_PACKET_TYPE_BARRIER_AND, "type");
_Static_assert((int)AIR_AQL_TYPE_AGENT_DISPATCH == (int)HSA_PACKET_TYPE_AGENT_DISPATCH, "type");
_Static_assert((int)AIR_AQL_TYPE_BARRIER_OR == (int)HSA_PACKET_TYPE_BARRIER_OR, "type");
_Static_assert((int)AIR_AQL_HEADER_BARRIER == (int)HSA_PACKET_HEADER_BARRIER, "barrier bit");
_Static_assert((int)AIR_AQL_HEADER_ACQUIRE_SCOPE == (int)HSA_PACKET_HEADER_SCACQUIRE_FENCE_SCOPE, "acq");
_Static_assert((int)AIR_AQL_HEADER_RELEASE_SCOPE == (int)HSA_PACKET_HEADER_SCRELEASE_FENCE_SCOPE, "rel");
_Static_assert((int)AIR_AQL_SCOPE_NONE == (int)HSA_FENCE_SCOPE_NONE, "scope");
_Static_assert((int)AIR_AQL_SCOPE_AGENT == (int)HSA_FENCE_SCOPE_AGENT, "scope");
_Static_assert((int)AIR_AQL_SCOPE_SYSTEM == (int)HSA_FENCE_SCOPE_SYSTEM, "scope");
_Static_assert(HSA_KERNEL_DISPATCH_PACKET_SETUP_DIMENSIONS == 0, "setup: dims in bits 0-1");
#endif

/* ISO C wants a translation unit to declare something. */
typedef int air_aql_layout_checked_t;
