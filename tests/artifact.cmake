# The .airbin artifact (src/scheduler/artifact/, docs/artifact.md): round trips,
# one corrupt-file case per validation rule, and a deterministic mutation loop
# through the fuzz check of tests/fuzz/fuzz_artifact.c: test_artifact (round
# trips, write errors, not an .airbin) and test_artifact_corrupt (the rules and
# the mutation loop), sharing tests/artifact_test.h.
air_add_test(test_artifact ${CMAKE_CURRENT_SOURCE_DIR}/test_artifact.c)
air_add_test(test_artifact_corrupt ${CMAKE_CURRENT_SOURCE_DIR}/test_artifact_corrupt.c
  ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_artifact.c)
target_include_directories(test_artifact_corrupt PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}
  ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)

# `airc compile` writes a file readelf lists with every .air.* section.
find_program(AIR_READELF readelf)
if(TARGET airc AND AIR_READELF)
  add_test(NAME airc_compile_readelf COMMAND bash -c "
    set -euo pipefail
    out=\$(mktemp -d)
    trap 'rm -rf \"\$out\"' EXIT
    \"$<TARGET_FILE:airc>\" compile '${PROJECT_SOURCE_DIR}/samples/matmul_4x4.mlir' --target cpu -o \"\$out/m.airbin\"
    '${AIR_READELF}' -S -W \"\$out/m.airbin\" > \"\$out/sections\"
    '${AIR_READELF}' -h \"\$out/m.airbin\" | grep -q 'REL (Relocatable file)'
    for s in .air.meta .air.program .air.cmds .air.queues .air.waves .air.wave_cmds .air.waits .air.memplan.arenas .air.memplan.buffers; do
      grep -q \" \$s \" \"\$out/sections\" || { echo \"missing \$s\"; cat \"\$out/sections\"; exit 1; }
    done
    echo 'readelf lists all 9 .air sections'")
  set_tests_properties(airc_compile_readelf PROPERTIES TIMEOUT 60)
endif()
