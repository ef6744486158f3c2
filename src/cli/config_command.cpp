// `vimgpt config`: each effective setting, its value and the layer it came from, so a person can see why a run does
// what it does. A secret shows as set or not set, and where from; never its value.
#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "cli/settings.h"

namespace vimgpt::cli {
namespace {

const char* layer_name(Layer layer) {
  switch (layer) {
    case Layer::Default: return "default";
    case Layer::UserFile: return "user";
    case Layer::ProjectFile: return "project";
    case Layer::Environment: return "env";
    case Layer::Flag: return "flag";
  }
  return "default";
}

}  // namespace

int config_command(const Options& options, const Configured& configured) {
  std::error_code error;
  const bool user_exists = configured.user_file && std::filesystem::exists(*configured.user_file, error);
  std::vector<Setting> settings = configured.settings;
  for (auto& setting : settings) {
    // The model nobody chose is the default one the keys select: show which.
    if (setting.key == "model" && setting.value.empty()) setting.value = effective_model(options, Config::load());
  }
  if (options.json) {
    nlohmann::json out;
    out["user_file"] = {{"path", configured.user_file ? configured.user_file->string() : ""}, {"exists", user_exists}};
    out["project_file"] = configured.project_file ? nlohmann::json(configured.project_file->string()) : nullptr;
    out["settings"] = nlohmann::json::array();
    for (const auto& setting : settings) {
      out["settings"].push_back({{"key", setting.key},
                                 {"value", setting.value},
                                 {"source", layer_name(setting.source.layer)},
                                 {"where", setting.source.where},
                                 {"secret", setting.secret}});
    }
    std::cout << out.dump(2) << "\n";
    return 0;
  }
  std::cout << "user file:    "
            << (configured.user_file ? configured.user_file->string() + (user_exists ? "" : " (none there)")
                                     : "(no HOME or XDG_CONFIG_HOME)")
            << "\nproject file: "
            << (configured.project_file ? configured.project_file->string()
                                        : "(none: vimgpt.toml in this folder or one above it)")
            << "\nprecedence:   flags > environment (and ./.env) > project file > user file > defaults\n\n";
  std::size_t width = 0;
  for (const auto& setting : settings) width = std::max(width, setting.key.size());
  for (const auto& setting : settings) {
    std::string value = setting.value.empty() ? "(none)" : setting.value;
    if (setting.secret && setting.value == "set") value = "set (" + setting.source.describe() + ")";
    std::cout << setting.key << std::string(width + 2 - setting.key.size(), ' ') << value;
    if (!setting.secret) std::cout << "  [" << setting.source.describe() << "]";
    std::cout << "\n";
  }
  return 0;
}

}  // namespace vimgpt::cli
