# The optional .air.code section of an .airbin (host code for compiled units,
# scheduler/artifact/artifact_code.c): round trip, each rule, truncations.
air_add_test(test_artifact_code ${CMAKE_CURRENT_SOURCE_DIR}/test_artifact_code.c
  ${CMAKE_CURRENT_SOURCE_DIR}/fuzz/fuzz_artifact.c)
target_include_directories(test_artifact_code PRIVATE ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)
