# The AIR text parser: the program corpus (tests/data/programs), syntax cases
# (tests/data/parse), malformed input, and prefix/mutation robustness.
air_add_test(test_parse ${CMAKE_CURRENT_SOURCE_DIR}/test_parse.c)
target_link_libraries(test_parse PRIVATE m)
