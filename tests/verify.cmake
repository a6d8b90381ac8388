# The verifier: one failing and one passing program per rule (data/verify),
# every valid program (data/programs, samples) verifies cleanly, hand-built and
# randomly corrupted IR, and a million-op program.
air_add_test(test_verify ${CMAKE_CURRENT_SOURCE_DIR}/test_verify.c)
