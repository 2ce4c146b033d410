# The manual page sdekit.1 from docs/man/sdekit.1.in and the --help texts of
# the built tool, so that the page says what the tool says (test man_page).
#   cmake -DSDEKIT=build/sdekit -DTEMPLATE=docs/man/sdekit.1.in -DOUT=sdekit.1
#         -DVERSION=0.2.0 -P cmake/manpage.cmake
# The help texts go in verbatim (no-fill), escaped for roff: '\' as \e, '-'
# as \- (a minus that copies as one), every line opened with \& (a line
# starting with '.' or "'" is text, not a request).
set(commands run resume models info plot bench codegen compile devices cache)

function(sdk_help out)
  execute_process(COMMAND ${SDEKIT} ${ARGN} --help OUTPUT_VARIABLE text RESULT_VARIABLE rc
                  ERROR_VARIABLE err)
  if(NOT rc EQUAL 0 OR text STREQUAL "")
    message(FATAL_ERROR "manpage.cmake: '${SDEKIT} ${ARGN} --help' failed (${rc}): ${err}")
  endif()
  string(REGEX REPLACE "\n+$" "" text "${text}")
  string(REPLACE "\\" "\\e" text "${text}")
  string(REPLACE "-" "\\-" text "${text}")
  string(REPLACE "\n" "\n\\&" text "${text}")
  set(${out} ".nf\n\\&${text}\n.fi" PARENT_SCOPE)
endfunction()

sdk_help(SDK_HELP_MAIN)
set(SDK_HELP_COMMANDS "")
foreach(c ${commands})
  # `sdekit models` lists, it has no usage text of its own
  if(c STREQUAL "models")
    string(APPEND SDK_HELP_COMMANDS ".SS \"sdekit models\"\nLists the models a bare name "
           "can refer to, with their description and variables: those of\n"
           ".B SDEKIT_MODEL_PATH\nand the built-in ones (see FILES).\n")
    continue()
  endif()
  sdk_help(text ${c})
  string(APPEND SDK_HELP_COMMANDS ".SS \"sdekit ${c}\"\n${text}\n")
endforeach()
string(REGEX REPLACE "\n$" "" SDK_HELP_COMMANDS "${SDK_HELP_COMMANDS}")
set(SDK_VERSION ${VERSION})
configure_file(${TEMPLATE} ${OUT}.tmp @ONLY)
file(RENAME ${OUT}.tmp ${OUT})
