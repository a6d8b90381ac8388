# The verifier: one failing and one passing program per rule (data/verify),
# every valid program (data/programs, samples) verifies cleanly, hand-built and
# randomly corrupted IR, and a million-op program: test_verify (text),
# test_verify_ir (hand-built IR), test_verify_robust (malformed, mutations,
# large), the last two sharing tests/verify_test.h.
foreach(t test_verify test_verify_ir test_verify_robust)
  air_add_test(${t} ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c)
endforeach()
