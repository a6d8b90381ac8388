# .airbin reader fuzzing (tests/fuzz/fuzz_artifact.c), built like the parser's
# (tests/fuzz.cmake, included before this file):
#  - fuzz_artifact_corpus (always): replays the checked-in corpus
#    (tests/fuzz/artifact_corpus: valid artifacts and every finding) as a ctest;
#  - fuzz_artifact (AIR_FUZZ=ON, clang): the libFuzzer target, with its own
#    instrumented copy of the library.
set(AIR_FUZZ_ARTIFACT_CORPUS ${AIR_FUZZ_SRC}/artifact_corpus)

# fuzz_driver.c calls air_fuzz_parse_one; renamed here, it runs this target.
add_executable(fuzz_artifact_corpus ${AIR_FUZZ_SRC}/fuzz_artifact.c ${AIR_FUZZ_SRC}/fuzz_driver.c)
target_compile_definitions(fuzz_artifact_corpus PRIVATE air_fuzz_parse_one=air_fuzz_artifact_one)
target_link_libraries(fuzz_artifact_corpus PRIVATE airrt_internal)
add_test(NAME fuzz_artifact_corpus COMMAND fuzz_artifact_corpus ${AIR_FUZZ_ARTIFACT_CORPUS})
set_tests_properties(fuzz_artifact_corpus PROPERTIES LABELS "fuzz" TIMEOUT 300)

if(AIR_FUZZ)
  add_executable(fuzz_artifact ${AIR_FUZZ_SRC}/fuzz_artifact.c ${AIR_SOURCES})
  target_compile_definitions(fuzz_artifact PRIVATE AIR_FUZZ_LIBFUZZER=1
    $<TARGET_PROPERTY:airrt_objects,COMPILE_DEFINITIONS>)
  target_include_directories(fuzz_artifact PRIVATE
    $<TARGET_PROPERTY:airrt_objects,INCLUDE_DIRECTORIES> ${PROJECT_SOURCE_DIR}/src)
  target_compile_options(fuzz_artifact PRIVATE ${AIR_FUZZ_FLAGS})
  target_link_options(fuzz_artifact PRIVATE ${AIR_FUZZ_FLAGS})
  target_link_libraries(fuzz_artifact PRIVATE $<TARGET_PROPERTY:airrt,LINK_LIBRARIES>)
  add_test(NAME fuzz_artifact_seeds COMMAND fuzz_artifact -runs=0 ${AIR_FUZZ_ARTIFACT_CORPUS})
  set_tests_properties(fuzz_artifact_seeds PROPERTIES LABELS "fuzz" TIMEOUT 300)
endif()
