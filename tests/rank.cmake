# Scale-out (issue 13). test_rank_ir: air.rank, air.universe.alloc, symmetric
# allocations and src_rank/dst_rank through the builder, IR layout, print/parse
# round trip and rejections (the verifier's rules: data/verify/rank_*.mlir).
air_add_test(test_rank_ir ${CMAKE_CURRENT_SOURCE_DIR}/test_rank_ir.c)
# test_rank_run: the programs of data/rank end to end in process (2 and 4 ranks,
# both execution paths), every rank's copy read back through air/rank.h.
air_add_test(test_rank_run ${CMAKE_CURRENT_SOURCE_DIR}/test_rank_run.c)
set_tests_properties(test_rank_run PROPERTIES LABELS concurrency)
