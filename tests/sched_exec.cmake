# Running from a compiled schedule: both paths agree and failures from the
# schedule (test_sched_exec), the transient arena, shared plans and traces
# (test_sched_exec_plan), the HAL's schedule per entry and .airbin loading
# (test_sched_exec_hal); they share tests/sched_exec_test.h. Issue 14: each also
# runs interpreted with the reference loops, and compiled (air_add_path_tests).
set(AIR_SCHED_EXEC_TESTS test_sched_exec test_sched_exec_plan test_sched_exec_hal)
foreach(t ${AIR_SCHED_EXEC_TESTS})
  air_add_test(${t} ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c)
  set_tests_properties(${t} PROPERTIES LABELS "concurrency")
  air_add_path_tests(${t})
endforeach()

# air-run from .airbin artifacts (airc compile) and with --no-schedule: the same
# output bytes as from the .mlir text.
if(TARGET air-run AND TARGET airc)
  add_test(NAME air_run_schedule COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/air_run/schedule.sh
    $<TARGET_FILE:air-run> $<TARGET_FILE:airc> ${PROJECT_SOURCE_DIR}/samples
    ${CMAKE_CURRENT_SOURCE_DIR}/data)
  set_tests_properties(air_run_schedule PROPERTIES LABELS "cli;air-run" TIMEOUT 300
    SKIP_RETURN_CODE 77)
endif()

# air-run with compiled loops, with --no-compile and from an .airbin carrying
# host code: the same output bytes (issue 14).
if(TARGET air-run AND TARGET airc AND TARGET airrt_codegen_shared)
  add_test(NAME air_run_compile COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/air_run/compile.sh
    $<TARGET_FILE:air-run> $<TARGET_FILE:airc> ${PROJECT_SOURCE_DIR}/samples
    ${CMAKE_CURRENT_SOURCE_DIR}/data)
  set_tests_properties(air_run_compile PROPERTIES LABELS "cli;air-run" TIMEOUT 300)
endif()
