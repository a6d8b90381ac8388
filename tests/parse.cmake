# The AIR text parser: the program corpus (tests/data/programs), syntax cases
# (tests/data/parse), malformed input, and prefix/mutation robustness.
air_add_test(test_parse ${CMAKE_CURRENT_SOURCE_DIR}/test_parse.c)
target_link_libraries(test_parse PRIVATE m)
# Text that is not a program or too much of one (issue 15): words that are not
# dialect.op, warning caps, short echoes, line caps, the size limit, flags.
air_add_test(test_parse_limits ${CMAKE_CURRENT_SOURCE_DIR}/test_parse_limits.c)
