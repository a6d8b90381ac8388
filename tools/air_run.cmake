# air-run: runs a program on a device (TOOLS.md, docs/air-run.md).
add_executable(air-run
  ${CMAKE_CURRENT_SOURCE_DIR}/air_run.c
  ${CMAKE_CURRENT_SOURCE_DIR}/air_run_cli.c
  ${CMAKE_CURRENT_SOURCE_DIR}/air_run_args.c
  ${CMAKE_CURRENT_SOURCE_DIR}/air_run_gpu.c
  ${CMAKE_CURRENT_SOURCE_DIR}/npy.c)
target_include_directories(air-run PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
# The static archive, like airc: an installed air-run needs no rpath.
target_link_libraries(air-run PRIVATE air_tool_util airrt_internal m ${CMAKE_DL_LIBS})
# GPU devices: kernels for a .mlir program are generated on the way (air_run_gpu.c)
# by the code generator, loaded as the runtime loads it (hal/codegen_load.h).
# Under mpirun, air-run runs one block of ranks per process through the MPI
# transport (docs/scale-out.md); without Open MPI it runs every rank itself.
if(TARGET airrt_mpi)
  target_link_libraries(air-run PRIVATE airrt_mpi)
  target_compile_definitions(air-run PRIVATE AIR_RUN_MPI=1)
endif()
install(TARGETS air-run RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
