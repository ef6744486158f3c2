#include "cli/settings.h"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <limits>
#include <mutex>
#include <sstream>

#include "common/duration.h"
#include "common/text.h"

// Header-only: Debian's libtomlplusplus-dev also ships a shared library, but this is the one file that parses TOML,
// and compiling it in leaves the binary one runtime dependency fewer. Formatters (writing TOML) are not needed.
#define TOML_HEADER_ONLY 1
#define TOML_ENABLE_FORMATTERS 0
// toml++ 3.3.0 states as certain, on entering a key, what only well-formed text gives ("[." breaks it: a table header
// whose key starts with neither a key character nor a quote): an assert(), which aborts a build with assertions on,
// and in a clang build without them __builtin_assume, undefined behaviour. The parse goes on to report the error
// properly once the claim is not made (fuzz.config found it, 2026-12-06), so it is not made here.
#include <toml++/impl/preprocessor.h>
#undef TOML_ASSERT_ASSUME
#define TOML_ASSERT_ASSUME(expr) static_assert(true)
#include <toml++/toml.h>

namespace vimgpt::cli {
namespace {

namespace fs = std::filesystem;

using Member = std::variant<std::string Options::*, int Options::*, std::int64_t Options::*, double Options::*,
                            bool Options::*, std::chrono::milliseconds Options::*, std::vector<std::string> Options::*>;

// A setting a config file may hold: its name (the long flag's, without dashes), where Options keeps it, and the
// variables of the environment that set it too (each a string setting).
struct Key {
  const char* name;
  Member member;
  std::vector<const char*> environment = {};
};

// The order `vimgpt config` lists them: the model, budgets, the browser, the run. base-url comes after model and
// provider: which variable sets it (OpenAI's or Anthropic's) depends on them.
const std::vector<Key>& keys() {
  static const std::vector<Key> table = {
      {"model", &Options::model, {"VIMGPT_MODEL"}},
      {"provider", &Options::provider},
      {"base-url", &Options::base_url, {"OPENAI_BASE_URL", "ANTHROPIC_BASE_URL"}},
      {"api-key-file", &Options::api_key_file},
      {"max-tokens", &Options::max_tokens},
      {"effort", &Options::effort},
      {"temperature", &Options::temperature},
      {"detail", &Options::detail},
      {"structured", &Options::structured},
      {"mode", &Options::mode},
      {"img-res", &Options::img_res},
      {"image-format", &Options::image_format},
      {"jpeg-quality", &Options::jpeg_quality},
      {"repair-model", &Options::repair_model},
      {"formalize-model", &Options::formalize_model},
      {"max-retries", &Options::max_retries},
      {"connect-timeout", &Options::connect_timeout},
      {"request-timeout", &Options::request_timeout},
      {"price-in", &Options::price_in},
      {"price-out", &Options::price_out},
      {"price-cached", &Options::price_cached},
      {"prompt-cache", &Options::prompt_cache},
      {"history", &Options::history},
      {"frames", &Options::frames},
      // budgets
      {"max-steps", &Options::max_steps},
      {"max-actions", &Options::max_actions},
      {"max-cost", &Options::max_cost},
      {"max-tokens-total", &Options::max_tokens_total},
      {"timeout", &Options::timeout},
      // the browser
      {"engine", &Options::engine, {"VIMGPT_ENGINE"}},
      {"headed", &Options::headed},
      {"xvfb", &Options::xvfb},
      {"viewport", &Options::viewport},
      {"hints", &Options::hint_rules},
      {"hint-mode", &Options::hint_mode},
      {"observe", &Options::observe},
      {"chrome", &Options::chrome, {"CHROME_PATH"}},
      {"user-data-dir", &Options::user_data_dir},
      {"user-agent", &Options::user_agent},
      {"extension", &Options::extension},
      {"browser", &Options::browsers},
      {"webdriver-capabilities", &Options::webdriver_capabilities},
      // the run
      {"start-url", &Options::start_url},
      {"settle-ms", &Options::settle},
      {"record", &Options::record},
      {"cache", &Options::cache},
      {"max-restarts", &Options::max_restarts},
      {"max-tabs", &Options::max_tabs},
      {"download-dir", &Options::download_dir},
      {"upload-dir", &Options::upload_dir},
      {"allow-domain", &Options::allow_domains},
      {"block-domain", &Options::block_domains},
      {"secrets-file", &Options::secrets_file},
      {"http-credentials", &Options::http_credentials},  // HOST=NAME: the names of secrets, not their values
      {"no-ask", &Options::no_ask},
      {"confirm", &Options::confirm},
      {"confirm-risky", &Options::confirm_risky},
      {"consent", &Options::consent},
      {"live", &Options::live},
      {"stt", &Options::stt},
      {"stt-model", &Options::stt_model},
      {"mic", &Options::mic},
  };
  return table;
}

// Keys that would put a secret in a file people copy, commit and paste into bug reports.
bool holds_secret(std::string_view key) {
  return key == "api-key" || key == "secret" || key == "browser-header" || key == "token";
}

const Key* find_key(std::string_view name) {
  for (const auto& key : keys()) {
    if (name == key.name) return &key;
  }
  return nullptr;
}

// For "did you mean": the known key fewest edits away, when it is close.
std::string nearest_key(std::string_view name) {
  std::string best;
  std::size_t best_distance = 3;  // more edits than this is another word
  for (const auto& key : keys()) {
    const std::string_view candidate = key.name;
    std::vector<std::size_t> row(candidate.size() + 1);
    for (std::size_t j = 0; j < row.size(); ++j) row[j] = j;
    for (std::size_t i = 1; i <= name.size(); ++i) {
      std::size_t diagonal = row[0];
      row[0] = i;
      for (std::size_t j = 1; j <= candidate.size(); ++j) {
        const std::size_t above = row[j];
        row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (name[i - 1] == candidate[j - 1] ? 0 : 1)});
        diagonal = above;
      }
    }
    if (row.back() < best_distance) {
      best_distance = row.back();
      best = candidate;
    }
  }
  return best;
}

