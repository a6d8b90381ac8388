# The target table: every device's facts, `airc targets` (linked in so it runs in
# process), the verifier's names, and per device what the scheduler does with them.
air_add_test(test_target ${CMAKE_CURRENT_SOURCE_DIR}/test_target.c
  ${PROJECT_SOURCE_DIR}/tools/airc_targets.c
  ${PROJECT_SOURCE_DIR}/tools/tool_util.c)
target_include_directories(test_target PRIVATE ${PROJECT_SOURCE_DIR}/tools)
