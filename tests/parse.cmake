# The AIR text parser, three tests sharing tests/parse_test.h: the program corpus
# (tests/data/programs) and the IR built from it; inline cases of the spec's
# forms; bad input (malformed text, the syntax cases of tests/data/parse, out of
# memory, prefix/mutation robustness).
foreach(t test_parse test_parse_forms test_parse_errors)
  air_add_test(${t} ${CMAKE_CURRENT_SOURCE_DIR}/${t}.c)
  target_link_libraries(${t} PRIVATE m)
endforeach()
# Text that is not a program or too much of one (issue 15): words that are not
# dialect.op, warning caps, short echoes, line caps, the size limit, flags.
air_add_test(test_parse_limits ${CMAKE_CURRENT_SOURCE_DIR}/test_parse_limits.c)
