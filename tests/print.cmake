# The AIR text printer on hand-built IR, four tests sharing tests/print_test.h:
# exact output for the core op classes (test_print), affine and linalg
# (test_print_affine), attributes, literals and value naming (test_print_attrs),
# broken IR, determinism, out of memory and speed (test_print_robust); and
# print/parse round trips over the program corpus (test_roundtrip).
foreach(t test_print test_print_affine test_print_attrs test_print_robust)
  air_add_test(${t} ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c)
endforeach()
air_add_test(test_roundtrip ${CMAKE_CURRENT_SOURCE_DIR}/test_roundtrip.c)
# mlir-air's constructs beyond the core set (tests/data/constructs): parse, print
# as written, round trip, verify.
air_add_test(test_constructs ${CMAKE_CURRENT_SOURCE_DIR}/test_constructs.c)
