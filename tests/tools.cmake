# CLI tests for airc (TOOLS.md): exit codes, `file:line:col` diagnostics,
# --split-input-file. Each test is tests/tools/expect.sh running one command.
if(NOT TARGET airc)
  return()
endif()

set(AIR_CLI_DIR ${CMAKE_CURRENT_SOURCE_DIR}/tools)
set(AIR_SAMPLES_DIR ${PROJECT_SOURCE_DIR}/samples)

# air_cli_test(NAME EXPECT_ARGS... -- COMMAND...): COMMAND's first word `airc`
# is replaced by the built binary.
function(air_cli_test name)
  set(args ${ARGN})
  list(TRANSFORM args REPLACE "^airc$" "$<TARGET_FILE:airc>")
  add_test(NAME ${name} COMMAND bash ${AIR_CLI_DIR}/expect.sh ${args})
  set_tests_properties(${name} PROPERTIES LABELS "cli" TIMEOUT 60)
endfunction()

# Usage: --help/--version succeed on stdout; bad command lines exit 2.
air_cli_test(airc_help --rc 0 --stdout "^usage: airc" --stdout "verify" --stdout "print"
  --stdout "pack"
  -- airc --help)
air_cli_test(airc_help_verify --rc 0 --stdout "^usage: airc verify" -- airc help verify)
air_cli_test(airc_print_help --rc 0 --stdout "^usage: airc print" -- airc print --help)
air_cli_test(airc_version --rc 0 --stdout "^airc .*[0-9]+\\.[0-9]+\\.[0-9]+" -- airc --version)
air_cli_test(airc_no_args --rc 2 --stderr "^usage: airc" -- airc)
air_cli_test(airc_unknown_command --rc 2 --stderr "unknown command: frobnicate"
  -- airc frobnicate)
air_cli_test(airc_verify_no_file --rc 2 --stderr "no input file" -- airc verify)
air_cli_test(airc_verify_two_files --rc 2 --stderr "more than one input file"
  -- airc verify ${AIR_CLI_DIR}/bad.mlir ${AIR_CLI_DIR}/bad.mlir)
air_cli_test(airc_verify_unknown_option --rc 2 --stderr "unknown option: --bogus"
  -- airc verify ${AIR_CLI_DIR}/bad.mlir --bogus)
air_cli_test(airc_verify_unknown_target --rc 2 --stderr "unknown target"
  -- airc verify ${AIR_CLI_DIR}/bad.mlir --target nosuchdevice)
air_cli_test(airc_verify_target_needs_value --rc 2 --stderr "needs a value"
  -- airc verify ${AIR_CLI_DIR}/bad.mlir --target)
air_cli_test(airc_print_output_needs_value --rc 2 --stderr "needs a value"
  -- airc print ${AIR_CLI_DIR}/bad.mlir -o)
air_cli_test(airc_print_rejects_target --rc 2 --stderr "unknown option: --target"
  -- airc print ${AIR_CLI_DIR}/bad.mlir --target cpu)

# User errors exit 1 with a located diagnostic and nothing on stdout.
air_cli_test(airc_verify_missing_file --rc 1
  --stderr "^/nonexistent/none\\.mlir: error: cannot open file" --no-stdout "."
  -- airc verify /nonexistent/none.mlir)
air_cli_test(airc_verify_bad --rc 1
  --stderr "bad\\.mlir:5:[0-9]+: error: " --stderr-count "error:" 1 --no-stdout "."
  -- airc verify ${AIR_CLI_DIR}/bad.mlir)
air_cli_test(airc_print_bad --rc 1
  --stderr "bad\\.mlir:5:[0-9]+: error: " --no-stdout "."
  -- airc print ${AIR_CLI_DIR}/bad.mlir)
# Without --split-input-file the separators are comments and the file is one
# input, so the first error stops it (still on line 15).
air_cli_test(airc_verify_split_unsplit --rc 1 --stderr "split3\\.mlir:15:[0-9]+: error: "
  -- airc verify ${AIR_CLI_DIR}/split3.mlir)
# --split-input-file: the broken middle part is reported at its line in the
# whole file, and the parts around it are still checked.
air_cli_test(airc_verify_split --rc 1
  --stderr "split3\\.mlir:15:[0-9]+: error: " --stderr-count "error:" 1
  -- airc verify ${AIR_CLI_DIR}/split3.mlir --split-input-file)
air_cli_test(airc_print_split_partial --rc 1
  --stderr "split3\\.mlir:15:[0-9]+: error: " --stderr-count "error:" 1
  --stdout "@first" --stdout "@third" --stdout "^// -----$" --no-stdout "@second"
  -- airc print --split-input-file ${AIR_CLI_DIR}/split3.mlir)
# stdin as input, named <stdin> in diagnostics.
air_cli_test(airc_verify_stdin_bad --rc 1 --stdin ${AIR_CLI_DIR}/bad.mlir
  --stderr "^<stdin>:5:[0-9]+: error: " -- airc verify -)

# Valid inputs: quiet success, printing, round trips.
air_cli_test(airc_verify_split_ok --rc 0 --no-stderr "error" --no-stdout "."
  -- airc verify --split-input-file ${AIR_CLI_DIR}/split_ok.mlir)
air_cli_test(airc_print_split_ok --rc 0 --stdout "@producer_consumer" --stdout "@tokens"
  --stdout "@copy" --stdout "^// -----$"
  -- airc print --split-input-file ${AIR_CLI_DIR}/split_ok.mlir)
add_test(NAME airc_roundtrip_split_ok COMMAND bash ${AIR_CLI_DIR}/roundtrip.sh
  $<TARGET_FILE:airc> ${AIR_CLI_DIR}/split_ok.mlir --split-input-file)
set_tests_properties(airc_roundtrip_split_ok PROPERTIES LABELS "cli" TIMEOUT 60)
air_cli_test(airc_verify_stdin_ok --rc 0 --stdin ${AIR_SAMPLES_DIR}/vector_add.mlir
  --no-stderr "error" -- airc verify -)
air_cli_test(airc_print_stdin_ok --rc 0 --stdin ${AIR_SAMPLES_DIR}/vector_add.mlir
  --stdout "air\\.herd" -- airc print -)

# Every command the README shows for the built tools and samples runs as printed
# (files it names exist; failures are the ones it says fail). Issue 15.
if(TARGET air-run)
  add_test(NAME readme_commands COMMAND bash ${AIR_CLI_DIR}/readme_commands.sh
    ${PROJECT_SOURCE_DIR} ${CMAKE_BINARY_DIR})
  set_tests_properties(readme_commands PROPERTIES LABELS "cli" TIMEOUT 600)
endif()
