# Shared base helpers (src/runtime/base): checked allocation, growth, pointer map.
air_add_test(test_base ${CMAKE_CURRENT_SOURCE_DIR}/test_base.c)
