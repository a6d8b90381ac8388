# The NPU driver (src/hal/xrt) against a tests-only fake libxrt_coreutil, a
# shared library the driver loads through its own dlopen path (AIR_XRT_LIBRARY).
add_library(air_fake_xrt SHARED ${CMAKE_CURRENT_SOURCE_DIR}/xrt_fake/fake_xrt.c)
target_link_libraries(air_fake_xrt PRIVATE Threads::Threads)
air_add_test(test_xrt ${CMAKE_CURRENT_SOURCE_DIR}/test_xrt.c)
target_link_libraries(test_xrt PRIVATE ${CMAKE_DL_LIBS})
target_compile_definitions(test_xrt PRIVATE AIR_FAKE_XRT="$<TARGET_FILE:air_fake_xrt>")
add_dependencies(test_xrt air_fake_xrt)
set_tests_properties(test_xrt PROPERTIES LABELS "concurrency")
# air-run --device xrt:N on this machine (real environment, real Debian XRT when
# installed) and through the fake.
if(TARGET air-run AND TARGET airc)
  set(_air_xrt_sanitized 0)
  if(AIR_SANITIZE)
    set(_air_xrt_sanitized 1)
  endif()
  add_test(NAME air_run_xrt COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/air_run/xrt.sh
    $<TARGET_FILE:air-run> $<TARGET_FILE:air_fake_xrt>
    ${CMAKE_CURRENT_SOURCE_DIR}/data/npu/l3_copy.mlir
    ${CMAKE_CURRENT_SOURCE_DIR}/data/npu/l3_copy.insts.hex $<TARGET_FILE:airc>
    ${_air_xrt_sanitized})
  set_tests_properties(air_run_xrt PROPERTIES LABELS "air-run" TIMEOUT 300)
endif()
