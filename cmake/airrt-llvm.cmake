# LLVM 16's C API (Debian: llvm-16-dev), for the code generator (src/codegen) only:
# the imported target airrt::llvm, or nothing when LLVM 16 is absent. The core
# library never links it (docs/codegen.md).
if(NOT TARGET airrt::llvm)
  find_path(AIRRT_LLVM_INCLUDE_DIR llvm-c/LLJIT.h
    PATHS /usr/lib/llvm-16/include NO_DEFAULT_PATH)
  find_library(AIRRT_LLVM_LIBRARY NAMES LLVM-16 LLVM
    PATHS /usr/lib/llvm-16/lib NO_DEFAULT_PATH)
  if(AIRRT_LLVM_INCLUDE_DIR AND AIRRT_LLVM_LIBRARY)
    add_library(airrt::llvm INTERFACE IMPORTED)
    # -isystem: LLVM's headers are not held to this project's warning flags.
    target_include_directories(airrt::llvm SYSTEM INTERFACE ${AIRRT_LLVM_INCLUDE_DIR})
    target_link_libraries(airrt::llvm INTERFACE ${AIRRT_LLVM_LIBRARY})
  endif()
endif()
