# Scale-out (issue 13). test_rank_ir: air.rank, air.universe.alloc, symmetric
# allocations and src_rank/dst_rank through the builder, IR layout, print/parse
# round trip and rejections (the verifier's rules: data/verify/rank_*.mlir).
air_add_test(test_rank_ir ${CMAKE_CURRENT_SOURCE_DIR}/test_rank_ir.c)
# test_rank_run: the programs of data/rank end to end in process (2 and 4 ranks,
# both execution paths), every rank's copy read back through air/rank.h.
air_add_test(test_rank_run ${CMAKE_CURRENT_SOURCE_DIR}/test_rank_run.c)
set_tests_properties(test_rank_run PROPERTIES LABELS concurrency)
# test_rank_wire: ranks spread over "processes" that are threads of the test,
# joined by a fake transport (air/rank.h): channels across processes and the
# deadlock detection across them, without MPI (so under ASan and TSan too).
air_add_test(test_rank_wire ${CMAKE_CURRENT_SOURCE_DIR}/test_rank_wire.c)
set_tests_properties(test_rank_wire PROPERTIES LABELS concurrency)

# Under MPI (when the MPI transport is built): each test runs under the MPI
# launcher with 2 processes, oversubscribed (CI has 2 cores) and allowed as root
# (CI runs as root). Open MPI reads the two root variables from the environment.
# In containers (CI) the kernel may refuse cross-process memory copies (CMA needs
# ptrace rights), which breaks Open MPI's shared-memory transport: the env turns
# them off. mpirun's own --timeout ends every process of a hung job (and reports
# it) before ctest's TIMEOUT would.
# Not in sanitizer builds: Open MPI's own start-up leaks and races (an
# uninstrumented library) would fail them; the code under test is plain C that
# the in-process tests run under ASan and TSan.
if(TARGET airrt_mpi AND NOT AIR_SANITIZE)
  set(AIR_MPI_ENV OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
      OMPI_MCA_rmaps_base_oversubscribe=1 OMPI_MCA_btl_vader_single_copy_mechanism=none)
  # test_rank_mpi: the transport alone (windows, put/get, messages).
  add_executable(test_rank_mpi ${CMAKE_CURRENT_SOURCE_DIR}/test_rank_mpi.c)
  target_link_libraries(test_rank_mpi PRIVATE airrt_mpi air_test_support PkgConfig::CMOCKA)
  target_compile_definitions(test_rank_mpi PRIVATE AIR_TEST_DATA_DIR="${CMAKE_CURRENT_SOURCE_DIR}/data")
  add_test(NAME test_rank_mpi_np2
    COMMAND ${AIRRT_MPIEXEC} --oversubscribe --timeout 90 -np 2 $<TARGET_FILE:test_rank_mpi>)
  set_tests_properties(test_rank_mpi_np2 PROPERTIES LABELS "mpi" TIMEOUT 120
    ENVIRONMENT "${AIR_MPI_ENV}")
  add_test(NAME test_rank_mpi_np3
    COMMAND ${AIRRT_MPIEXEC} --oversubscribe --timeout 90 -np 3 $<TARGET_FILE:test_rank_mpi>)
  set_tests_properties(test_rank_mpi_np3 PROPERTIES LABELS "mpi" TIMEOUT 120
    ENVIRONMENT "${AIR_MPI_ENV}")
  # air-run under mpiexec with 2 and 4 processes against air-run in one process,
  # and the failures that must end every process (tests/rank_mpi_run.sh).
  foreach(np 2 4)
    add_test(NAME air_run_mpi_np${np}
      COMMAND bash ${CMAKE_CURRENT_SOURCE_DIR}/rank_mpi_run.sh $<TARGET_FILE:air-run>
              ${AIRRT_MPIEXEC} ${CMAKE_CURRENT_SOURCE_DIR}/data ${np})
    set_tests_properties(air_run_mpi_np${np} PROPERTIES LABELS "mpi;air-run" TIMEOUT 300
      ENVIRONMENT "${AIR_MPI_ENV}")
  endforeach()
endif()
