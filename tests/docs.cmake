# Generated documentation stays generated: docs/text-format.md is what
# scripts/gen-text-format.py makes from the op table, the test programs and the
# CPU executor's sources (issue 15). `cmake --build build --target text-format`
# rewrites it; this test fails when it is stale.
find_program(AIR_PYTHON3_DOCS python3)
if(AIR_PYTHON3_DOCS)
  add_test(NAME docs_text_format
    COMMAND ${AIR_PYTHON3_DOCS} ${PROJECT_SOURCE_DIR}/scripts/gen-text-format.py --check)
  set_tests_properties(docs_text_format PROPERTIES LABELS "docs" TIMEOUT 60)
  add_custom_target(text-format
    COMMAND ${AIR_PYTHON3_DOCS} ${PROJECT_SOURCE_DIR}/scripts/gen-text-format.py
    COMMENT "Regenerating docs/text-format.md")
endif()
