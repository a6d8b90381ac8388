# The loader of the code generator's x86-64 objects (hal/code_object.c), with no
# LLVM: objects from tests/fuzz/code_object_corpus linked, run and corrupted.
air_add_test(test_code_object ${CMAKE_CURRENT_SOURCE_DIR}/test_code_object.c)