const char* type_wanted(const Member& member) {
  return std::visit(
      [](auto pointer) -> const char* {
        using T = std::remove_reference_t<decltype(std::declval<Options>().*pointer)>;
        if constexpr (std::is_same_v<T, std::string>) return "a string in quotes";
        if constexpr (std::is_same_v<T, int> || std::is_same_v<T, std::int64_t>) return "a whole number";
        if constexpr (std::is_same_v<T, double>) return "a number";
        if constexpr (std::is_same_v<T, bool>) return "true or false";
        if constexpr (std::is_same_v<T, std::chrono::milliseconds>) return "a duration in quotes (\"90s\", \"5m\")";
        if constexpr (std::is_same_v<T, std::vector<std::string>>) return "a list of strings ([\"a\", \"b\"])";
      },
      member);
}

PlainUnit plain_unit(std::string_view name) {
  return name.ends_with("-ms") ? PlainUnit::Milliseconds : PlainUnit::Seconds;
}

Failure file_error(const fs::path& path, int line, const std::string& message) {
  return fail(ErrorKind::InvalidArgument, path.string() + ":" + std::to_string(line) + ": " + message);
}

// Whether an entry's value fits its setting; the error says what to write.
Status check_entry(const fs::path& path, const Key& key, const FileEntry& entry) {
  const auto wrong = [&](const std::string& why) {
    return file_error(path, entry.line,
                      std::string(key.name) + " takes " + type_wanted(key.member) + why + " (docs/configuration.md)");
  };
  return std::visit(
      [&](auto pointer) -> Status {
        using T = std::remove_reference_t<decltype(std::declval<Options>().*pointer)>;
        const auto& value = entry.value;
        if constexpr (std::is_same_v<T, std::string>) {
          if (!std::holds_alternative<std::string>(value)) return wrong("");
        } else if constexpr (std::is_same_v<T, int>) {
          if (!std::holds_alternative<std::int64_t>(value)) return wrong("");
          const auto number = std::get<std::int64_t>(value);
          if (number < std::numeric_limits<int>::min() || number > std::numeric_limits<int>::max())
            return wrong(", not " + std::to_string(number));
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          if (!std::holds_alternative<std::int64_t>(value)) return wrong("");
        } else if constexpr (std::is_same_v<T, double>) {
          if (!std::holds_alternative<double>(value) && !std::holds_alternative<std::int64_t>(value)) return wrong("");
        } else if constexpr (std::is_same_v<T, bool>) {
          if (!std::holds_alternative<bool>(value)) return wrong("");
        } else if constexpr (std::is_same_v<T, std::chrono::milliseconds>) {
          if (const auto* text = std::get_if<std::string>(&value)) {
            if (auto parsed = parse_duration(*text, plain_unit(key.name)); !parsed)
              return wrong(": " + parsed.error().message);
          } else if (!std::holds_alternative<std::int64_t>(value) || std::get<std::int64_t>(value) < 0) {
            return wrong("");
          }
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          if (!std::holds_alternative<std::vector<std::string>>(value) && !std::holds_alternative<std::string>(value))
            return wrong("");
        }
        return ok();
      },
      key.member);
}

