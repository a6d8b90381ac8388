# NPU reader fuzzing, built like the .airbin reader's (tests/fuzz_artifact.cmake):
#  - fuzz_txn (tests/fuzz/fuzz_txn.c): TXN instruction streams, binary or hex;
#  - fuzz_aie (tests/fuzz/fuzz_aie.c): mlir-aie modules to instruction streams.
# fuzz_<t>_corpus (always) replays tests/fuzz/<t>_corpus (findings and seeds)
# plus the NPU test data as a ctest; fuzz_<t> (AIR_FUZZ=ON) is the libFuzzer
# target with its own instrumented copy of the library.
# The NPU readers need only their layer and what it stands on (base, the lexer,
# the target table the NPU models come from):
# the libFuzzer builds compile just those, which keeps CI's sanitizer build short.
file(GLOB AIR_FUZZ_NPU_SOURCES CONFIGURE_DEPENDS ${PROJECT_SOURCE_DIR}/src/npu/*.c
  ${PROJECT_SOURCE_DIR}/src/runtime/base/*.c)
list(APPEND AIR_FUZZ_NPU_SOURCES ${PROJECT_SOURCE_DIR}/src/runtime/text/lex.c
  ${PROJECT_SOURCE_DIR}/src/runtime/target/target.c)
foreach(t txn aie)
  set(corpus ${AIR_FUZZ_SRC}/${t}_corpus ${CMAKE_CURRENT_SOURCE_DIR}/data/npu)
  add_executable(fuzz_${t}_corpus ${AIR_FUZZ_SRC}/fuzz_${t}.c ${AIR_FUZZ_SRC}/fuzz_driver.c)
  target_compile_definitions(fuzz_${t}_corpus PRIVATE air_fuzz_parse_one=air_fuzz_${t}_one)
  target_link_libraries(fuzz_${t}_corpus PRIVATE airrt_internal)
  add_test(NAME fuzz_${t}_corpus COMMAND fuzz_${t}_corpus ${corpus})
  set_tests_properties(fuzz_${t}_corpus PROPERTIES LABELS "fuzz" TIMEOUT 300)
  if(AIR_FUZZ)
    add_executable(fuzz_${t} ${AIR_FUZZ_SRC}/fuzz_${t}.c ${AIR_FUZZ_NPU_SOURCES})
    target_compile_definitions(fuzz_${t} PRIVATE AIR_FUZZ_LIBFUZZER=1
      $<TARGET_PROPERTY:airrt_objects,COMPILE_DEFINITIONS>)
    target_include_directories(fuzz_${t} PRIVATE
      $<TARGET_PROPERTY:airrt_objects,INCLUDE_DIRECTORIES> ${PROJECT_SOURCE_DIR}/src)
    target_compile_options(fuzz_${t} PRIVATE ${AIR_FUZZ_FLAGS})
    target_link_options(fuzz_${t} PRIVATE ${AIR_FUZZ_FLAGS})
    target_link_libraries(fuzz_${t} PRIVATE $<TARGET_PROPERTY:airrt,LINK_LIBRARIES>)
    add_test(NAME fuzz_${t}_seeds COMMAND fuzz_${t} -runs=0 ${corpus})
    set_tests_properties(fuzz_${t}_seeds PROPERTIES LABELS "fuzz" TIMEOUT 300)
  endif()
endforeach()
