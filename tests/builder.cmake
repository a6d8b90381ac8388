# Builder API: programs built op by op, their IR structure, argument checks, and
# (once the printer, parser and verifier land) print/parse round trips.
air_add_test(test_builder ${CMAKE_CURRENT_SOURCE_DIR}/test_builder.c)
# Builder calls for mlir-air's wider op set (issue 12): each program built,
# verified, round-tripped through text and run on the CPU driver against C.
air_add_test(test_builder_ext ${CMAKE_CURRENT_SOURCE_DIR}/test_builder_ext.c)
set_tests_properties(test_builder_ext PROPERTIES LABELS "concurrency")
target_link_libraries(test_builder_ext PRIVATE m)