void assign(Options& options, const Key& key, const FileEntry& entry) {
  std::visit(
      [&](auto pointer) {
        using T = std::remove_cvref_t<decltype(options.*pointer)>;
        auto& target = options.*pointer;
        const auto& value = entry.value;
        if constexpr (std::is_same_v<T, std::string>) {
          target = std::get<std::string>(value);
        } else if constexpr (std::is_same_v<T, int>) {
          target = static_cast<int>(std::get<std::int64_t>(value));
        } else if constexpr (std::is_same_v<T, std::int64_t>) {
          target = std::get<std::int64_t>(value);
        } else if constexpr (std::is_same_v<T, double>) {
          target = std::holds_alternative<double>(value) ? std::get<double>(value)
                                                         : static_cast<double>(std::get<std::int64_t>(value));
        } else if constexpr (std::is_same_v<T, bool>) {
          target = std::get<bool>(value);
        } else if constexpr (std::is_same_v<T, std::chrono::milliseconds>) {
          target = std::holds_alternative<std::string>(value)
                       ? *parse_duration(std::get<std::string>(value), plain_unit(key.name))
                       : *parse_duration(std::to_string(std::get<std::int64_t>(value)), plain_unit(key.name));
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          target = std::holds_alternative<std::string>(value) ? std::vector{std::get<std::string>(value)}
                                                              : std::get<std::vector<std::string>>(value);
        }
      },
      key.member);
}

std::string show(const Options& options, const Member& member) {
  return std::visit(
      [&](auto pointer) -> std::string {
        using T = std::remove_cvref_t<decltype(options.*pointer)>;
        const auto& value = options.*pointer;
        if constexpr (std::is_same_v<T, std::string>) {
          return value;
        } else if constexpr (std::is_same_v<T, bool>) {
          return value ? "true" : "false";
        } else if constexpr (std::is_same_v<T, double>) {
          if (value < 0) return "";  // the flag's "not given"
          char text[32];
          std::snprintf(text, sizeof text, "%g", value);
          return text;
        } else if constexpr (std::is_same_v<T, std::chrono::milliseconds>) {
          return format_duration(value);
        } else if constexpr (std::is_same_v<T, std::vector<std::string>>) {
          std::string joined;
          for (const auto& item : value) joined += (joined.empty() ? "" : ", ") + item;
          return joined;
        } else {
          return std::to_string(value);
        }
      },
      member);
}

// The variable of the environment that sets a key now: base-url's depends on the provider the model resolves to.
std::optional<std::pair<std::string, Config::Found>> environment_value(const Key& key, const Options& options,
                                                                       const Config& environment) {
  std::vector<const char*> names = key.environment;
  if (std::string_view(key.name) == "base-url")
    names = {model_provider(options, environment) == vision::Provider::Anthropic ? "ANTHROPIC_BASE_URL"
                                                                                 : "OPENAI_BASE_URL"};
  for (const char* name : names) {
    if (auto found = environment.find(name)) return std::pair{std::string(name), *found};
  }
  return std::nullopt;
}

Source environment_source(const std::string& name, const Config::Found& found) {
  return {Layer::Environment, (found.from_dotenv ? ".env " : "env ") + name};
}

