#include "common/file.h"

#include <fstream>
#include <sstream>

namespace vimgpt {

Result<std::string> read_file(const std::filesystem::path& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    return fail(ErrorKind::Io, path.string() + " is a folder, not a file");
  std::ifstream in(path, std::ios::binary);
  if (!in) return fail(ErrorKind::Io, "cannot open " + path.string());
  std::ostringstream contents;
  contents << in.rdbuf();
  // An empty file leaves rdbuf() nothing to copy, which sets failbit on the output, not the input.
  if (in.bad()) return fail(ErrorKind::Io, "cannot read " + path.string());
  return std::move(contents).str();
}

}  // namespace vimgpt
