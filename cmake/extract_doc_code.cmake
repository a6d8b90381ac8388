# extract_doc_code.cmake - writes the code block of a Markdown page that follows
# `<!-- file: NAME -->` to OUT_DIR/NAME, so the programs a page shows are built and
# run by the tests exactly as printed (docs/guide.md).
#   cmake -DDOC=page.md -DNAME=mm_host.c -DOUT_DIR=dir -P extract_doc_code.cmake
file(READ "${DOC}" text)
string(FIND "${text}" "<!-- file: ${NAME} -->" at)
if(at EQUAL -1)
  message(FATAL_ERROR "${DOC}: no '<!-- file: ${NAME} -->' marker")
endif()
string(SUBSTRING "${text}" ${at} -1 rest)
# The fence opens on the line after the marker and closes at the next ``` line.
string(FIND "${rest}" "\n```" open)
string(SUBSTRING "${rest}" ${open} -1 rest)
string(SUBSTRING "${rest}" 4 -1 rest)      # past "\n```"
string(FIND "${rest}" "\n" eol)            # past the language word
math(EXPR eol "${eol} + 1")
string(SUBSTRING "${rest}" ${eol} -1 rest)
string(FIND "${rest}" "\n```" close)
if(close EQUAL -1)
  message(FATAL_ERROR "${DOC}: the code block of ${NAME} is not closed")
endif()
string(SUBSTRING "${rest}" 0 ${close} code)
file(MAKE_DIRECTORY "${OUT_DIR}")
file(WRITE "${OUT_DIR}/${NAME}" "${code}\n")
