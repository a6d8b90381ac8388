# Running from a compiled schedule: both paths agree, transient arenas, failures
# from the schedule, the HAL's schedule per entry and .airbin loading.
air_add_test(test_sched_exec ${CMAKE_CURRENT_SOURCE_DIR}/test_sched_exec.c)
set_tests_properties(test_sched_exec PROPERTIES LABELS "concurrency")

# air-run from .airbin artifacts (airc compile) and with --no-schedule: the same
# output bytes as from the .mlir text.
if(TARGET air-run AND TARGET airc)
  add_test(NAME air_run_schedule COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/air_run/schedule.sh
    $<TARGET_FILE:air-run> $<TARGET_FILE:airc> ${PROJECT_SOURCE_DIR}/samples
    ${CMAKE_CURRENT_SOURCE_DIR}/data)
  set_tests_properties(air_run_schedule PROPERTIES LABELS "cli;air-run" TIMEOUT 300
    SKIP_RETURN_CODE 77)
endif()
# Issue 14: the same, interpreted with the reference loops, and compiled.
add_test(NAME test_sched_exec_interpreted COMMAND test_sched_exec)
set_tests_properties(test_sched_exec_interpreted PROPERTIES LABELS "concurrency" TIMEOUT 300
  ENVIRONMENT "AIR_TEST_PATH=interpreted")
if(TARGET airrt_codegen_shared)
  add_test(NAME test_sched_exec_compiled COMMAND test_sched_exec)
  set_tests_properties(test_sched_exec_compiled PROPERTIES LABELS "concurrency" TIMEOUT 300
    ENVIRONMENT "AIR_TEST_PATH=compiled")
  add_dependencies(test_sched_exec airrt_codegen_shared)
endif()

# air-run with compiled loops, with --no-compile and from an .airbin carrying
# host code: the same output bytes (issue 14).
if(TARGET air-run AND TARGET airc AND TARGET airrt_codegen_shared)
  add_test(NAME air_run_compile COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/air_run/compile.sh
    $<TARGET_FILE:air-run> $<TARGET_FILE:airc> ${PROJECT_SOURCE_DIR}/samples
    ${CMAKE_CURRENT_SOURCE_DIR}/data)
  set_tests_properties(air_run_compile PROPERTIES LABELS "cli;air-run" TIMEOUT 300)
endif()
