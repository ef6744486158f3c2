#include "cli/config.h"

#include <cstdlib>
#include <fstream>

#include "common/text.h"

namespace vimgpt::cli {

Config Config::load() {
  Config config;
  std::ifstream in(".env");
  std::string line;
  while (std::getline(in, line)) {
    line = std::string(trim(line));
    if (line.empty() || line[0] == '#') continue;
    if (line.rfind("export ", 0) == 0) line = std::string(trim(line.substr(7)));
    const auto equals = line.find('=');
    if (equals == std::string::npos) continue;
    std::string value(trim(line.substr(equals + 1)));
    if (value.size() >= 2 && (value.front() == '"' || value.front() == '\'') && value.back() == value.front()) {
      value = value.substr(1, value.size() - 2);
    }
    config.dotenv_[std::string(trim(line.substr(0, equals)))] = value;
  }
  return config;
}

std::optional<std::string> Config::get(const std::string& name) const {
  if (auto found = find(name)) return found->value;
  return std::nullopt;
}

std::optional<Config::Found> Config::find(const std::string& name) const {
  if (const char* value = std::getenv(name.c_str()); value != nullptr && *value != '\0') return Found{value, false};
  if (auto it = dotenv_.find(name); it != dotenv_.end() && !it->second.empty()) return Found{it->second, true};
  return std::nullopt;
}

}  // namespace vimgpt::cli
