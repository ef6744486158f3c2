# Writes a C++ source whose one function returns a file's text, as llama.cpp embeds its web UI: the file stays
# real data in the repository (edited, reviewed and read by tests as it is), the binary needs nothing beside it.
#   cmake -DIN=models.json -DOUT=models_json.cpp -DFUNCTION=vimgpt::vision::detail::models_json -P embed_text.cmake
file(READ "${IN}" text)
string(FIND "${text}" ")TEXT\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${IN} contains )TEXT\", which would end the C++ raw string that holds it")
endif()
string(REGEX MATCH "^(.*)::([^:]+)$" _ "${FUNCTION}")
set(namespace "${CMAKE_MATCH_1}")
set(name "${CMAKE_MATCH_2}")
get_filename_component(source_name "${IN}" NAME)
file(WRITE "${OUT}" "// Generated from ${source_name} by cmake/embed_text.cmake: edit that file, not this one.
#include <string_view>

namespace ${namespace} {

std::string_view ${name}() {
  return R\"TEXT(${text})TEXT\";
}

}  // namespace ${namespace}
")
