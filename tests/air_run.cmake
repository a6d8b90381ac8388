# Traces, .npy files and the air-run tool (TOOLS.md).
air_add_test(test_trace ${CMAKE_CURRENT_SOURCE_DIR}/test_trace.c)
set_tests_properties(test_trace PROPERTIES LABELS "concurrency")
air_add_test(test_npy ${CMAKE_CURRENT_SOURCE_DIR}/test_npy.c ${PROJECT_SOURCE_DIR}/tools/npy.c)
target_include_directories(test_npy PRIVATE ${PROJECT_SOURCE_DIR}/tools)

if(NOT TARGET air-run)
  return()
endif()

set(AIR_RUN_DIR ${CMAKE_CURRENT_SOURCE_DIR}/air_run)
set(AIR_SAMPLES_DIR ${PROJECT_SOURCE_DIR}/samples)

# Makes and checks .npy files for the end-to-end scenarios.
add_executable(npy_helper ${AIR_RUN_DIR}/npy_helper.c ${PROJECT_SOURCE_DIR}/tools/npy.c)
target_include_directories(npy_helper PRIVATE ${PROJECT_SOURCE_DIR}/tools)

# air_run_cli_test(NAME EXPECT_ARGS... -- air-run ARGS...): one command checked by
# tests/tools/expect.sh; the word `air-run` becomes the built binary.
function(air_run_cli_test name)
  set(args ${ARGN})
  list(TRANSFORM args REPLACE "^air-run$" "$<TARGET_FILE:air-run>")
  add_test(NAME ${name} COMMAND bash ${PROJECT_SOURCE_DIR}/tests/tools/expect.sh ${args})
  set_tests_properties(${name} PROPERTIES LABELS "cli" TIMEOUT 60)
endfunction()

# Usage: --help/--version on stdout; bad command lines exit 2 before any work.
air_run_cli_test(air_run_help --rc 0 --stdout "^usage: air-run FILE" --stdout "--random"
  --stdout "--timeout" --stdout "--trace" --stdout "-o I=PATH\\.npy" --stdout "-i I=PATH\\.npy"
  --stdout "--device URI +cpu, cpu:threads=N" -- air-run --help)
air_run_cli_test(air_run_version --rc 0 --stdout "^air-run .*[0-9]+\\.[0-9]+\\.[0-9]+"
  -- air-run --version)
air_run_cli_test(air_run_no_args --rc 2 --stderr "no input file" --stderr "^usage: air-run"
  -- air-run)
air_run_cli_test(air_run_two_files --rc 2 --stderr "more than one input file"
  -- air-run ${AIR_SAMPLES_DIR}/vector_add.mlir ${AIR_SAMPLES_DIR}/pipeline.mlir)
air_run_cli_test(air_run_unknown_option --rc 2 --stderr "unknown option: --bogus"
  -- air-run ${AIR_SAMPLES_DIR}/vector_add.mlir --bogus)
air_run_cli_test(air_run_input_syntax --rc 2 --stderr "--input wants I=PATH"
  -- air-run ${AIR_SAMPLES_DIR}/vector_add.mlir --input a.npy)
air_run_cli_test(air_run_input_index --rc 2 --stderr "--input wants I=PATH"
  -- air-run ${AIR_SAMPLES_DIR}/vector_add.mlir --input x=a.npy)
air_run_cli_test(air_run_input_twice --rc 2 --stderr "given twice"
  -- air-run ${AIR_SAMPLES_DIR}/vector_add.mlir --input 0=a.npy --input 0=b.npy)
air_run_cli_test(air_run_output_needs_value --rc 2 --stderr "needs a value"
  -- air-run ${AIR_SAMPLES_DIR}/vector_add.mlir --output)
air_run_cli_test(air_run_bad_seed --rc 2 --stderr "--random=SEED"
  -- air-run ${AIR_SAMPLES_DIR}/vector_add.mlir --random=minus1)
air_run_cli_test(air_run_bad_timeout --rc 2 --stderr "--timeout wants a positive"
  -- air-run ${AIR_SAMPLES_DIR}/vector_add.mlir --timeout -3)
air_run_cli_test(air_run_zero_timeout --rc 2 --stderr "--timeout wants a positive"
  -- air-run ${AIR_SAMPLES_DIR}/vector_add.mlir --timeout 0)

# User errors exit 1 with a located message.
air_run_cli_test(air_run_missing_file --rc 1
  --stderr "^/nonexistent/none\\.mlir: error: cannot open file" --no-stdout "."
  -- air-run /nonexistent/none.mlir)
air_run_cli_test(air_run_airbin --rc 1 --stderr "^/nonexistent/model\\.airbin: error: cannot open file"
  -- air-run /nonexistent/model.airbin)
