# dag-overhead benchmark (PERFORMANCE.md, TOOLS.md): the stand-alone binary
# air-bench-dag-overhead. The body lives in a library so the air-bench front end can
# link it and dispatch `air-bench dag-overhead` to air_bench_dag_overhead(argc, argv).
# Anchors, each only when available: oneTBB flow graph (C++, TBB's CMake config),
# OpenMP task depend with the C compiler's runtime (libgomp under gcc), and the same
# OpenMP source built by clang against libomp as the helper air-bench-dag-libomp,
# which the benchmark runs as a child process (two OpenMP runtimes in one process
# would clash).
# The airrt row's replay of a compiled partition (sched_replay.c, on the library's
# worker pool), a library of its own so its test (tests/sched_replay.cmake) links
# it without the anchors.
add_library(air_bench_sched_replay STATIC ${CMAKE_CURRENT_LIST_DIR}/sched_replay.c)
target_link_libraries(air_bench_sched_replay PUBLIC airrt_internal Threads::Threads)
target_include_directories(air_bench_sched_replay PUBLIC ${CMAKE_CURRENT_LIST_DIR})

add_library(air_bench_dag_overhead STATIC
  ${CMAKE_CURRENT_LIST_DIR}/dag_overhead.c
  ${CMAKE_CURRENT_LIST_DIR}/dag_gen.c
  ${CMAKE_CURRENT_LIST_DIR}/dag_floor.c
  ${CMAKE_CURRENT_LIST_DIR}/dag_airrt.c)
target_link_libraries(air_bench_dag_overhead PUBLIC air_bench_sched_replay air_tool_util
  airrt_internal Threads::Threads)
target_include_directories(air_bench_dag_overhead PUBLIC ${CMAKE_CURRENT_LIST_DIR})

find_package(OpenMP COMPONENTS C QUIET)
if(OpenMP_C_FOUND)
  target_sources(air_bench_dag_overhead PRIVATE ${CMAKE_CURRENT_LIST_DIR}/dag_omp.c)
  target_link_libraries(air_bench_dag_overhead PUBLIC OpenMP::OpenMP_C)
  target_compile_definitions(air_bench_dag_overhead PRIVATE AIR_BENCH_HAVE_OPENMP)
else()
  message(STATUS "dag-overhead: no OpenMP for the C compiler; the gomp anchor is skipped")
endif()

include(CheckLanguage)
check_language(CXX)
if(CMAKE_CXX_COMPILER)
  enable_language(CXX)
  find_package(TBB CONFIG QUIET)
  # -Wstrict-prototypes (top level) is C-only; keep it off this target's C++ file
  # so g++ does not warn about it.
  get_target_property(_air_bench_opts air_bench_dag_overhead COMPILE_OPTIONS)
  if(_air_bench_opts)
    list(TRANSFORM _air_bench_opts REPLACE "^-Wstrict-prototypes$"
         "$<$<COMPILE_LANGUAGE:C>:-Wstrict-prototypes>")
    set_target_properties(air_bench_dag_overhead PROPERTIES COMPILE_OPTIONS "${_air_bench_opts}")
  endif()
endif()
if(CMAKE_CXX_COMPILER AND TBB_FOUND)
  target_sources(air_bench_dag_overhead PRIVATE ${CMAKE_CURRENT_LIST_DIR}/dag_tbb.cpp)
  set_source_files_properties(${CMAKE_CURRENT_LIST_DIR}/dag_tbb.cpp PROPERTIES
    COMPILE_OPTIONS "-std=c++17")
  target_link_libraries(air_bench_dag_overhead PUBLIC TBB::tbb)
  target_compile_definitions(air_bench_dag_overhead PRIVATE AIR_BENCH_HAVE_TBB)
else()
  message(STATUS "dag-overhead: no C++ compiler or no oneTBB (libtbb-dev); the tbb anchor is skipped")
endif()

add_executable(air-bench-dag-overhead ${CMAKE_CURRENT_LIST_DIR}/dag_overhead_main.c)
target_link_libraries(air-bench-dag-overhead PRIVATE air_bench_dag_overhead)

# libomp: clang -fopenmp over the same dag_omp.c (+ the generator), outside the
# project's C compiler, when the C compiler is not clang already.
find_program(AIR_BENCH_CLANG NAMES clang clang-14)
find_library(AIR_BENCH_LIBOMP NAMES omp PATHS /usr/lib/llvm-14/lib)
if(AIR_BENCH_CLANG AND AIR_BENCH_LIBOMP AND NOT CMAKE_C_COMPILER_ID MATCHES "Clang")
  get_filename_component(_air_libomp_dir ${AIR_BENCH_LIBOMP} DIRECTORY)
  set(_air_libomp_helper ${CMAKE_CURRENT_BINARY_DIR}/air-bench-dag-libomp)
  add_custom_command(OUTPUT ${_air_libomp_helper}
    COMMAND ${AIR_BENCH_CLANG} -std=c11 -O2 -g -Wall -Wextra -Werror -fopenmp=libomp
      -DDAG_OMP_MAIN -I${CMAKE_CURRENT_LIST_DIR}
      ${CMAKE_CURRENT_LIST_DIR}/dag_omp.c ${CMAKE_CURRENT_LIST_DIR}/dag_gen.c
      -L${_air_libomp_dir} -Wl,-rpath,${_air_libomp_dir} -o ${_air_libomp_helper}
    DEPENDS ${CMAKE_CURRENT_LIST_DIR}/dag_omp.c ${CMAKE_CURRENT_LIST_DIR}/dag_gen.c
      ${CMAKE_CURRENT_LIST_DIR}/dag_gen.h
    COMMENT "Building air-bench-dag-libomp with clang -fopenmp (libomp)"
    VERBATIM)
  add_custom_target(air_bench_dag_libomp_helper ALL DEPENDS ${_air_libomp_helper})
  add_dependencies(air-bench-dag-overhead air_bench_dag_libomp_helper)
  target_compile_definitions(air_bench_dag_overhead PRIVATE
    AIR_BENCH_LIBOMP_HELPER="${_air_libomp_helper}")
else()
  message(STATUS "dag-overhead: C compiler is clang (its OpenMP row is libomp) or no clang + libomp-dev: no separate libomp helper")
endif()
