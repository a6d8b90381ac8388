# Builder API, three tests sharing tests/builder_test.h: programs built op by op
# (tests/builder_programs.c) and their IR structure (test_builder); argument and
# state checks (test_builder_errors); print/parse round trips and the verifier
# over the built programs (test_builder_roundtrip).
air_add_test(test_builder ${CMAKE_CURRENT_SOURCE_DIR}/test_builder.c
             ${CMAKE_CURRENT_SOURCE_DIR}/builder_programs.c)
air_add_test(test_builder_errors ${CMAKE_CURRENT_SOURCE_DIR}/test_builder_errors.c)
air_add_test(test_builder_roundtrip ${CMAKE_CURRENT_SOURCE_DIR}/test_builder_roundtrip.c
             ${CMAKE_CURRENT_SOURCE_DIR}/builder_programs.c)
# Builder calls for mlir-air's wider op set (issue 12), four tests sharing
# tests/builder_ext_test.h: each program built, verified, round-tripped through
# text and run on the CPU driver against C — math and elementwise
# (test_builder_ext), index_switch, linalg.index, forall, globals and air.custom
# (test_builder_ext_control), views, unranked casts and siN/uiN
# (test_builder_ext_views) — and the argument checks (test_builder_ext_errors).
foreach(t test_builder_ext test_builder_ext_control test_builder_ext_views
          test_builder_ext_errors)
  air_add_test(${t} ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c)
  set_tests_properties(${t} PROPERTIES LABELS "concurrency")
  target_link_libraries(${t} PRIVATE m)
endforeach()
