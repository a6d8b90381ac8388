# Open MPI (Debian: libopenmpi-dev), for the ranks' MPI transport (src/rank_mpi)
# only: the imported target airrt::mpi, or nothing when MPI is absent. The core
# library never links it; without it ranks run in process (docs/scale-out.md).
if(NOT TARGET airrt::mpi)
  find_package(MPI COMPONENTS C QUIET)
  if(MPI_C_FOUND)
    add_library(airrt::mpi INTERFACE IMPORTED)
    target_link_libraries(airrt::mpi INTERFACE MPI::MPI_C)
    # The launcher the MPI tests and benchmark run under.
    set(AIRRT_MPIEXEC ${MPIEXEC_EXECUTABLE})
  endif()
endif()
