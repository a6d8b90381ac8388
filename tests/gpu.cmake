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
  # Segments with iteration spaces, nested segments, the MI3xx XCD mapping.
  air_add_test(test_gpu_segments ${CMAKE_CURRENT_SOURCE_DIR}/test_gpu_segments.c)
  target_link_libraries(test_gpu_segments PRIVATE airrt_codegen air_gpu_sim)
  target_compile_definitions(test_gpu_segments PRIVATE
    AIR_GPU_DATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}/data/gpu")
  set_tests_properties(test_gpu_segments PROPERTIES LABELS "concurrency")
  if(AIR_BUILD_TOOLS)
    foreach(case "vadd;${CMAKE_CURRENT_SOURCE_DIR}/data/gpu/vadd.mlir;2"
                 "tiled_matmul;${CMAKE_CURRENT_SOURCE_DIR}/data/gpu/tiled_matmul.mlir;2"
                 "matmul_4x4;${PROJECT_SOURCE_DIR}/samples/matmul_4x4.mlir;2"
                 # segments with iteration spaces: nested (gfx90a), XCD-padded (gfx940's 6 XCDs)
                 "nested_segments;${CMAKE_CURRENT_SOURCE_DIR}/data/gpu/nested_segments.mlir;1,2"
                 "xcd_padded;${CMAKE_CURRENT_SOURCE_DIR}/data/gpu/xcd_padded.mlir;1,2;gfx940;none"
                 # linalg.generic: in a herd and in a segment; a bf16 GEMM with a reduction
                 "generic;${CMAKE_CURRENT_SOURCE_DIR}/data/gpu/generic.mlir;2,3"
                 "generic_bf16;${CMAKE_CURRENT_SOURCE_DIR}/data/programs/linalg_generic_bf16.mlir;3")
      list(GET case 0 name)
      list(GET case 1 prog)
      list(GET case 2 arg)
      list(LENGTH case n)
      set(gpu gfx90a)
      set(other gfx1100)
      if(n GREATER 3)
        list(GET case 3 gpu)
        list(GET case 4 other)
      endif()
      add_test(NAME air_run_gpu_${name}
               COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/air_run/gpu.sh $<TARGET_FILE:air-run>
                       $<TARGET_FILE:airc> $<TARGET_FILE:air_soft_hsa_rt> ${prog} ${arg} 60 ${gpu} ${other})
      set_tests_properties(air_run_gpu_${name} PROPERTIES LABELS "cli;concurrency" TIMEOUT 600)
    endforeach()
  endif()
endif()
