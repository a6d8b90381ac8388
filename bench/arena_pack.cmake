# arena-pack benchmark (PERFORMANCE.md, TOOLS.md): the stand-alone binary
# air-bench-arena-pack. The benchmark body lives in a library so the air-bench
# front end can link it and dispatch `air-bench arena-pack` to
# air_bench_arena_pack(argc, argv).
add_library(air_bench_arena_pack STATIC
  ${CMAKE_CURRENT_LIST_DIR}/arena_pack.c
  ${CMAKE_CURRENT_LIST_DIR}/pack_baselines.c
  ${CMAKE_CURRENT_LIST_DIR}/pack_gen.c)
target_link_libraries(air_bench_arena_pack PUBLIC air_tool_util airrt_internal)
target_include_directories(air_bench_arena_pack PUBLIC ${CMAKE_CURRENT_LIST_DIR})
# The instances sit beside the checkout (shared/data/dsa), in CI too; --data or
# $AIR_DSA_DIR override it.
target_compile_definitions(air_bench_arena_pack PRIVATE
  AIR_DSA_DATA_DIR="${PROJECT_SOURCE_DIR}/../shared/data/dsa")

add_executable(air-bench-arena-pack ${CMAKE_CURRENT_LIST_DIR}/arena_pack_main.c)
target_link_libraries(air-bench-arena-pack PRIVATE air_bench_arena_pack)
