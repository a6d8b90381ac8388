# Replay of compiled partitions for the dag-overhead benchmark (bench/sched_replay.c:
# helper tasks on the library's pool, spin barriers): random partitions at 1, 2 and
# 4 threads, run under TSan too. The test lives beside the code, in bench/.
air_add_test(test_sched_replay ${PROJECT_SOURCE_DIR}/bench/test_sched_replay.c)
target_link_libraries(test_sched_replay PRIVATE air_bench_sched_replay)
target_include_directories(test_sched_replay PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
set_tests_properties(test_sched_replay PROPERTIES LABELS "concurrency")
