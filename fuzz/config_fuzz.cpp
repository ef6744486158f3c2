// A config file (vimgpt.toml, ~/.config/vimgpt/config.toml) as a person writes it, or mistypes it: read as vimgpt
// reads one, then applied over the defaults as main() applies it. Nothing may crash, throw or leak; a file vimgpt does
// not take is an error that names the file (and, where there is one, the line).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <string>

#include "cli/settings.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace vimgpt::cli;
  static const std::filesystem::path path =
      std::filesystem::temp_directory_path() / ("vimgpt-config-fuzz-" + std::to_string(::getpid()) + ".toml");
  std::ofstream(path, std::ios::binary | std::ios::trunc)
      .write(reinterpret_cast<const char*>(data), static_cast<std::streamsize>(size));
  const auto file = read_config_file(path, Layer::ProjectFile);
  if (!file) {
    if (file.error().message.find(path.string()) == std::string::npos) __builtin_trap();
    return 0;
  }
  Options options;
  const auto applied = apply_settings(options, {}, Config{}, {*file});
  if (!applied && applied.error().message.empty()) __builtin_trap();
  return 0;
}