Result<std::string> read_key_file(const std::string& path, const std::string& named_by) {
  std::string expanded = path;
  if (expanded.starts_with("~/")) {
    if (const char* home = std::getenv("HOME"); home != nullptr) expanded = std::string(home) + expanded.substr(1);
  }
  std::ifstream in(expanded);
  if (!in) {
    return fail(ErrorKind::InvalidArgument, "api-key-file " + path + " (" + named_by + "): cannot read it (" +
                                                std::strerror(errno) +
                                                "): create it holding only the key, or point api-key-file elsewhere");
  }
  std::stringstream text;
  text << in.rdbuf();
  std::string key(trim(text.str()));
  if (key.empty()) {
    return fail(ErrorKind::InvalidArgument,
                "api-key-file " + path + " (" + named_by + ") is empty: put the key in it, on one line");
  }
  return key;
}

std::mutex g_sources_mutex;
std::vector<Setting> g_settings;  // what configure() applied, for with_setting_source()

}  // namespace

std::string Source::describe() const {
  switch (layer) {
    case Layer::Default: return "default";
    case Layer::UserFile: return "user file " + where;
    case Layer::ProjectFile: return "project file " + where;
    case Layer::Environment: return where;
    case Layer::Flag: return "flag " + where;
  }
  return where;
}

std::optional<fs::path> user_config_path(const std::function<const char*(const char*)>& getenv) {
  // The XDG Base Directory spec: a relative $XDG_CONFIG_HOME is invalid and ignored.
  if (const char* xdg = getenv("XDG_CONFIG_HOME"); xdg != nullptr && *xdg == '/') {
    return fs::path(xdg) / "vimgpt" / "config.toml";
  }
  if (const char* home = getenv("HOME"); home != nullptr && *home != '\0') {
    return fs::path(home) / ".config" / "vimgpt" / "config.toml";
  }
  return std::nullopt;
}

std::optional<fs::path> project_config_path(const fs::path& start, const fs::path& home) {
  std::error_code error;
  fs::path folder = fs::weakly_canonical(start, error);
  if (error) folder = start;
  const fs::path home_folder = home.empty() ? fs::path() : fs::weakly_canonical(home, error);
  while (true) {
    if (fs::is_regular_file(folder / "vimgpt.toml", error)) return folder / "vimgpt.toml";
    // The project's root, the person's home folder and the root end the search: a vimgpt.toml above them belongs to
    // something else.
    if (fs::exists(folder / ".git", error) || folder == home_folder || folder == folder.parent_path()) break;
    folder = folder.parent_path();
  }
  return std::nullopt;
}

namespace {

// The line of the first byte that is not ASCII where vimgpt does not let one reach toml++. Debian 12's toml++ (3.3.0)
// reaches undefined behaviour on most such characters wherever it asks whether one is whitespace
// (is_non_ascii_horizontal_whitespace's TOML_UNREACHABLE): outside strings, after a line-ending backslash, and on the
// error paths of quotes where TOML has no string (fuzz/config_fuzz.cpp found each, 2026-12-05). TOML takes no such
// character outside strings and comments anyway, so text that is not ASCII is taken in comments and in one-line
// strings that are values (after '=', '[' or ','), and refused anywhere else; after a quote of any other kind (a
// multi-line string, a quoted key, a quote out of place, a string left open) it is refused to the end of the file.
std::optional<int> non_ascii_outside_strings(std::string_view text) {
  int line = 1;
  bool strict = false;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '\n') {
      ++line;
    } else if (static_cast<unsigned char>(c) >= 0x80) {
      return line;
    } else if (c == '#' && !strict) {
      while (i + 1 < text.size() && text[i + 1] != '\n') ++i;
    } else if ((c == '"' || c == '\'') && !strict) {
      const auto before = i == 0 ? std::string_view::npos : text.find_last_not_of(" \t", i - 1);
      const bool value =
          before != std::string_view::npos && std::string_view("=[,").find(text[before]) != std::string_view::npos;
      const bool one_line = text.substr(i, 3) != std::string(3, c);
      std::size_t end = i + 1;
      while (end < text.size() && text[end] != c && text[end] != '\n') end += c == '"' && text[end] == '\\' ? 2 : 1;
      if (!value || !one_line || end >= text.size() || text[end] != c) {
        strict = true;
      } else {
        i = end;
      }
    }
  }
  return std::nullopt;
}

}  // namespace

