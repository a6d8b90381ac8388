# The CPU executor: programs run on the worker pool, checked against C references.
air_add_test(test_interp ${CMAKE_CURRENT_SOURCE_DIR}/test_interp.c)
set_tests_properties(test_interp PROPERTIES LABELS "concurrency")
# What a run reports besides its data (issue 15): transfers left unread in
# channels, and a trace track per PE whatever it computes.
air_add_test(test_interp_reports ${CMAKE_CURRENT_SOURCE_DIR}/test_interp_reports.c)
set_tests_properties(test_interp_reports PROPERTIES LABELS "concurrency")
