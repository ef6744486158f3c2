// Private to src/cli: the layers a setting comes from, highest first: flags, the environment (and ./.env), the
// project file (vimgpt.toml), the user file ($XDG_CONFIG_HOME/vimgpt/config.toml), the defaults. A config file's keys
// are the long flags' names (`max-actions = 20`); API keys are never in one (api-key-file names a file holding one).
#pragma once

#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <set>
#include <string>
#include <variant>
#include <vector>

#include "cli/config.h"
#include "cli/options.h"
#include "common/result.h"

namespace vimgpt::cli {

enum class Layer { Default, UserFile, ProjectFile, Environment, Flag };

// Where a setting's value came from: "default", "flag --model", "env OPENAI_API_KEY", ".env OPENAI_API_KEY",
// "project file /p/vimgpt.toml:3", "user file /home/u/.config/vimgpt/config.toml:5".
struct Source {
  Layer layer = Layer::Default;
  std::string where;  // the flag, the variable, or PATH:LINE
  [[nodiscard]] std::string describe() const;
};

// One key of a config file, as written (its type checked against the setting when it is applied).
struct FileEntry {
  std::string key;
  std::variant<std::string, std::int64_t, double, bool, std::vector<std::string>> value;
  int line = 0;
};

struct ConfigFile {
  std::filesystem::path path;
  Layer layer = Layer::UserFile;
  std::vector<FileEntry> entries;
};

// The user file: $XDG_CONFIG_HOME/vimgpt/config.toml when that variable holds an absolute path, else
// $HOME/.config/vimgpt/config.toml; none without either. `getenv` is std::getenv outside tests.
std::optional<std::filesystem::path> user_config_path(const std::function<const char*(const char*)>& getenv);
// The project file: vimgpt.toml in `start` or the nearest folder above it, looking no further than the first folder
// that holds .git (the project's root), `home` or the root of the file system. None when there is none.
std::optional<std::filesystem::path> project_config_path(const std::filesystem::path& start,
                                                         const std::filesystem::path& home);

// Parses one file: InvalidArgument naming the file, the line and the key, and saying what to do, for a file that does
// not parse, a key vimgpt does not know, a value of the wrong type, a table, or an API key (never its value).
Result<ConfigFile> read_config_file(const std::filesystem::path& path, Layer layer);

// One effective setting, as `vimgpt config` shows it; a secret's value is never kept here, only whether it is set.
struct Setting {
  std::string key;
  std::string value;  // "set" / "not set" for a secret
  Source source;
  bool secret = false;
};

// The flags given on the command line, by long name without dashes ("max-actions").
using GivenFlags = std::set<std::string>;

// Writes into `options` each setting not given as a flag from the highest layer that has it (the environment, then
// `files`, the project file before the user file), and resolves the API key (--api-key, --api-key-file given as a
// flag, the provider's variable, api-key-file from a file). Every setting with where it came from, in the files'
// key order. InvalidArgument naming the file and line for a value of the wrong type or an unreadable key file.
Result<std::vector<Setting>> apply_settings(Options& options, const GivenFlags& given, const Config& environment,
                                            const std::vector<ConfigFile>& files);

// The files of this working directory and user (each read), then applied: what main() does once flags are parsed.
struct Configured {
  std::vector<Setting> settings;
  std::optional<std::filesystem::path> user_file;     // where it is looked for (it may not exist)
  std::optional<std::filesystem::path> project_file;  // the one found
};
Result<Configured> configure(Options& options, const GivenFlags& given);

// Every key a config file takes, in the order `vimgpt config` lists them.
std::vector<std::string> config_keys();

// A usage error's message, with where the setting it names came from when that was a config file: "--max-actions
// takes 1 to 20 (max-actions = 40 is set in /p/vimgpt.toml:3)". Unchanged otherwise.
std::string with_setting_source(const std::string& message);

}  // namespace vimgpt::cli
