// Reading a whole file: the project reads frames, fonts, recordings and action lists this way.
#pragma once

#include <filesystem>
#include <string>

#include "common/result.h"

namespace vimgpt {

// The file's bytes. Io when it cannot be opened or read; the message names the path.
Result<std::string> read_file(const std::filesystem::path& path);

}  // namespace vimgpt
