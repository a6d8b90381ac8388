# Builder API, three tests sharing tests/builder_test.h: programs built op by op
# (tests/builder_programs.c) and their IR structure (test_builder); argument and
# state checks (test_builder_errors); print/parse round trips and the verifier
# over the built programs (test_builder_roundtrip).
air_add_test(test_builder ${CMAKE_CURRENT_SOURCE_DIR}/test_builder.c
             ${CMAKE_CURRENT_SOURCE_DIR}/builder_programs.c)
air_add_test(test_builder_errors ${CMAKE_CURRENT_SOURCE_DIR}/test_builder_errors.c)
air_add_test(test_builder_roundtrip ${CMAKE_CURRENT_SOURCE_DIR}/test_builder_roundtrip.c
             ${CMAKE_CURRENT_SOURCE_DIR}/builder_programs.c)
# Builder calls for mlir-air's wider op set (issue 12): each program built,
# verified, round-tripped through text and run on the CPU driver against C.
air_add_test(test_builder_ext ${CMAKE_CURRENT_SOURCE_DIR}/test_builder_ext.c)
set_tests_properties(test_builder_ext PROPERTIES LABELS "concurrency")
target_link_libraries(test_builder_ext PRIVATE m)
