# HAL object layer and the cpu device, three tests sharing tests/hal_device_test.h:
# URIs, buffers, transfers, command buffer recording, out of memory
# (test_hal_device); queue ordering, failure propagation, draining, concurrent
# submissions (test_hal_device_sync); executables and dispatch
# (test_hal_device_dispatch). Labelled to run under ThreadSanitizer.
foreach(t test_hal_device test_hal_device_sync test_hal_device_dispatch)
  air_add_test(${t} ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c)
  set_tests_properties(${t} PROPERTIES LABELS "concurrency")
endforeach()
# Submissions that run on their caller's thread once measured short (cpu_queue.c).
air_add_test(test_caller_run ${CMAKE_CURRENT_SOURCE_DIR}/test_caller_run.c)
set_tests_properties(test_caller_run PROPERTIES LABELS "concurrency")
