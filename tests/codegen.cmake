# The code generator (src/codegen), when LLVM 16 is there: compiled units against
# the interpreter (test_codegen: computed values; test_codegen_limits: errors,
# fallback, coverage, objects for x86-64 and amdgcn), sharing tests/codegen_test.h.
if(TARGET airrt_codegen)
  # test_codegen_air: units holding DMAs, allocs and air.executes; whole herd
  # bodies (cg_air.c), run through the executor both ways.
  foreach(t test_codegen test_codegen_limits test_codegen_air)
    air_add_test(${t} ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c)
    target_link_libraries(${t} PRIVATE airrt_codegen)
  endforeach()
  # test_codegen_flat: launches run flat on the inline path (flat.c), pool
  # workers helping the calling thread on large herds (label concurrency).
  air_add_test(test_codegen_flat ${CMAKE_CURRENT_SOURCE_DIR}/test_codegen_flat.c)
  target_link_libraries(test_codegen_flat PRIVATE airrt_codegen)
  set_tests_properties(test_codegen_flat PROPERTIES LABELS "concurrency")
endif()
# The runtime loading libairrt_codegen.so with no LLVM linked (hal/codegen_load.c).
if(TARGET airrt_codegen_shared)
  air_add_test(test_codegen_load ${CMAKE_CURRENT_SOURCE_DIR}/test_codegen_load.c)
  add_dependencies(test_codegen_load airrt_codegen_shared)
endif()
