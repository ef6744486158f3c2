# Joins the hint library's parts (src/hints/js, in order) into the body of one function whose value is the
# library, and writes it twice: as JavaScript (for lint and the Node tests) and as a C++ source that holds it.
#   cmake -DPARTS="a.js|b.js" -DJS_OUT=library.js -DCPP_OUT=library.cpp -P embed_js.cmake
string(REPLACE "|" ";" parts "${PARTS}")
set(library "(() => {\n")
foreach(part IN LISTS parts)
  file(READ "${part}" text)
  string(APPEND library "${text}")
endforeach()
string(APPEND library "return library;\n})()\n")
string(FIND "${library}" ")JS\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "the hint library contains )JS\", which would end the C++ raw string that holds it")
endif()
file(WRITE "${JS_OUT}" "${library}")
file(WRITE "${CPP_OUT}" "// Generated from src/hints/js by cmake/embed_js.cmake: edit those files, not this one.
#include \"hints/hint_script.h\"

namespace vimgpt::hints::detail {

std::string_view library_source() {
  return R\"JS(${library})JS\";
}

}  // namespace vimgpt::hints::detail
")
