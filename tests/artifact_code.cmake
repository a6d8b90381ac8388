# The optional .air.code section of an .airbin (host code for compiled units,
# scheduler/artifact/artifact_code.c): round trip, each rule, truncations.
air_add_test(test_artifact_code ${CMAKE_CURRENT_SOURCE_DIR}/test_artifact_code.c
  ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_artifact.c)
target_include_directories(test_artifact_code PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)

# `airc compile --target cpu` stores the host code when the generator is built,
# and --no-code leaves it out.
find_program(AIR_READELF readelf)
if(TARGET airc AND TARGET airrt_codegen_shared AND AIR_READELF)
  add_test(NAME airc_compile_host_code COMMAND bash -c "
    set -euo pipefail
    out=\$(mktemp -d)
    trap 'rm -rf \"\$out\"' EXIT
    \"$<TARGET_FILE:airc>\" compile '${PROJECT_SOURCE_DIR}/samples/vector_add.mlir' --target cpu -o \"\$out/v.airbin\"
    '${AIR_READELF}' -S -W \"\$out/v.airbin\" | grep -q ' .air.code '
    \"$<TARGET_FILE:airc>\" compile '${PROJECT_SOURCE_DIR}/samples/vector_add.mlir' --target cpu --no-code -o \"\$out/n.airbin\"
    ! '${AIR_READELF}' -S -W \"\$out/n.airbin\" | grep -q ' .air.code '
    echo 'host code stored, and left out with --no-code'")
  set_tests_properties(airc_compile_host_code PROPERTIES TIMEOUT 60)
  add_dependencies(airc airrt_codegen_shared)
endif()
