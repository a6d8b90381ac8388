/* trace_impl.h - how drivers record into an air_trace_t (air/trace.h). */
#ifndef AIR_HAL_TRACE_IMPL_H_
#define AIR_HAL_TRACE_IMPL_H_

#include <stdint.h>

#include "air/trace.h"

typedef enum air_track_kind_e {
  AIR_TRACK_HOST = 0,    /* launch / segment bodies, host-side ops */
  AIR_TRACK_PE = 1,      /* one processing element of a herd */
  AIR_TRACK_DMA = 2,     /* dma_memcpy_nd transfers */
  AIR_TRACK_CHANNEL = 3, /* one channel index: puts and gets */
} air_track_kind_t;

/* Records a complete event [t0_ns, t1_ns] (air_time_now_ns clock) named `name` on
 * the track (`kind`, `track`), e.g. (PE, "herd @h [1, 2]"). Strings are copied.
 * A NULL trace records nothing. Thread-safe. */
void air_trace_record(air_trace_t* trace, air_track_kind_t kind, const char* track,
                      const char* name, int64_t t0_ns, int64_t t1_ns);

#endif /* AIR_HAL_TRACE_IMPL_H_ */
