# GPU kernels generated from launches (issue 11, docs/gpu.md): code objects for
# every listed processor read back by the runtime's reader, the mapping's
# refusals, the host workgroup simulator, and end-to-end runs through the hsa
# driver on the software HSA runtime compared with the CPU driver.
if(TARGET airrt_codegen AND TARGET air_soft_hsa_rt)
  air_add_test(test_gpu_kernels ${CMAKE_CURRENT_SOURCE_DIR}/test_gpu_kernels.c)
  target_link_libraries(test_gpu_kernels PRIVATE airrt_codegen air_gpu_sim)
  target_compile_definitions(test_gpu_kernels PRIVATE
    AIR_GPU_DATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}/data/gpu"
    AIR_SAMPLES_DIR="${PROJECT_SOURCE_DIR}/samples")
  set_tests_properties(test_gpu_kernels PROPERTIES LABELS "concurrency")
  if(AIR_BUILD_TOOLS)
    foreach(case "vadd;${CMAKE_CURRENT_SOURCE_DIR}/data/gpu/vadd.mlir;2"
                 "tiled_matmul;${CMAKE_CURRENT_SOURCE_DIR}/data/gpu/tiled_matmul.mlir;2"
                 "matmul_4x4;${PROJECT_SOURCE_DIR}/samples/matmul_4x4.mlir;2")
      list(GET case 0 name)
      list(GET case 1 prog)
      list(GET case 2 arg)
      add_test(NAME air_run_gpu_${name}
               COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/air_run/gpu.sh $<TARGET_FILE:air-run>
                       $<TARGET_FILE:airc> $<TARGET_FILE:air_soft_hsa_rt> ${prog} ${arg})
      set_tests_properties(air_run_gpu_${name} PROPERTIES LABELS "cli;concurrency" TIMEOUT 600)
    endforeach()
  endif()
endif()
