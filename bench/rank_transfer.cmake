# rank-transfer (issue 13): cross-rank dma between two processes against raw MPI
# one-sided transfers in the same run; run it as
#   mpirun -np 2 build/bench/air-bench-rank-transfer [--quick]
# Built with the MPI transport (Open MPI found). The ctest smoke run (label
# "bench") checks exit 0 only; not in sanitizer builds (Open MPI is not
# instrumented, as for the MPI tests).
if(TARGET airrt_mpi)
  add_executable(air-bench-rank-transfer ${CMAKE_CURRENT_LIST_DIR}/rank_transfer.c)
  target_include_directories(air-bench-rank-transfer PRIVATE ${PROJECT_SOURCE_DIR}/src)
  target_link_libraries(air-bench-rank-transfer PRIVATE airrt_mpi airrt_internal)
  if(BUILD_TESTING AND NOT AIR_SANITIZE)
    add_test(NAME bench_quick_rank_transfer
      COMMAND ${AIRRT_MPIEXEC} --oversubscribe --timeout 200 -np 2
              $<TARGET_FILE:air-bench-rank-transfer> --quick)
    set_tests_properties(bench_quick_rank_transfer PROPERTIES TIMEOUT 240 LABELS "bench;mpi"
      ENVIRONMENT "OMPI_ALLOW_RUN_AS_ROOT=1;OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1;OMPI_MCA_rmaps_base_oversubscribe=1;OMPI_MCA_btl_vader_single_copy_mechanism=none")
  endif()
endif()
