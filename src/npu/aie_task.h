/* aie_task.h - DMA tasks of a runtime sequence to TXN: `aiex.dma_configure_task_for`,
 * `aiex.dma_configure_task`, `aiex.dma_start_bd_chain(_for)` (with a device-level
 * `aie.bd_chain`), `aiex.dma_start_task`, `aiex.dma_await_task`,
 * `aiex.dma_free_task`, and the task-queue push they share with
 * `aiex.npu.push_queue` and `dma_memcpy_nd`. Semantics: NPU-DMA.md §6-§11 and
 * docs/npu.md ("DMA tasks"). */
#ifndef AIR_NPU_AIE_TASK_H_
#define AIR_NPU_AIE_TASK_H_

#include "npu/aie_sym.h"

/* Marks the BD ids written on the sequence's task BDs as taken, before any
 * unnumbered BD gets one (mlir-aie numbers around the written ones). */
air_status_t aie_task_reserve(aie_lower_t* L, uint32_t seq);

/* A configure op (or a bd-chain start): its BDs as blockwrites, each followed by
 * its address patch (a sequence argument) or base-address maskwrite (an
 * aie.buffer on a mem tile); a chain start also pushes the task. */
air_status_t aie_task_configure(aie_lower_t* L, const aie_op_t* op);

/* dma_start_task (push), dma_await_task (sync), dma_free_task (BD ids back). */
air_status_t aie_task_use(aie_lower_t* L, const aie_op_t* op);

/* The controller-id maskwrite (with a token, when the tile has a controller_id)
 * and the queue write that start BD `bd` on (col, row, dir, channel). */
void aie_task_push(aie_lower_t* L, uint32_t col, uint32_t row, air_npu_dir_t dir,
                   uint32_t channel, uint32_t bd, uint32_t repeat, bool token);

#endif /* AIR_NPU_AIE_TASK_H_ */
