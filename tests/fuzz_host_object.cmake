# Host code object loader fuzzing (tests/fuzz/fuzz_host_object.c; hal/host_object.c
# reads the x86-64 objects an .airbin carries), built like the artifact reader's:
#  - fuzz_host_object_corpus (always): replays tests/fuzz/host_object_corpus
#    (objects the code generator wrote, and every finding) as a ctest;
#  - fuzz_host_object (AIR_FUZZ=ON, clang): the libFuzzer target, with its own
#    instrumented copy of the library.
set(AIR_FUZZ_HOST_CORPUS ${AIR_FUZZ_SRC}/host_object_corpus)
add_executable(fuzz_host_object_corpus ${AIR_FUZZ_SRC}/fuzz_host_object.c
  ${AIR_FUZZ_SRC}/fuzz_driver.c)
target_compile_definitions(fuzz_host_object_corpus PRIVATE
  air_fuzz_parse_one=air_fuzz_host_object_one)
target_link_libraries(fuzz_host_object_corpus PRIVATE airrt_internal)
add_test(NAME fuzz_host_object_corpus COMMAND fuzz_host_object_corpus ${AIR_FUZZ_HOST_CORPUS})
set_tests_properties(fuzz_host_object_corpus PROPERTIES LABELS "fuzz" TIMEOUT 300)

if(AIR_FUZZ)
  add_executable(fuzz_host_object ${AIR_FUZZ_SRC}/fuzz_host_object.c ${AIR_SOURCES})
  target_compile_definitions(fuzz_host_object PRIVATE AIR_FUZZ_LIBFUZZER=1
    $<TARGET_PROPERTY:airrt_objects,COMPILE_DEFINITIONS>)
  target_include_directories(fuzz_host_object PRIVATE
    $<TARGET_PROPERTY:airrt_objects,INCLUDE_DIRECTORIES> ${PROJECT_SOURCE_DIR}/src)
  target_compile_options(fuzz_host_object PRIVATE ${AIR_FUZZ_FLAGS})
  target_link_options(fuzz_host_object PRIVATE ${AIR_FUZZ_FLAGS})
  target_link_libraries(fuzz_host_object PRIVATE $<TARGET_PROPERTY:airrt,LINK_LIBRARIES>)
  add_test(NAME fuzz_host_object_seeds COMMAND fuzz_host_object -runs=0 ${AIR_FUZZ_HOST_CORPUS})
  set_tests_properties(fuzz_host_object_seeds PROPERTIES LABELS "fuzz" TIMEOUT 300)
endif()
