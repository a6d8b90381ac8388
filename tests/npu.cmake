# NPU instruction streams (src/npu): TXN encoder/decoder and BD encoders word by
# word, the mlir-aie module reader, and `airc npu-insts` on files of our own.
air_add_test(test_npu_txn ${CMAKE_CURRENT_SOURCE_DIR}/test_npu_txn.c)
air_add_test(test_npu_module ${CMAKE_CURRENT_SOURCE_DIR}/test_npu_module.c)
air_add_test(test_npu_tasks ${CMAKE_CURRENT_SOURCE_DIR}/test_npu_tasks.c)
air_add_test(test_npu_l3 ${CMAKE_CURRENT_SOURCE_DIR}/test_npu_l3.c)
