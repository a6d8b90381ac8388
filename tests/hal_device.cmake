# HAL object layer and the cpu device: URIs, buffers, executables, command buffers,
# queue submissions, failure propagation. Labelled to run under ThreadSanitizer.
air_add_test(test_hal_device ${CMAKE_CURRENT_SOURCE_DIR}/test_hal_device.c)
set_tests_properties(test_hal_device PROPERTIES LABELS "concurrency")