Result<ConfigFile> read_config_file(const fs::path& path, Layer layer) {
  ConfigFile file{path, layer, {}};
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return fail(ErrorKind::InvalidArgument,
                path.string() + ": cannot read it (" + std::strerror(errno) + "): fix its permissions or remove it");
  }
  std::stringstream text;
  text << in.rdbuf();
  if (const auto line = non_ascii_outside_strings(text.str())) {
    return file_error(path, *line,
                      "not valid TOML: a character outside quotes that is not ASCII (text goes in quotes: key = "
                      "\"value\"; docs/configuration.md)");
  }
  toml::table table;
  try {
    table = toml::parse(text.str(), path.string());
  } catch (const toml::parse_error& error) {
    return file_error(path, static_cast<int>(error.source().begin.line),
                      "not valid TOML: " + std::string(error.description()) +
                          " (write key = value lines, strings in quotes; docs/configuration.md)");
  }
  for (auto&& [name, node] : table) {
    const int line = static_cast<int>(name.source().begin.line);
    const std::string key(name.str());
    if (holds_secret(key)) {
      return file_error(path, line,
                        key +
                            " holds a secret, and a config file is no place for one (it gets copied, committed and "
                            "shown): remove the line and set the key in the environment (OPENAI_API_KEY, "
                            "ANTHROPIC_API_KEY, GEMINI_API_KEY, or .env), or put it alone in a file and write "
                            "api-key-file = \"PATH\"");
    }
    // Before the key: [browser] is a table, not the --browser list.
    if (node.is_table()) {
      return file_error(path, line,
                        "[" + key +
                            "]: a config file takes no tables; write each setting at the top, by its flag's name "
                            "(engine = \"firefox\", max-actions = 20; vimgpt config lists them)");
    }
    const Key* known = find_key(key);
    if (known == nullptr) {
      const std::string near = nearest_key(key);
      return file_error(path, line,
                        "unknown key '" + key + "'" + (near.empty() ? "" : ": did you mean '" + near + "'?") +
                            " (the keys are the long flags' names; vimgpt config lists them)");
    }
    FileEntry entry{key, std::string(), line};
    if (const auto* value = node.as_string()) {
      entry.value = value->get();
    } else if (const auto* integer = node.as_integer()) {
      entry.value = integer->get();
    } else if (const auto* floating = node.as_floating_point()) {
      entry.value = floating->get();
    } else if (const auto* boolean = node.as_boolean()) {
      entry.value = boolean->get();
    } else if (const auto* array = node.as_array()) {
      std::vector<std::string> items;
      for (const auto& item : *array) {
        if (!item.is_string()) {
          return file_error(path, line, key + " takes " + type_wanted(known->member) + " (docs/configuration.md)");
        }
        items.push_back(item.as_string()->get());
      }
      entry.value = std::move(items);
    } else {
      return file_error(path, line, key + " takes " + type_wanted(known->member) + " (docs/configuration.md)");
    }
    VIMGPT_TRY_VOID(check_entry(path, *known, entry));
    file.entries.push_back(std::move(entry));
  }
  // toml++ iterates its table in key order: keep the file's own order, as people wrote it.
  std::sort(file.entries.begin(), file.entries.end(),
            [](const FileEntry& a, const FileEntry& b) { return a.line < b.line; });
  return file;
}

