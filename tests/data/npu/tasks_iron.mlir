// An IRON-style design as mlir-aie's Python front end prints it: objectfifos
// with shim ends (no aie.shim_dma_allocation: the lowering infers them), a core,
// and a runtime sequence of DMA tasks without BD ids (numbered around the one
// that names its id; freed tasks give theirs back).
module {
  aie.device(npu1_1col) {
    %shim_noc_tile_0_0 = aie.tile(0, 0)
    %mem_tile_0_1 = aie.tile(0, 1)
    %tile_0_2 = aie.tile(0, 2)
    aie.objectfifo @in(%shim_noc_tile_0_0, {%mem_tile_0_1}, 2 : i32) : !aie.objectfifo<memref<1024xi32>>
    aie.objectfifo @in_l1(%mem_tile_0_1 dimensionsToStream [<size = 32, stride = 1>], {%tile_0_2}, 2 : i32) : !aie.objectfifo<memref<1024xi32>>
    aie.objectfifo.link [@in] -> [@in_l1]([] [])
    aie.objectfifo @in2(%shim_noc_tile_0_0, {%tile_0_2}, 2 : i32) : !aie.objectfifo<memref<256xi32>>
    aie.objectfifo @out(%tile_0_2, {%shim_noc_tile_0_0}, 2 : i32) : !aie.objectfifo<memref<1024xi32>>
    func.func private @passthrough(memref<1024xi32>, memref<1024xi32>, i32)
    %core_0_2 = aie.core(%tile_0_2) {
      %c0 = arith.constant 0 : index
      %c4 = arith.constant 4 : index
      %c1 = arith.constant 1 : index
      %c1024_i32 = arith.constant 1024 : i32
      scf.for %arg0 = %c0 to %c4 step %c1 {
        %0 = aie.objectfifo.acquire @in_l1(Consume, 1) : !aie.objectfifosubview<memref<1024xi32>>
        %1 = aie.objectfifo.subview.access %0[0] : !aie.objectfifosubview<memref<1024xi32>> -> memref<1024xi32>
        %2 = aie.objectfifo.acquire @out(Produce, 1) : !aie.objectfifosubview<memref<1024xi32>>
        %3 = aie.objectfifo.subview.access %2[0] : !aie.objectfifosubview<memref<1024xi32>> -> memref<1024xi32>
        func.call @passthrough(%1, %3, %c1024_i32) : (memref<1024xi32>, memref<1024xi32>, i32) -> ()
        aie.objectfifo.release @in_l1(Consume, 1)
        aie.objectfifo.release @out(Produce, 1)
      }
      aie.end
    } {link_with = "passthrough.o"}
    aie.runtime_sequence @seq(%arg0: memref<4096xi32>, %arg1: memref<256xi32>, %arg2: memref<4096xi32>) {
      %0 = aiex.dma_configure_task_for @in {
        aie.dma_bd(%arg0 : memref<4096xi32>, 0, 4096, [<size = 1, stride = 0>, <size = 4, stride = 1024>, <size = 32, stride = 32>, <size = 32, stride = 1>]) {burst_length = 0 : i32}
        aie.end
      }
      aiex.dma_start_task(%0)
      %1 = aiex.dma_configure_task_for @in2 {
        aie.dma_bd(%arg1 : memref<256xi32>, 0, 256)
        aie.end
      } {issue_token = true}
      aiex.dma_start_task(%1)
      %2 = aiex.dma_configure_task_for @out {
        aie.dma_bd(%arg2 : memref<4096xi32>, 1024, 2048) {bd_id = 0 : i32}
        aie.end
      } {issue_token = true, repeat_count = 1 : i32}
      aiex.dma_start_task(%2)
      aiex.dma_await_task(%2)
      aiex.dma_await_task(%1)
      aiex.dma_free_task(%0)
      aiex.dma_free_task(%1)
      %3 = aiex.dma_configure_task_for @in {
        aie.dma_bd(%arg0 : memref<4096xi32>, 0, 1024)
        aie.end
      }
      aiex.dma_start_task(%3)
    }
  }
}
