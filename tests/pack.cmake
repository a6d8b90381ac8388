# Transient-memory packer: validity on every dsa instance and generated sets,
# never worse than the baseline placement rules (from bench/), CSV errors, edges.
air_add_test(test_pack ${CMAKE_CURRENT_SOURCE_DIR}/test_pack.c
  ${PROJECT_SOURCE_DIR}/bench/pack_baselines.c
  ${PROJECT_SOURCE_DIR}/bench/pack_gen.c)
target_include_directories(test_pack PRIVATE ${PROJECT_SOURCE_DIR}/bench)
