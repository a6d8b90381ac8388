# The code generator (src/codegen), when LLVM 16 is there: compiled units against
# the interpreter, objects for x86-64 and amdgcn.
if(TARGET airrt_codegen)
  air_add_test(test_codegen ${CMAKE_CURRENT_SOURCE_DIR}/test_codegen.c)
  target_link_libraries(test_codegen PRIVATE airrt_codegen)
  # Units holding DMAs, allocs and air.executes; whole herd bodies (cg_air.c).
  air_add_test(test_codegen_air ${CMAKE_CURRENT_SOURCE_DIR}/test_codegen_air.c)
  target_link_libraries(test_codegen_air PRIVATE airrt_codegen)
endif()
# The runtime loading libairrt_codegen.so with no LLVM linked (hal/codegen_load.c).
if(TARGET airrt_codegen_shared)
  air_add_test(test_codegen_load ${CMAKE_CURRENT_SOURCE_DIR}/test_codegen_load.c)
  add_dependencies(test_codegen_load airrt_codegen_shared)
endif()
