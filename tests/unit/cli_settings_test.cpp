// The config files and the order of the layers (src/cli/settings.*): flags > environment > project file > user file
// > defaults, and the errors a broken file gets.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <tuple>

#include "cli/options.h"
#include "cli/settings.h"

namespace vimgpt::cli {
namespace {

namespace fs = std::filesystem;

struct TempDir {
  fs::path root;
  TempDir() {
    static int count = 0;
    root = fs::temp_directory_path() /
           ("vimgpt-config-test-" + std::to_string(::getpid()) + "-" + std::to_string(++count));
    fs::create_directories(root);
  }
  ~TempDir() { fs::remove_all(root); }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  [[nodiscard]] fs::path write(const fs::path& name, const std::string& text) const {
    fs::create_directories((root / name).parent_path());
    std::ofstream(root / name) << text;
    return root / name;
  }
};

// A variable of this process's environment set (or unset, with nullptr) for one test, and put back after.
class ScopedVariable {
 public:
  ScopedVariable(const char* name, const char* value) : name_(name) {
    if (const char* old = std::getenv(name)) old_ = old;
    if (value != nullptr) {
      ::setenv(name, value, 1);
    } else {
      ::unsetenv(name);
    }
  }
  ~ScopedVariable() {
    if (old_) {
      ::setenv(name_.c_str(), old_->c_str(), 1);
    } else {
      ::unsetenv(name_.c_str());
    }
  }
  ScopedVariable(const ScopedVariable&) = delete;
  ScopedVariable& operator=(const ScopedVariable&) = delete;

