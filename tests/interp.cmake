# The CPU executor: programs run on the worker pool, checked against C references.
air_add_test(test_interp ${CMAKE_CURRENT_SOURCE_DIR}/test_interp.c)
set_tests_properties(test_interp PROPERTIES LABELS "concurrency")
# The end-of-run check for transfers left unread in channels (issue 15).
air_add_test(test_interp_unread ${CMAKE_CURRENT_SOURCE_DIR}/test_interp_unread.c)
set_tests_properties(test_interp_unread PROPERTIES LABELS "concurrency")
