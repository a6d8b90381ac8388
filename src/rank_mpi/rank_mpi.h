/* rank_mpi.h - the MPI transport for ranks (library airrt_mpi, built when
 * Open MPI is found; libairrt itself never links MPI).
 *
 * Symmetric memrefs are MPI-3 windows (MPI_Win_allocate, locked for passive
 * target once with MPI_Win_lock_all), cross-rank DMA is MPI_Put/MPI_Get followed
 * by MPI_Win_flush, and the executor's messages (cross-rank channels, deadlock
 * detection, failures) are point-to-point sends on a communicator of their own,
 * received by a thread of the transport. Needs MPI_THREAD_MULTIPLE.
 */
#ifndef AIR_RANK_MPI_RANK_MPI_H_
#define AIR_RANK_MPI_RANK_MPI_H_

#include "air/config.h"

#include <stdbool.h>

#include "air/allocator.h"
#include "air/rank.h"
#include "air/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* True when this process was started by an MPI launcher (mpirun sets its
 * environment), so a tool can choose the MPI transport without a flag. */
bool air_rank_mpi_launched(void);

/* Initialises MPI (MPI_Init_thread with MPI_THREAD_MULTIPLE) unless the host did
 * already, and makes a transport over MPI_COMM_WORLD. `allocator` may be NULL
 * (the C heap). FAILED_PRECONDITION when MPI cannot give MPI_THREAD_MULTIPLE.
 * Destroying the transport finalises MPI if this call initialised it. */
air_status_t air_rank_transport_mpi_create(const air_allocator_t* allocator,
                                                   air_rank_transport_t** out_transport);

/* Ends every process of MPI_COMM_WORLD with `code` (MPI_Abort): the last resort
 * of a tool whose run could not even tell its peers it failed. */
void air_rank_mpi_abort(int code);

#ifdef __cplusplus
}
#endif
#endif /* AIR_RANK_MPI_RANK_MPI_H_ */
