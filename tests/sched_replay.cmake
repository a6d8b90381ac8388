# Replay of compiled partitions on the CPU (helper threads, spin barriers, futex
# sleep): random partitions at 1, 2 and 4 threads, run under TSan too.
air_add_test(test_sched_replay ${CMAKE_CURRENT_SOURCE_DIR}/test_sched_replay.c)
set_tests_properties(test_sched_replay PROPERTIES LABELS "concurrency")
