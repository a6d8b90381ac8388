# Parser fuzzing (tests/fuzz/). Two builds of one target function:
#  - fuzz_parse_corpus (always): replays the seed and regression inputs as a
#    ctest under any compiler, so what the fuzzer found stays fixed;
#  - fuzz_parse (AIR_FUZZ=ON, clang): the libFuzzer target. It compiles its own
#    copy of the library with coverage instrumentation rather than adding
#    -fsanitize=fuzzer to the shared objects, so every other target in the same
#    build directory stays an ordinary program.
set(AIR_FUZZ_SRC ${CMAKE_CURRENT_SOURCE_DIR}/fuzz)

# Inputs every fuzz run starts from: the regression corpus, the samples, and the
# parser's own test programs when they exist.
set(AIR_FUZZ_SEEDS ${AIR_FUZZ_SRC}/corpus ${PROJECT_SOURCE_DIR}/samples)
foreach(d tests/data/programs tests/data/parse tests/data/constructs tests/tools)
  if(IS_DIRECTORY ${PROJECT_SOURCE_DIR}/${d})
    list(APPEND AIR_FUZZ_SEEDS ${PROJECT_SOURCE_DIR}/${d})
  endif()
endforeach()

add_executable(fuzz_parse_corpus ${AIR_FUZZ_SRC}/fuzz_parse.c ${AIR_FUZZ_SRC}/fuzz_driver.c)
target_link_libraries(fuzz_parse_corpus PRIVATE airrt_static)
add_test(NAME fuzz_parse_corpus COMMAND fuzz_parse_corpus ${AIR_FUZZ_SEEDS})
set_tests_properties(fuzz_parse_corpus PROPERTIES LABELS "fuzz" TIMEOUT 300)

if(AIR_FUZZ)
  if(NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
    message(FATAL_ERROR "AIR_FUZZ=ON needs clang (libFuzzer): configure with "
                        "-DCMAKE_C_COMPILER=clang")
  endif()
  if(AIR_SANITIZE MATCHES "thread|memory")
    message(FATAL_ERROR "AIR_FUZZ=ON uses AddressSanitizer; it cannot be combined "
                        "with AIR_SANITIZE=${AIR_SANITIZE}")
  endif()
  set(AIR_FUZZ_FLAGS -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all
                     -fno-omit-frame-pointer)
  add_executable(fuzz_parse ${AIR_FUZZ_SRC}/fuzz_parse.c ${AIR_SOURCES})
  target_compile_definitions(fuzz_parse PRIVATE AIR_FUZZ_LIBFUZZER=1)
  # The library's own include paths and definitions, whatever they grow into.
  target_include_directories(fuzz_parse PRIVATE
    $<TARGET_PROPERTY:airrt_objects,INCLUDE_DIRECTORIES>)
  target_compile_definitions(fuzz_parse PRIVATE
    $<TARGET_PROPERTY:airrt_objects,COMPILE_DEFINITIONS>)
  target_compile_options(fuzz_parse PRIVATE ${AIR_FUZZ_FLAGS})
  target_link_options(fuzz_parse PRIVATE ${AIR_FUZZ_FLAGS})
  # Whatever the library links (threads, libm, later libelf, ...), so its own
  # copy here needs no list of its own kept in step.
  target_link_libraries(fuzz_parse PRIVATE $<TARGET_PROPERTY:airrt,LINK_LIBRARIES>)
  # A smoke run: every seed once, under libFuzzer's own harness.
  add_test(NAME fuzz_parse_seeds COMMAND fuzz_parse -runs=0
    -dict=${AIR_FUZZ_SRC}/air.dict ${AIR_FUZZ_SEEDS})
  set_tests_properties(fuzz_parse_seeds PROPERTIES LABELS "fuzz" TIMEOUT 300)
endif()
