# The loader of the code generator's x86-64 objects (hal/host_object.c), with no
# LLVM: objects from tests/fuzz/host_object_corpus linked, run and corrupted.
air_add_test(test_host_object ${CMAKE_CURRENT_SOURCE_DIR}/test_host_object.c)
