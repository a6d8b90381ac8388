/* air/air.h - the whole public API of libairrt in one include.
 *
 * Each header below also stands alone; including this one is a convenience for
 * applications that use several concepts. Keep the list in step with the files in
 * include/air/: scripts/install-test.sh fails when one is missing.
 */
#ifndef AIR_AIR_H_
#define AIR_AIR_H_

#include "air/config.h"

#include "air/allocator.h"
#include "air/status.h"
#include "air/context.h"
#include "air/program.h"
#include "air/types.h"
#include "air/builder.h"
#include "air/kernel.h"
#include "air/device.h"
#include "air/buffer.h"
#include "air/semaphore.h"
#include "air/executable.h"
#include "air/command_buffer.h"
#include "air/trace.h"
#include "air/rank.h"

#endif /* AIR_AIR_H_ */
