# Install test: installs this build into a temporary prefix and builds a consumer
# against it with find_package and with pkg-config, checks the exported symbols
# and the SONAME (scripts/install-test.sh). A sanitizer build's library needs the
# sanitizer runtime in every consumer, so the test runs in plain builds only.
if(AIR_SANITIZE OR AIR_FUZZ)
  return()
endif()
add_test(NAME install_test
  COMMAND bash ${PROJECT_SOURCE_DIR}/scripts/install-test.sh ${PROJECT_BINARY_DIR})
set_tests_properties(install_test PROPERTIES LABELS "install" TIMEOUT 300)