Result<std::vector<Setting>> apply_settings(Options& options, const GivenFlags& given, const Config& environment,
                                            const std::vector<ConfigFile>& files) {
  std::vector<Setting> settings;
  // The project file first: it is the higher of the two.
  std::vector<const ConfigFile*> ordered;
  for (const auto& file : files)
    if (file.layer == Layer::ProjectFile) ordered.push_back(&file);
  for (const auto& file : files)
    if (file.layer == Layer::UserFile) ordered.push_back(&file);
  for (const Key& key : keys()) {
    Setting setting{key.name, {}, {}, false};
    if (given.count(key.name) != 0) {
      setting.source = {Layer::Flag, std::string("--") + key.name};
    } else if (auto found = environment_value(key, options, environment)) {
      // Every variable sets a string setting. The base URL's variables are left for the model's endpoint to read
      // (options.cpp): copied into the options, they would count as --base-url, and an Anthropic key with
      // ANTHROPIC_BASE_URL alone would no longer pick the Anthropic default model.
      if (std::string_view(key.name) != "base-url") {
        options.*std::get<std::string Options::*>(key.member) = found->second.value;
      }
      setting.source = environment_source(found->first, found->second);
      setting.value = found->second.value;
    } else {
      for (const ConfigFile* file : ordered) {
        const auto entry = std::find_if(file->entries.begin(), file->entries.end(),
                                        [&](const FileEntry& e) { return e.key == key.name; });
        if (entry == file->entries.end()) continue;
        assign(options, key, *entry);
        setting.source = {file->layer, file->path.string() + ":" + std::to_string(entry->line)};
        break;
      }
    }
    if (setting.source.layer != Layer::Environment) setting.value = show(options, key.member);
    settings.push_back(std::move(setting));
  }
  // The key: never from a config file itself; --api-key-file on the command line is a flag, and wins over the
  // environment, where api-key-file from a file does not.
  Setting api_key{"api-key", "not set", {}, true};
  const auto named_by = [&]() -> std::pair<Source, bool> {
    for (const auto& setting : settings)
      if (setting.key == "api-key-file") return {setting.source, !options.api_key_file.empty()};
    return {{}, false};
  }();
  const std::string variable(vision::key_variable(model_provider(options, environment)));
  if (given.count("api-key") != 0) {
    api_key.source = {Layer::Flag, "--api-key"};
  } else if (named_by.second && named_by.first.layer == Layer::Flag) {
    VIMGPT_TRY(options.api_key, read_key_file(options.api_key_file, "flag --api-key-file"));
    api_key.source = {Layer::Flag, "--api-key-file " + options.api_key_file};
  } else if (auto found = environment.find(variable)) {
    api_key.source = environment_source(variable, *found);
  } else if (named_by.second) {
    VIMGPT_TRY(options.api_key, read_key_file(options.api_key_file, named_by.first.describe()));
    api_key.source = {named_by.first.layer, options.api_key_file + ", named in " + named_by.first.where};
  }
  if (!options.api_key.empty() || api_key.source.layer == Layer::Environment) api_key.value = "set";
  settings.push_back(std::move(api_key));
  return settings;
}

Result<Configured> configure(Options& options, const GivenFlags& given) {
  Configured configured;
  const auto getenv = [](const char* name) -> const char* { return std::getenv(name); };
  configured.user_file = user_config_path(getenv);
  std::error_code error;
  const char* home = std::getenv("HOME");
  configured.project_file = project_config_path(fs::current_path(error), home != nullptr ? home : "");
  std::vector<ConfigFile> files;
  if (configured.user_file && fs::exists(*configured.user_file, error)) {
    VIMGPT_TRY(auto file, read_config_file(*configured.user_file, Layer::UserFile));
    files.push_back(std::move(file));
  }
  if (configured.project_file) {
    VIMGPT_TRY(auto file, read_config_file(*configured.project_file, Layer::ProjectFile));
    files.push_back(std::move(file));
  }
  VIMGPT_TRY(configured.settings, apply_settings(options, given, Config::load(), files));
  std::scoped_lock lock(g_sources_mutex);
  g_settings = configured.settings;
  return configured;
}

std::vector<std::string> config_keys() {
  std::vector<std::string> names;
  for (const auto& key : keys()) names.emplace_back(key.name);
  return names;
}

std::string with_setting_source(const std::string& message) {
  std::scoped_lock lock(g_sources_mutex);
  for (const auto& setting : g_settings) {
    const bool from_file = setting.source.layer == Layer::UserFile || setting.source.layer == Layer::ProjectFile;
    if (!from_file || setting.secret) continue;
    const std::string flag = "--" + setting.key;
    const auto at = message.find(flag);
    // The flag's whole name: --max-tokens is not --max-tokens-total.
    if (at == std::string::npos) continue;
    const auto after = at + flag.size();
    if (after < message.size() && (std::isalnum(static_cast<unsigned char>(message[after])) || message[after] == '-'))
      continue;
    return message + " (" + setting.key + " = " + setting.value + " is set in " + setting.source.where + ")";
  }
  return message;
}

}  // namespace vimgpt::cli
