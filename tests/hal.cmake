# HAL tests: concurrency primitives and drivers. Labelled so CI can run them under
# ThreadSanitizer on their own.
air_add_test(test_semaphore ${CMAKE_CURRENT_SOURCE_DIR}/test_semaphore.c)
set_tests_properties(test_semaphore PROPERTIES LABELS "concurrency")
air_add_test(test_pool ${CMAKE_CURRENT_SOURCE_DIR}/test_pool.c)
set_tests_properties(test_pool PROPERTIES LABELS "concurrency")