air_run_cli_test(air_run_bad_program --rc 1 --stderr "bad\\.mlir:5:[0-9]+: error: "
  -- air-run ${PROJECT_SOURCE_DIR}/tests/tools/bad.mlir)
air_run_cli_test(air_run_no_entry_named --rc 1 --stderr "no entry function @nope"
  -- air-run ${AIR_SAMPLES_DIR}/vector_add.mlir --entry nope)

# End to end (tests/air_run/e2e.sh SCENARIO): .npy in/out, --random, mismatches,
# a deadlock, --timeout, --trace, and .npy files made by Python's struct.
foreach(scenario vector_add_io random mismatch pipeline deadlock timeout trace python_npy
    matmul)
  add_test(NAME air_run_${scenario} COMMAND bash ${AIR_RUN_DIR}/e2e.sh ${scenario}
    $<TARGET_FILE:air-run> $<TARGET_FILE:npy_helper> ${AIR_SAMPLES_DIR})
  set_tests_properties(air_run_${scenario} PROPERTIES LABELS "cli;air-run" TIMEOUT 120
    SKIP_RETURN_CODE 77)
endforeach()

# A kernel library (air/kernel.h convention) for the `kernels` scenario: air-run
# --kernels loads it with dlopen and resolves func.call @twice_plus_one to it.
add_library(air_run_test_kernels MODULE ${AIR_RUN_DIR}/kernel_lib.c)
target_link_libraries(air_run_test_kernels PRIVATE airrt)
add_test(NAME air_run_kernels COMMAND bash ${AIR_RUN_DIR}/e2e.sh kernels
  $<TARGET_FILE:air-run> $<TARGET_FILE:npy_helper> ${AIR_SAMPLES_DIR}
  $<TARGET_FILE:air_run_test_kernels>)
set_tests_properties(air_run_kernels PROPERTIES LABELS "cli;air-run" TIMEOUT 120)

# Issue 15: a program that fails verification must fail air-run cleanly; under
# ASan (scripts/sanitize.sh) LeakSanitizer makes this fail if the failed
# executable's status leaks, as it once did.
air_run_cli_test(air_run_verify_fails --rc 1
  --stderr "unbalanced\\.mlir:[0-9]+:[0-9]+: error: \\[channel-balance\\]" --no-stderr "Sanitizer"
  -- air-run ${CMAKE_CURRENT_SOURCE_DIR}/bad_inputs/unbalanced.mlir --random)

# Every tool's failure paths in one table: exit codes and one diagnostic shape
# (tests/tools/error_format.sh), and every failing input through every command
# (tests/tools/bad_inputs.sh; CI runs it again with --big under ASan).
if(TARGET airc AND TARGET air-bench)
  add_test(NAME tools_error_format COMMAND bash ${PROJECT_SOURCE_DIR}/tests/tools/error_format.sh
    $<TARGET_FILE:airc> $<TARGET_FILE:air-run> $<TARGET_FILE:air-bench> ${AIR_SAMPLES_DIR})
  add_test(NAME tools_bad_inputs COMMAND bash ${PROJECT_SOURCE_DIR}/tests/tools/bad_inputs.sh
    $<TARGET_FILE:airc> $<TARGET_FILE:air-run>)
  set_tests_properties(tools_error_format tools_bad_inputs PROPERTIES LABELS "cli" TIMEOUT 600)
endif()

# Issue 15: a run that leaves transfers unread in a channel (more puts than gets,
# counts known only at run time) is an error naming the channel index and both
# counts; the balanced run passes. Scheduled and dynamic paths alike.
air_run_cli_test(air_run_unread_channel --rc 1
  --stderr "unread\\.mlir:7:1: error: air\\.channel @spill\\[0\\]: 3 puts but 2 gets: the run ended with 1 transfer never read"
  --stderr "in each of 2 launch instances"
  -- air-run ${AIR_RUN_DIR}/unread.mlir --input 0=3)
air_run_cli_test(air_run_unread_channel_dynamic --rc 1
  --stderr "air\\.channel @spill\\[0\\]: 3 puts but 2 gets: the run ended with 1 transfer never read"
  -- air-run ${AIR_RUN_DIR}/unread.mlir --input 0=3 --no-schedule)
# One more put does not fit the channel's depth: that is a deadlock, reported as one.
air_run_cli_test(air_run_unread_channel_full --rc 1 --stderr "deadlock"
  --stderr "air\\.channel\\.put @spill\\[0\\] blocked: channel full \\(depth 1\\)"
  -- air-run ${AIR_RUN_DIR}/unread.mlir --input 0=4)
air_run_cli_test(air_run_balanced_channel --rc 0 --no-stderr "error"
  -- air-run ${AIR_RUN_DIR}/unread.mlir --input 0=2)
