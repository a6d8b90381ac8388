# CLI tests for `airc npu-insts` (docs/npu.md); after tools.cmake, whose
# air_cli_test they use.
if(NOT TARGET airc)
  return()
endif()
set(AIR_NPU_DATA ${CMAKE_CURRENT_SOURCE_DIR}/data/npu)
add_test(NAME airc_npu_insts COMMAND bash ${AIR_CLI_DIR}/npu_insts.sh $<TARGET_FILE:airc>
  ${AIR_NPU_DATA})
set_tests_properties(airc_npu_insts PROPERTIES LABELS "cli" TIMEOUT 60)
air_cli_test(airc_npu_insts_help --rc 0 --stdout "^usage: airc npu-insts" -- airc npu-insts --help)
air_cli_test(airc_npu_insts_listed --rc 0 --stdout "npu-insts" -- airc --help)
air_cli_test(airc_npu_insts_bad_format --rc 2 --stderr "--format must be bin or hex"
  -- airc npu-insts ${AIR_NPU_DATA}/memcpy_example.mlir --format txt)
air_cli_test(airc_npu_insts_no_file --rc 2 --stderr "no input file" -- airc npu-insts)
air_cli_test(airc_npu_insts_not_module --rc 1 --no-stdout "."
  --stderr "vector_add_dma\\.mlir: error: no aie\\.device"
  -- airc npu-insts ${CMAKE_CURRENT_SOURCE_DIR}/data/programs/vector_add_dma.mlir --format hex)
air_cli_test(airc_npu_insts_decode_module --rc 1
  --stderr "memcpy_example\\.mlir: error: a binary instruction stream is a multiple of 4 bytes|word 0"
  -- airc npu-insts --decode ${AIR_NPU_DATA}/memcpy_example.mlir)
air_cli_test(airc_npu_insts_unknown_device --rc 1 --stdin ${AIR_NPU_DATA}/bad_device.mlir
  --stderr "^<stdin>:3:14: error: unknown NPU device 'npu9'" -- airc npu-insts - --format hex)
# DMA tasks of an IRON-style module (objectfifo allocations, BD ids): the S2MM0
# push of the @out task, and a bad task op located.
air_cli_test(airc_npu_insts_tasks --rc 0 --stdout "^80010000$" --stdout "^0001D204$"
  -- airc npu-insts ${AIR_NPU_DATA}/tasks_iron.mlir --format hex)
air_cli_test(airc_npu_insts_task_await --rc 1
  --stderr "^<stdin>:11:5: error: cannot wait on a task configured without issue_token"
  --stdin ${AIR_NPU_DATA}/bad_await.mlir -- airc npu-insts - --format hex)
# airc compile/report for every NPU target: the L3 stream is in the schedule.
air_cli_test(airc_report_npu_insts --rc 0 --stdout "@copy on npu1_2col: 106 words"
  --stdout "address_patch reg 0x0001d024 arg 0 plus 0x200"
  -- airc report ${AIR_NPU_DATA}/l3_copy.mlir --target npu1_2col --emit npu-insts)
air_cli_test(airc_report_npu_insts_none --rc 1
  --stderr "vector_add_dma\\.mlir: error: @vector_add has no NPU instruction stream: .*vector_add_dma\\.mlir:11:9: an L3 transfer inside 'air\\.herd'"
  -- airc report ${CMAKE_CURRENT_SOURCE_DIR}/data/programs/vector_add_dma.mlir --target npu2 --emit npu-insts)
air_cli_test(airc_report_npu_insts_not_npu --rc 1 --stderr "target xcvc1902 is not a Ryzen AI NPU"
  -- airc report ${AIR_NPU_DATA}/l3_copy.mlir --target xcvc1902 --emit npu-insts)
