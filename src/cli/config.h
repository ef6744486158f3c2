// Private to src/cli: configuration lookup (environment, then a .env file in the working directory).
#pragma once

#include <map>
#include <optional>
#include <string>

namespace vimgpt::cli {

class Config {
 public:
  // Reads ./.env once (KEY=VALUE lines, # comments, optional quotes, optional `export`).
  static Config load();
  // The environment first, then .env.
  [[nodiscard]] std::optional<std::string> get(const std::string& name) const;
  // The same, and whether it came from .env (for `vimgpt config`, which says where each setting came from).
  struct Found {
    std::string value;
    bool from_dotenv = false;
  };
  [[nodiscard]] std::optional<Found> find(const std::string& name) const;

 private:
  std::map<std::string, std::string> dotenv_;
};

}  // namespace vimgpt::cli