 private:
  std::string name_;
  std::optional<std::string> old_;
};

// The variables the layers read, all unset: what the test sets is all there is.
struct CleanEnvironment {
  ScopedVariable model{"VIMGPT_MODEL", nullptr};
  ScopedVariable engine{"VIMGPT_ENGINE", nullptr};
  ScopedVariable chrome{"CHROME_PATH", nullptr};
  ScopedVariable openai{"OPENAI_API_KEY", nullptr};
  ScopedVariable anthropic{"ANTHROPIC_API_KEY", nullptr};
  ScopedVariable gemini{"GEMINI_API_KEY", nullptr};
  ScopedVariable openai_url{"OPENAI_BASE_URL", nullptr};
  ScopedVariable anthropic_url{"ANTHROPIC_BASE_URL", nullptr};
};

ConfigFile read_ok(const fs::path& path, Layer layer) {
  auto file = read_config_file(path, layer);
  EXPECT_TRUE(file) << file.error().message;
  return file ? *file : ConfigFile{};
}

const Setting& find(const std::vector<Setting>& settings, const std::string& key) {
  static const Setting none;
  for (const auto& setting : settings)
    if (setting.key == key) return setting;
  ADD_FAILURE() << "no setting " << key;
  return none;
}

std::string read_error(const fs::path& path) {
  auto file = read_config_file(path, Layer::ProjectFile);
  EXPECT_FALSE(file) << path << " was read";
  return file ? "" : file.error().message;
}

// --secret NAME@HOST=VALUE: the value by name as for any secret, and where it may be typed; a host that is not one
// is a usage error that says what to give.
TEST(SecretFlags, ABoundSecretKeepsItsValueAndItsHosts) {
  Options o;
  o.secrets = {"BANK@bank.example,*.login.example=s3cret", "PLAIN=x", "BANK2@Bank.Example=y"};
  const auto read = secrets(o);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->values.at("BANK"), "s3cret");
  EXPECT_EQ(read->values.at("PLAIN"), "x");
  const auto& sites = read->sites;
  ASSERT_EQ(sites.size(), 2U);  // PLAIN goes anywhere
  const auto& bank = sites.at("BANK");
  EXPECT_EQ(bank.allowed_text(), "bank.example, *.login.example");
  EXPECT_FALSE(bank.refusal("https://bank.example/pay"));
  EXPECT_FALSE(bank.refusal("https://sso.login.example/"));
  EXPECT_TRUE(bank.refusal("https://bank.example.evil.test/"));
  EXPECT_TRUE(bank.refusal("https://login.example.evil.test/"));
  EXPECT_FALSE(sites.at("BANK2").refusal("https://bank.example/"));  // hosts in any case
  for (const std::string bad : {"A@=x", "A@https://bank.example=x", "A@bank.example:443=x", "A@a b=x", "@host=x"}) {
    o.secrets = {bad};
    const auto refused = secrets(o);
    ASSERT_FALSE(refused) << bad;
    EXPECT_EQ(refused.error().kind, ErrorKind::InvalidArgument) << bad;
    EXPECT_NE(refused.error().message.find("--secret"), std::string::npos) << refused.error().message;
  }
}

TEST(ConfigLayers, FlagsThenEnvironmentThenProjectThenUserThenDefaults) {
  CleanEnvironment clean;
  TempDir dir;
  const auto user = dir.write("user.toml",
                              "model = \"user-model\"\n"
                              "max-actions = 3\n"
                              "max-steps = 7\n"
                              "engine = \"firefox\"\n"
                              "timeout = \"5m\"\n");
  const auto project = dir.write("vimgpt.toml",
                                 "# the project's\n"
                                 "model = \"project-model\"\n"
                                 "max-actions = 4\n"
                                 "engine = \"firefox\"\n");
  ScopedVariable model_variable("VIMGPT_MODEL", "env-model");
  Options options;
  options.engine = "chromium";  // as --engine chromium leaves it
  const GivenFlags given{"engine"};
  auto settings =
      apply_settings(options, given, Config{}, {read_ok(user, Layer::UserFile), read_ok(project, Layer::ProjectFile)});
  ASSERT_TRUE(settings) << settings.error().message;

  EXPECT_EQ(options.engine, "chromium");  // the flag, over every file
  EXPECT_EQ(find(*settings, "engine").source.describe(), "flag --engine");
  EXPECT_EQ(options.model, "env-model");  // the environment, over both files
  EXPECT_EQ(find(*settings, "model").source.describe(), "env VIMGPT_MODEL");
  EXPECT_EQ(options.max_actions, 4);  // the project file, over the user's
  EXPECT_EQ(find(*settings, "max-actions").source.describe(), "project file " + project.string() + ":3");
  EXPECT_EQ(options.max_steps, 7);  // the user file, over the default
  EXPECT_EQ(find(*settings, "max-steps").source.describe(), "user file " + user.string() + ":3");
  EXPECT_EQ(options.timeout, std::chrono::minutes(5));
  EXPECT_EQ(find(*settings, "timeout").value, "5m");
  EXPECT_EQ(options.viewport, Options{}.viewport);  // nobody set it
  EXPECT_EQ(find(*settings, "viewport").source.layer, Layer::Default);
}

TEST(ConfigLayers, TheProjectFileWinsWhicheverOrderTheFilesComeIn) {
  CleanEnvironment clean;
  TempDir dir;
  const auto user = read_ok(dir.write("user.toml", "max-steps = 7\nheaded = true\n"), Layer::UserFile);
  const auto project = read_ok(dir.write("vimgpt.toml", "max-steps = 9\n"), Layer::ProjectFile);
  for (const auto& files : {std::vector{user, project}, std::vector{project, user}}) {
    Options options;
    ASSERT_TRUE(apply_settings(options, {}, Config{}, files));
    EXPECT_EQ(options.max_steps, 9);
    EXPECT_TRUE(options.headed);
  }
}

TEST(ConfigLayers, ValuesOfEachTypeReachTheirSettings) {
  CleanEnvironment clean;
  TempDir dir;
  const auto file = read_ok(dir.write("vimgpt.toml",
                                      "max-cost = 0.5\n"
                                      "price-in = 2\n"
                                      "max-tokens-total = 200000\n"
                                      "settle-ms = 1500\n"
                                      "allow-domain = [\"example.com\", \"*.example.org\"]\n"
                                      "block-domain = \"ads.example.com\"\n"
                                      "http-credentials = [\"intranet.example=INTRANET\"]\n"
                                      "headed = true\n"
                                      "viewport = \"1280x800\"\n"),
                            Layer::ProjectFile);
  Options options;
  ASSERT_TRUE(apply_settings(options, {}, Config{}, {file}));
  EXPECT_DOUBLE_EQ(options.max_cost, 0.5);
  EXPECT_DOUBLE_EQ(options.price_in, 2.0);
  EXPECT_EQ(options.max_tokens_total, 200000);
  EXPECT_EQ(options.settle, std::chrono::milliseconds(1500));  // a plain number in the flag's own unit
  EXPECT_EQ(options.allow_domains, (std::vector<std::string>{"example.com", "*.example.org"}));
  EXPECT_EQ(options.block_domains, (std::vector<std::string>{"ads.example.com"}));
  EXPECT_EQ(options.http_credentials, (std::vector<std::string>{"intranet.example=INTRANET"}));
  EXPECT_TRUE(options.headed);
  EXPECT_EQ(options.viewport, "1280x800");
}

TEST(ConfigFiles, AnUnknownKeyNamesTheFileTheLineAndTheNearestKey) {
  TempDir dir;
  const auto path = dir.write("vimgpt.toml", "model = \"m\"\nmax-action = 20\n");
  const std::string message = read_error(path);
  EXPECT_NE(message.find(path.string() + ":2:"), std::string::npos) << message;
  EXPECT_NE(message.find("unknown key 'max-action'"), std::string::npos) << message;
  EXPECT_NE(message.find("did you mean 'max-actions'"), std::string::npos) << message;
}

TEST(ConfigFiles, AWrongTypeSaysWhatTheKeyTakes) {
  TempDir dir;
  const auto path = dir.write("vimgpt.toml", "\n\nmax-actions = \"20\"\n");
  const std::string message = read_error(path);
  EXPECT_NE(message.find(path.string() + ":3:"), std::string::npos) << message;
  EXPECT_NE(message.find("max-actions takes a whole number"), std::string::npos) << message;
  const auto headed = dir.write("headed.toml", "headed = \"yes\"\n");
  EXPECT_NE(read_error(headed).find("headed takes true or false"), std::string::npos);
  const auto duration = dir.write("duration.toml", "timeout = \"5 fortnights\"\n");
  EXPECT_NE(read_error(duration).find("timeout takes a duration"), std::string::npos);
  const auto list = dir.write("list.toml", "allow-domain = [1, 2]\n");
  EXPECT_NE(read_error(list).find("allow-domain takes a list of strings"), std::string::npos);
}

TEST(ConfigFiles, AFileThatDoesNotParseNamesItsLine) {
  TempDir dir;
  const auto path = dir.write("vimgpt.toml", "model = \"m\"\nengine = \n");
  const std::string message = read_error(path);
  EXPECT_NE(message.find(path.string() + ":2:"), std::string::npos) << message;
  EXPECT_NE(message.find("not valid TOML"), std::string::npos) << message;
  // A table header whose key starts with neither a key character nor a quote (toml++ asserted on it: fuzz.config).
  for (const char* text : {"[.", "[[ .x]]\n", "model = \"m\"\n[ =]\n"}) {
    const auto header = dir.write("header.toml", text);
    EXPECT_NE(read_error(header).find("not valid TOML"), std::string::npos) << text;
  }
}

// Text that is not ASCII is taken in comments and in one-line strings that are values, and refused, naming its line,
// anywhere else, before toml++ reads it: Debian 12's toml++ reaches undefined behaviour on most such characters outside
// those places (fuzz/config_fuzz.cpp).
TEST(ConfigFiles, TextThatIsNotAsciiOutsideValueStringsAndCommentsIsRefusedNamingItsLine) {
  TempDir dir;
  const std::vector<std::pair<std::string, int>> refused = {{"ĝ", 1},
                                                            {"model = \"m\"\nuser-agent = café\n", 2},
                                                            {"# ok\nmodel = \"é\"\n\n\u00a0= 1\n", 4},
                                                            {"model = \"\"\"a\nb\"\"\"\nx = ü\n", 3},
                                                            {"start-url = \"\"\"x\\\n é\"\"\"\n", 2},
                                                            {"user-agent = \'\'\'ĝ\'\'\'\n", 1},
                                                            {"\"é\" = 1\n", 1},
                                                            {"model =-\"é\"\n", 1},
                                                            {"model = \"open\n# é\n", 2}};
  for (const auto& [text, line] : refused) {
    const auto path = dir.write("vimgpt.toml", text);
    const std::string message = read_error(path);
    EXPECT_NE(message.find(path.string() + ":" + std::to_string(line) + ":"), std::string::npos) << text << message;
    EXPECT_NE(message.find("not ASCII"), std::string::npos) << text << message;
  }
  const auto taken = dir.write("taken.toml",
                               "# café ĝ\nmodel = \"é\\\"ü\" # ö\nuser-agent = \'ĝ\'\nallow-domain = [\"é.test\", "
                               "\'ü.test\']\nstart-url = \"x é\"\n");
  auto file = read_config_file(taken, Layer::ProjectFile);
  ASSERT_TRUE(file) << file.error().message;
  EXPECT_EQ(file->entries.size(), 4U);
}

TEST(ConfigFiles, ATableIsRefusedWithTheFlatForm) {
  TempDir dir;
  const std::string message = read_error(dir.write("vimgpt.toml", "[browser]\nengine = \"firefox\"\n"));
  EXPECT_NE(message.find(":1:"), std::string::npos) << message;
  EXPECT_NE(message.find("engine = \"firefox\""), std::string::npos) << message;
}

TEST(ConfigFiles, AnApiKeyInAFileIsRefusedAndNeverRepeated) {
  TempDir dir;
  for (const std::string key : {"api-key", "secret", "token", "browser-header"}) {
    const std::string message = read_error(dir.write("vimgpt.toml", "model = \"m\"\n" + key + " = \"sk-hush-123\"\n"));
    EXPECT_NE(message.find(":2: " + key + " holds a secret"), std::string::npos) << message;
    EXPECT_NE(message.find("api-key-file"), std::string::npos) << message;
    EXPECT_EQ(message.find("sk-hush-123"), std::string::npos) << message;
  }
}

TEST(ConfigLayers, TheKeyComesFromTheFileAConfigFileNamesUnlessTheEnvironmentHasOne) {
  CleanEnvironment clean;
  TempDir dir;
  const auto key_file = dir.write("openai-key", "sk-from-file\n");
  const auto config =
      read_ok(dir.write("config.toml", "api-key-file = \"" + key_file.string() + "\"\n"), Layer::UserFile);
  {
    Options options;
    auto settings = apply_settings(options, {}, Config{}, {config});
    ASSERT_TRUE(settings) << settings.error().message;
    EXPECT_EQ(options.api_key, "sk-from-file");
    const auto& key = find(*settings, "api-key");
    EXPECT_TRUE(key.secret);
    EXPECT_EQ(key.value, "set");
    EXPECT_EQ(key.source.layer, Layer::UserFile);
  }
  ScopedVariable variable("OPENAI_API_KEY", "sk-from-environment");
  {
    Options options;  // the environment is above a config file
    auto settings = apply_settings(options, {}, Config{}, {config});
    ASSERT_TRUE(settings);
    EXPECT_EQ(options.api_key, "");  // the client reads OPENAI_API_KEY itself
    EXPECT_EQ(find(*settings, "api-key").source.describe(), "env OPENAI_API_KEY");
    for (const auto& setting : *settings) EXPECT_EQ(setting.value.find("sk-from"), std::string::npos) << setting.key;
  }
  {
    Options options;  // --api-key-file on the command line is a flag: above the environment
    options.api_key_file = key_file.string();
    auto settings = apply_settings(options, {"api-key-file"}, Config{}, {});
    ASSERT_TRUE(settings);
    EXPECT_EQ(options.api_key, "sk-from-file");
    EXPECT_EQ(find(*settings, "api-key").source.layer, Layer::Flag);
  }
}

TEST(ConfigLayers, OnlyAGeminiKeyChoosesGooglesDefaultModelAndItsKey) {
  CleanEnvironment clean;
  ScopedVariable variable("GEMINI_API_KEY", "AIza-from-environment");
  Options options;
  auto settings = apply_settings(options, {}, Config{}, {});
  ASSERT_TRUE(settings) << settings.error().message;
  EXPECT_EQ(find(*settings, "api-key").source.describe(), "env GEMINI_API_KEY");
  auto client = client_options(options, Config{});
  ASSERT_TRUE(client) << client.error().message;
  EXPECT_EQ(client->model, vision::kDefaultGeminiModel);
  EXPECT_EQ(client->provider, vision::Provider::Gemini);
  EXPECT_EQ(client->api_key, "AIza-from-environment");
  // An OpenAI key beside it keeps the OpenAI default; a gemini-* model named still takes Google's key.
  ScopedVariable openai("OPENAI_API_KEY", "sk-openai");
  EXPECT_EQ(client_options(options, Config{})->model, vision::kDefaultModel);
  options.model = "gemini-4-argon";
  EXPECT_EQ(client_options(options, Config{})->api_key, "AIza-from-environment");
}

TEST(ConfigLayers, AKeyFileThatCannotBeReadIsAnErrorNamingWhereItWasNamed) {
  CleanEnvironment clean;
  TempDir dir;
  const auto path = dir.write("config.toml", "api-key-file = \"" + (dir.root / "missing").string() + "\"\n");
  Options options;
  auto settings = apply_settings(options, {}, Config{}, {read_ok(path, Layer::UserFile)});
  ASSERT_FALSE(settings);
  EXPECT_NE(settings.error().message.find(path.string() + ":1"), std::string::npos) << settings.error().message;
}

TEST(ConfigPaths, TheUserFileFollowsXdgConfigHomeElseHome) {
  const auto lookup = [](std::map<std::string, std::string> values) {
    return [values = std::move(values)](const char* name) -> const char* {
      auto it = values.find(name);
      return it == values.end() ? nullptr : it->second.c_str();
    };
  };
  EXPECT_EQ(user_config_path(lookup({{"XDG_CONFIG_HOME", "/x/conf"}, {"HOME", "/home/a"}})),
            fs::path("/x/conf/vimgpt/config.toml"));
  // A relative XDG_CONFIG_HOME is invalid (the XDG spec): HOME's .config instead.
  EXPECT_EQ(user_config_path(lookup({{"XDG_CONFIG_HOME", "conf"}, {"HOME", "/home/a"}})),
            fs::path("/home/a/.config/vimgpt/config.toml"));
  EXPECT_EQ(user_config_path(lookup({})), std::nullopt);
}

TEST(ConfigPaths, TheProjectFileIsFoundAboveButNotPastTheRepository) {
  TempDir dir;
  (void)dir.write("outer/vimgpt.toml", "");
  (void)dir.write("outer/repo/vimgpt.toml", "");
  fs::create_directories(dir.root / "outer/repo/.git");
  fs::create_directories(dir.root / "outer/repo/tasks/today");
  EXPECT_EQ(project_config_path(dir.root / "outer/repo/tasks/today", "/nonexistent"),
            fs::weakly_canonical(dir.root / "outer/repo/vimgpt.toml"));
  fs::remove(dir.root / "outer/repo/vimgpt.toml");
  // The repository's root ends the search: the file above it is another project's.
  EXPECT_EQ(project_config_path(dir.root / "outer/repo/tasks", "/nonexistent"), std::nullopt);
  // So does the home folder.
  (void)dir.write("home/vimgpt.toml", "");
  fs::create_directories(dir.root / "home/me/work");
  EXPECT_EQ(project_config_path(dir.root / "home/me/work", dir.root / "home/me"), std::nullopt);
}

// --viewport: WIDTHxHEIGHT (x or X), each 1 to 5 digits, within 100x100 to 7680x4320.
TEST(ViewportFlag, IsWidthByHeightInRange) {
  for (const auto& [given, width, height] : {std::tuple{"1080x720", 1080, 720}, std::tuple{"800X600", 800, 600},
                                             std::tuple{"7680x4320", 7680, 4320}, std::tuple{"0100x100", 100, 100}}) {
    const auto viewport = parse_viewport(given);
    ASSERT_TRUE(viewport) << given << ": " << viewport.error().message;
    EXPECT_EQ(viewport->width, width) << given;
    EXPECT_EQ(viewport->height, height) << given;
  }
  for (const std::string bad : {"1080", "1080x", "x720", "1080x720x1", "1080*720", " 1080x720", "-1080x720", "99x100",
                                "7681x4320", "123456x100", ""}) {
    const auto viewport = parse_viewport(bad);
    ASSERT_FALSE(viewport) << bad;
    EXPECT_NE(viewport.error().message.find("--viewport"), std::string::npos) << bad;
  }
}

}  // namespace
}  // namespace vimgpt::cli
