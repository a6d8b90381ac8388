# Scale-out (issue 13). test_rank_ir: air.rank, air.universe.alloc, symmetric
# allocations and src_rank/dst_rank through the builder, IR layout, print/parse
# round trip and rejections (the verifier's rules: data/verify/rank_*.mlir).
air_add_test(test_rank_ir ${CMAKE_CURRENT_SOURCE_DIR}/test_rank_ir.c)
