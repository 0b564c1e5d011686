# Generate the man page trainsim.1 from the help texts of the built binary, so the page never
# drifts from `trainsim --help`. Run as: cmake -DBIN=path/trainsim -DOUT=trainsim.1
# -DVERSION=x.y.z -P man.cmake. The subcommands are read from the "subcommands:" list of
# `trainsim --help`; each one's `trainsim SUB --help` becomes a section.

# Text as roff: backslashes escaped, lines that start with '.' or '\'' protected, shown as
# preformatted lines (.nf) because the help texts are laid out for a terminal.
function(roff_block text out_var)
  string(REPLACE "\\" "\\e" text "${text}")
  string(REGEX REPLACE "(^|\n)([.'])" "\\1\\\\&\\2" text "${text}")
  set(${out_var} ".nf\n${text}\n.fi\n" PARENT_SCOPE)
endfunction()

function(help_of out_var)
  execute_process(COMMAND ${CMAKE_COMMAND} -E env TRAINSIM_HOME=PREFIX/share/trainsim
                          ${BIN} ${ARGN} --help
                  OUTPUT_VARIABLE text RESULT_VARIABLE rc)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${BIN} ${ARGN} --help exited ${rc}")
  endif()
  set(${out_var} "${text}" PARENT_SCOPE)
endfunction()

help_of(main)
string(REGEX MATCH "subcommands:\n(  [a-z]+[^\n]*\n)+" subs "${main}")
string(REGEX MATCHALL "\n  [a-z]+" names "${subs}")

set(page ".TH TRAINSIM 1 \"\" \"trainsim ${VERSION}\" \"User Commands\"\n")
string(APPEND page ".SH NAME\ntrainsim \\- price large-model training runs before you buy the GPUs\n")
string(APPEND page ".SH SYNOPSIS\n.B trainsim\n.I SUBCOMMAND\n[\\fIOPTIONS\\fR] [\\fIFILE\\fR]\n")
string(APPEND page ".SH DESCRIPTION\n")
roff_block("${main}" block)
string(APPEND page "${block}")
foreach(n ${names})
  string(STRIP "${n}" n)
  help_of(sub ${n})
  string(TOUPPER "${n}" title)
  string(APPEND page ".SH \"TRAINSIM ${title}\"\n")
  roff_block("${sub}" block)
  string(APPEND page "${block}")
endforeach()
string(APPEND page ".SH FILES\nThe catalogue (models/, hardware/, configs/) is searched in "
       "$TRAINSIM_HOME, then PREFIX/share/trainsim beside an installed binary, then the source "
       "tree the binary was built from.\n")
string(APPEND page ".SH \"EXIT STATUS\"\n0 success, 1 runtime failure, 2 bad usage or bad input.\n")
file(WRITE "${OUT}" "${page}")
