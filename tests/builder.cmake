# Builder API: programs built op by op, their IR structure, argument checks, and
# (once the printer, parser and verifier land) print/parse round trips.
air_add_test(test_builder ${CMAKE_CURRENT_SOURCE_DIR}/test_builder.c)
