# HAL object layer and the cpu device: URIs, buffers, executables, command buffers,
# queue submissions, failure propagation. Labelled to run under ThreadSanitizer.
air_add_test(test_hal_device ${CMAKE_CURRENT_SOURCE_DIR}/test_hal_device.c)
set_tests_properties(test_hal_device PROPERTIES LABELS "concurrency")
# Submissions that run on their caller's thread once measured short (cpu_queue.c).
air_add_test(test_caller_run ${CMAKE_CURRENT_SOURCE_DIR}/test_caller_run.c)
set_tests_properties(test_caller_run PROPERTIES LABELS "concurrency")
