# The AIR text printer: exact output on hand-built IR, and print/parse round trips
# over the program corpus.
air_add_test(test_print ${CMAKE_CURRENT_SOURCE_DIR}/test_print.c)
air_add_test(test_roundtrip ${CMAKE_CURRENT_SOURCE_DIR}/test_roundtrip.c)
# mlir-air's constructs beyond the core set (tests/data/constructs): parse, print
# as written, round trip, verify.
air_add_test(test_constructs ${CMAKE_CURRENT_SOURCE_DIR}/test_constructs.c)
