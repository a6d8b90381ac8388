# A channel op ready at its issue runs there, its ticket taken in its transfer's
# lane lock (issue 14, session 8, loop.c dispatch): exact data on 1, 2 and 3
# workers with depth 1 and 2, and the deadlock report of a get no put feeds.
air_add_test(test_interp_chanrun ${CMAKE_CURRENT_SOURCE_DIR}/test_interp_chanrun.c)
set_tests_properties(test_interp_chanrun PROPERTIES LABELS "concurrency")
air_add_path_tests(test_interp_chanrun)
