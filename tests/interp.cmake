# The CPU executor: programs run on the worker pool, checked against C references.
air_add_test(test_interp ${CMAKE_CURRENT_SOURCE_DIR}/test_interp.c)
set_tests_properties(test_interp PROPERTIES LABELS "concurrency")
