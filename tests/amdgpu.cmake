# AMDGPU code objects (src/amdgpu/): the reader's tests run over objects that
# Debian's clang builds here at build time, for several targets and code-object
# versions, and over the images embedded in libhsa-runtime64 (BACKENDS.md 3.2).
# clang-14 + lld-14 build v3/v4 for gfx908, gfx90a, gfx1030; clang-16 + lld-16 add
# gfx940, gfx1100 and v5 (clang's own link step would run the unversioned lld,
# which is 14, so objects are linked with the matching ld.lld explicitly). A
# toolchain that is absent leaves its objects out; the manifest tells the test
# which exist.
set(AIR_AMDGPU_DATA ${CMAKE_CURRENT_SOURCE_DIR}/data/amdgpu)
set(AIR_AMDGPU_OUT ${CMAKE_CURRENT_BINARY_DIR}/amdgpu)
file(MAKE_DIRECTORY ${AIR_AMDGPU_OUT})
find_program(AIR_CLANG14 NAMES clang-14)
find_program(AIR_LLD14 NAMES ld.lld-14)
find_program(AIR_CLANG16 NAMES clang-16)
find_program(AIR_LLD16 NAMES ld.lld PATHS /usr/lib/llvm-16/bin NO_DEFAULT_PATH)
find_program(AIR_LLC16 NAMES llc PATHS /usr/lib/llvm-16/bin NO_DEFAULT_PATH)
find_program(AIR_LLVM_READELF NAMES llvm-readelf-16 llvm-readelf-14 llvm-readelf)

set(AIR_AMDGPU_OBJECTS "")
set(AIR_AMDGPU_MANIFEST_TEXT "")
# air_amdgpu_object(LLVM MCPU VERSION LANG): kernels.cl (LANG cl) or hidden.hip (hip)
# built for MCPU as code-object VERSION by clang-LLVM, then linked into an .hsaco.
function(air_amdgpu_object llvm mcpu version lang)
  set(cc ${AIR_CLANG${llvm}})
  set(lld ${AIR_LLD${llvm}})
  if(NOT cc OR NOT lld)
    return()
  endif()
  set(name ${lang}${llvm}-${mcpu}-v${version})
  set(obj ${AIR_AMDGPU_OUT}/${name}.o)
  set(out ${AIR_AMDGPU_OUT}/${name}.hsaco)
  if(lang STREQUAL "cl")
    set(src ${AIR_AMDGPU_DATA}/kernels.cl)
    add_custom_command(OUTPUT ${out}
      COMMAND ${cc} -x cl -cl-std=CL1.2 --target=amdgcn-amd-amdhsa -mcpu=${mcpu} -nogpulib -O2
              -mcode-object-version=${version} -c ${src} -o ${obj}
      COMMAND ${lld} -shared ${obj} -o ${out}
      DEPENDS ${src} VERBATIM)
  else()
    if(NOT AIR_LLC${llvm})
      return()
    endif()
    # HIP's device-only compile always links with the unversioned lld: emit IR and
    # let llc and the matching lld finish.
    set(src ${AIR_AMDGPU_DATA}/hidden.hip)
    add_custom_command(OUTPUT ${out}
      COMMAND ${cc} -x hip --cuda-device-only -nogpuinc -nogpulib --offload-arch=${mcpu} -O2
              -mcode-object-version=${version} -emit-llvm -c ${src} -o ${obj}.bc
      COMMAND ${AIR_LLC${llvm}} --amdhsa-code-object-version=${version}
              -mtriple=amdgcn-amd-amdhsa -mcpu=${mcpu} -filetype=obj ${obj}.bc -o ${obj}
      COMMAND ${lld} -shared ${obj} -o ${out}
      DEPENDS ${src} VERBATIM)
  endif()
  set(AIR_AMDGPU_OBJECTS ${AIR_AMDGPU_OBJECTS} ${out} PARENT_SCOPE)
  set(AIR_AMDGPU_MANIFEST_TEXT "${AIR_AMDGPU_MANIFEST_TEXT}${out} ${mcpu} ${version} ${lang}\n"
      PARENT_SCOPE)
endfunction()

air_amdgpu_object(14 gfx908 4 cl)
air_amdgpu_object(14 gfx90a 3 cl)
air_amdgpu_object(14 gfx90a 4 cl)
air_amdgpu_object(14 gfx1030 4 cl)
air_amdgpu_object(16 gfx940 4 cl)
air_amdgpu_object(16 gfx1100 4 cl)
air_amdgpu_object(16 gfx90a 5 cl)
air_amdgpu_object(16 gfx940 5 cl)
air_amdgpu_object(16 gfx1100 5 cl)
air_amdgpu_object(16 gfx90a 4 hip)
air_amdgpu_object(16 gfx90a 5 hip)
air_amdgpu_object(16 gfx1100 5 hip)
file(WRITE ${AIR_AMDGPU_OUT}/manifest.txt "${AIR_AMDGPU_MANIFEST_TEXT}")
add_custom_target(amdgpu_test_objects ALL DEPENDS ${AIR_AMDGPU_OBJECTS})

air_add_test(test_code_object ${CMAKE_CURRENT_SOURCE_DIR}/test_code_object.c)
target_compile_definitions(test_code_object PRIVATE
  AIR_AMDGPU_MANIFEST="${AIR_AMDGPU_OUT}/manifest.txt")
target_link_libraries(test_code_object PRIVATE airrt::libelf)
add_dependencies(test_code_object amdgpu_test_objects)

# `airc inspect --json` against llvm-readelf --notes on every generated object and
# on the libhsa-runtime64 images: the same target and the same value for every field.
if(TARGET airc AND AIR_LLVM_READELF AND AIR_AMDGPU_OBJECTS)
  add_test(NAME airc_inspect_vs_readelf
    COMMAND python3 ${CMAKE_CURRENT_SOURCE_DIR}/amdgpu/inspect_vs_readelf.py
            $<TARGET_FILE:airc> ${AIR_LLVM_READELF} ${AIR_AMDGPU_OUT}/manifest.txt)
  set_tests_properties(airc_inspect_vs_readelf PROPERTIES TIMEOUT 120 LABELS "cli")
endif()
