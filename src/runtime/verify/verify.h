/* verify.h - the spec's static rules over one program. */
#ifndef AIR_RUNTIME_VERIFY_VERIFY_H_
#define AIR_RUNTIME_VERIFY_VERIFY_H_

#include "runtime/ir/ir.h"

/* Checks the program; returns NULL or a FAILED_PRECONDITION status whose message
 * lists every violation, one `file:line:col: error: [rule] message` line each.
 * `target` NULL means the target-independent rules only. */
air_status_t air_verify(const air_program_t* p, const char* target, uint32_t flags);

#endif /* AIR_RUNTIME_VERIFY_VERIFY_H_ */
