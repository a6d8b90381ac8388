# The CPU driver's library kernels (src/hal/cpu/kernels/) against their reference
# loops, bit for bit.
air_add_test(test_kernels ${CMAKE_CURRENT_SOURCE_DIR}/test_kernels.c)
target_link_libraries(test_kernels PRIVATE m)
