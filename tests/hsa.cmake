# The hsa driver's layers that run without a GPU: AQL packets and the publication
# protocol, and the driver's queue against the software HSA runtime (soft_hsa).
if(TARGET air_soft_hsa)
  air_add_test(test_hsa_queue ${CMAKE_CURRENT_SOURCE_DIR}/test_hsa_queue.c)
  target_link_libraries(test_hsa_queue PRIVATE air_soft_hsa)
  set_tests_properties(test_hsa_queue PROPERTIES LABELS "concurrency")
endif()
if(TARGET air_soft_hsa)
  air_add_test(test_hsa_device ${CMAKE_CURRENT_SOURCE_DIR}/test_hsa_device.c)
  target_link_libraries(test_hsa_device PRIVATE air_soft_hsa)
  # The code objects tests/amdgpu.cmake builds (linked herds run them).
  target_compile_definitions(test_hsa_device PRIVATE AIR_AMDGPU_OBJECTS_DIR="${AIR_AMDGPU_OUT}")
  add_dependencies(test_hsa_device amdgpu_test_objects)
  set_tests_properties(test_hsa_device PROPERTIES LABELS "concurrency")
endif()
