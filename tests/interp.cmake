# The CPU executor: programs run on the worker pool, checked against C references;
# three tests sharing tests/interp_test.h (test_interp: samples, channels,
# compute, tokens; test_interp_programs: the program corpus, run-time errors,
# prepared and inline runs, copies, traces; test_watchdog: runs failed by the
# watchdog).
# Each also runs on the other paths (issue 14, air_add_path_tests): every body
# interpreted with the linalg ops' reference loops (AIR_DISPATCH_INTERPRET), and
# with the program's units compiled by the code generator (JIT) and the library
# kernels. The default run has library kernels and no units.
foreach(t test_interp test_interp_programs test_watchdog)
  air_add_test(${t} ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c)
  set_tests_properties(${t} PROPERTIES LABELS "concurrency")
  air_add_path_tests(${t})
endforeach()
# Access patterns (pattern.h) against the spec's rule, element by element.
air_add_test(test_interp_patterns ${CMAKE_CURRENT_SOURCE_DIR}/test_interp_patterns.c)
# What the executor does to run fast (issue 14): split copies, ready async ops in
# their dispatcher's strand, the channel spin, compiled units in runs.
air_add_test(test_interp_speed ${CMAKE_CURRENT_SOURCE_DIR}/test_interp_speed.c)
set_tests_properties(test_interp_speed PROPERTIES LABELS "concurrency")
if(TARGET airrt_codegen_shared)
  add_dependencies(test_interp_speed airrt_codegen_shared)
endif()
# The run's block cache (cache.h): per-worker fronts on 1-3 workers, blocks
# put by another worker than got them, a second pool's workers; nothing leaks.
air_add_test(test_interp_cache ${CMAKE_CURRENT_SOURCE_DIR}/test_interp_cache.c)
set_tests_properties(test_interp_cache PROPERTIES LABELS "concurrency")
# memref.alloc's zeroing skipped only where the program writes the buffer whole
# before any read (overwrite.h): the rule, and stale blocks never read.
air_add_test(test_interp_alloc ${CMAKE_CURRENT_SOURCE_DIR}/test_interp_alloc.c)
set_tests_properties(test_interp_alloc PROPERTIES LABELS "concurrency")
if(TARGET airrt_codegen_shared)
  add_dependencies(test_interp_alloc airrt_codegen_shared)
endif()
# What a run reports besides its data (issue 15): transfers left unread in
# channels, and a trace track per PE whatever it computes.
air_add_test(test_interp_reports ${CMAKE_CURRENT_SOURCE_DIR}/test_interp_reports.c)
set_tests_properties(test_interp_reports PROPERTIES LABELS "concurrency")
# mlir-air's constructs beyond the core set (issue 12): every RUN entry of
# tests/data/constructs runs and is checked against C (libm for math), every
# RUN-ERROR entry is refused at the op.
air_add_test(test_constructs_run ${CMAKE_CURRENT_SOURCE_DIR}/test_constructs_run.c)
set_tests_properties(test_constructs_run PROPERTIES LABELS "concurrency")
target_link_libraries(test_constructs_run PRIVATE m)
# The rendezvous and hand-off path (issue 14): async ops spawned parked on
# their dependency (and the deadlock report naming them), small transfers
# copied under the run lock next to larger ones, broadcast, chains of async ops.
air_add_test(test_interp_handoff ${CMAKE_CURRENT_SOURCE_DIR}/test_interp_handoff.c)
set_tests_properties(test_interp_handoff PROPERTIES LABELS "concurrency")
# Async ops run in their issuer's strand (issue 14, chain.h): a get issued before
# the put that feeds it (released at the stall), a producer feeding PEs whose
# gets and executes run in place or park there, the deadlock report. Also on the
# interpreted and compiled paths.
air_add_test(test_interp_chain ${CMAKE_CURRENT_SOURCE_DIR}/test_interp_chain.c)
set_tests_properties(test_interp_chain PROPERTIES LABELS "concurrency")
air_add_path_tests(test_interp_chain)
# scf.parallel instances in sequence in the reaching strand (parallel.c): a ring
# that needs the release, init tokens fed later, the deadlock report.
air_add_test(test_interp_par ${CMAKE_CURRENT_SOURCE_DIR}/test_interp_par.c)
set_tests_properties(test_interp_par PROPERTIES LABELS "concurrency")
air_add_path_tests(test_interp_par)
# Channel lanes with a lock of their own (issue 14, chan_lane.h): a ping-pong
# whose waits end in the spin or parked, many putters on one lane, a full lane
# named in the deadlock report.
air_add_test(test_interp_lane ${CMAKE_CURRENT_SOURCE_DIR}/test_interp_lane.c)
set_tests_properties(test_interp_lane PROPERTIES LABELS "concurrency")
# A transfer copied once, straight from the put into a waiting get, at sizes around
# every threshold, both orders, depth 1 and 2, broadcast (issue 14, channel.c).
air_add_test(test_interp_direct ${CMAKE_CURRENT_SOURCE_DIR}/test_interp_direct.c)
set_tests_properties(test_interp_direct PROPERTIES LABELS "concurrency")
air_add_path_tests(test_interp_direct)
# Op records (oprec.c): folded constant lists, the one-run shortcut and guards stay
# right when offsets come from loop variables and air.execute results.
air_add_test(test_interp_oprec ${CMAKE_CURRENT_SOURCE_DIR}/test_interp_oprec.c)
set_tests_properties(test_interp_oprec PROPERTIES LABELS "concurrency")
air_add_path_tests(test_interp_oprec)
