# airc: the schedule compiler's command line (TOOLS.md). Subcommands live in
# airc.c's dispatch table; a subcommand with its own source file is added here.
add_executable(airc
  ${CMAKE_CURRENT_SOURCE_DIR}/airc.c
  ${CMAKE_CURRENT_SOURCE_DIR}/airc_compile.c
  ${CMAKE_CURRENT_SOURCE_DIR}/airc_inspect.c
  ${CMAKE_CURRENT_SOURCE_DIR}/airc_npu.c
  ${CMAKE_CURRENT_SOURCE_DIR}/airc_pack.c
  ${CMAKE_CURRENT_SOURCE_DIR}/airc_report.c
  ${CMAKE_CURRENT_SOURCE_DIR}/airc_targets.c)
target_include_directories(airc PRIVATE ${CMAKE_CURRENT_SOURCE_DIR})
# The static archive: an installed airc then runs without LD_LIBRARY_PATH or rpath.
target_link_libraries(airc PRIVATE air_tool_util airrt_internal)
# GPU targets: kernels generated at compile time (docs/gpu.md) by the code
# generator, which airc loads like the runtime does (hal/codegen_load.h).
install(TARGETS airc RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
