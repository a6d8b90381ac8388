# The CPU executor: programs run on the worker pool, checked against C references.
air_add_test(test_interp ${CMAKE_CURRENT_SOURCE_DIR}/test_interp.c)
set_tests_properties(test_interp PROPERTIES LABELS "concurrency")
# What a run reports besides its data (issue 15): transfers left unread in
# channels, and a trace track per PE whatever it computes.
air_add_test(test_interp_reports ${CMAKE_CURRENT_SOURCE_DIR}/test_interp_reports.c)
set_tests_properties(test_interp_reports PROPERTIES LABELS "concurrency")
# mlir-air's constructs beyond the core set (issue 12): every RUN entry of
# tests/data/constructs runs and is checked against C (libm for math), every
# RUN-ERROR entry is refused at the op.
air_add_test(test_constructs_run ${CMAKE_CURRENT_SOURCE_DIR}/test_constructs_run.c)
set_tests_properties(test_constructs_run PROPERTIES LABELS "concurrency")
target_link_libraries(test_constructs_run PRIVATE m)
