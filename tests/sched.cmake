# Scheduler: target table, two-stage resource analysis, placement, and the
# `airc report` command (linked in directly so it runs without the airc binary).
air_add_test(test_sched ${CMAKE_CURRENT_SOURCE_DIR}/test_sched.c
  ${PROJECT_SOURCE_DIR}/tools/airc_report.c
  ${PROJECT_SOURCE_DIR}/tools/tool_util.c)
target_include_directories(test_sched PRIVATE ${PROJECT_SOURCE_DIR}/tools)

# The token-graph partitioner: random graphs against an independent wave-graph
# model, elision, groups, a million nodes.
air_add_test(test_partition ${CMAKE_CURRENT_SOURCE_DIR}/test_partition.c)
