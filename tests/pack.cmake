# Transient-memory packer: validity on every dsa instance and generated sets,
# never worse than the baseline placement rules (from bench/), CSV errors, edges.
air_add_test(test_pack ${CMAKE_CURRENT_SOURCE_DIR}/test_pack.c
  ${PROJECT_SOURCE_DIR}/bench/pack_baselines.c
  ${PROJECT_SOURCE_DIR}/bench/pack_gen.c)
target_include_directories(test_pack PRIVATE ${PROJECT_SOURCE_DIR}/bench)

# The sweep placement against a plain reference (exact offsets, both rules, both
# sweeping orders, other stacks at the pivot, the sides interleaved any way),
# refused orders and caps, and the planner on the dense trace.
air_add_test(test_pack_sweep ${CMAKE_CURRENT_SOURCE_DIR}/test_pack_sweep.c
  ${PROJECT_SOURCE_DIR}/bench/pack_gen.c)
target_include_directories(test_pack_sweep PRIVATE ${PROJECT_SOURCE_DIR}/bench)

# The window placer and the sweep around a placed window against a plain
# reference (exact offsets, any order, both rules outside), the ordered sequence
# against a sorted array, refusals, and the planner on dense traces.
air_add_test(test_pack_window ${CMAKE_CURRENT_SOURCE_DIR}/test_pack_window.c
  ${PROJECT_SOURCE_DIR}/bench/pack_gen.c)
target_include_directories(test_pack_window PRIVATE ${PROJECT_SOURCE_DIR}/bench)
