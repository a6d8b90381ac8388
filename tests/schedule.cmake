# The AIR schedule compiler: host token graph, partition, memory plan, and the
# `airc report --emit memplan|schedule|dot` printers (airc_report.c linked in so
# the reports run without the airc binary).
air_add_test(test_schedule ${CMAKE_CURRENT_SOURCE_DIR}/test_schedule.c
  ${PROJECT_SOURCE_DIR}/tools/airc_report.c
  ${PROJECT_SOURCE_DIR}/tools/tool_util.c)
target_include_directories(test_schedule PRIVATE ${PROJECT_SOURCE_DIR}/tools)
