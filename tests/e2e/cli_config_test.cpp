// Config files through the real binary: HOME and XDG_CONFIG_HOME in a folder of the test's, a project folder with its
// vimgpt.toml, `vimgpt config --json` reporting each setting's layer, and a broken file stopping a run before it
// starts.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>

#include "support/terminal_runner.h"

namespace vimgpt {
namespace {

namespace fs = std::filesystem;
using test::StandardError;

// A person's machine in a folder: a home, a user config folder (XDG_CONFIG_HOME), and a project (a git checkout).
struct Machine {
  fs::path root = fs::temp_directory_path() / ("vimgpt-config-e2e-" + std::to_string(::getpid()));
  fs::path xdg = root / "xdg";
  fs::path project = root / "home" / "project";
  Machine() {
    fs::remove_all(root);
    fs::create_directories(xdg / "vimgpt");
    fs::create_directories(project / ".git");
    fs::create_directories(project / "tasks");
  }
  ~Machine() { fs::remove_all(root); }
  Machine(const Machine&) = delete;
  Machine& operator=(const Machine&) = delete;

  [[nodiscard]] fs::path user_file() const { return xdg / "vimgpt" / "config.toml"; }
  [[nodiscard]] fs::path project_file() const { return project / "vimgpt.toml"; }
  static void write(const fs::path& path, const std::string& text) { std::ofstream(path) << text; }

  // Only what the test names: no key, model or engine of the machine the test runs on leaks in.
  [[nodiscard]] std::vector<std::string> environment(const std::vector<std::string>& more = {}) const {
    std::vector<std::string> variables = {"PATH=" + std::string(std::getenv("PATH")),
                                          "HOME=" + (root / "home").string(), "XDG_CONFIG_HOME=" + xdg.string(),
                                          "TMPDIR=" + fs::temp_directory_path().string()};
    variables.insert(variables.end(), more.begin(), more.end());
    return variables;
  }
};

nlohmann::json setting(const nlohmann::json& report, const std::string& key) {
  for (const auto& entry : report["settings"])
    if (entry["key"] == key) return entry;
  ADD_FAILURE() << "no setting " << key << " in " << report.dump();
  return {};
}

TEST(ConfigE2E, EachLayerWinsOverTheOnesBelowIt) {
  Machine machine;
  Machine::write(machine.user_file(),
                 "model = \"user-model\"\n"
                 "max-steps = 7\n"
                 "max-actions = 3\n"
                 "engine = \"firefox\"\n"
                 "viewport = \"800x600\"\n");
  Machine::write(machine.project_file(),
                 "max-actions = 4\n"
                 "model = \"project-model\"\n"
                 "viewport = \"900x700\"\n");
  // From a folder below the project's: its vimgpt.toml is found above.
  const auto run = test::run_vimgpt_in({"config", "--json", "--viewport", "1000x800"}, machine.project / "tasks",
                                       machine.environment({"VIMGPT_ENGINE=chromium"}), StandardError::File);
  ASSERT_EQ(run.exit_code, 0) << run.err;
  const auto report = nlohmann::json::parse(run.out);
  EXPECT_EQ(report["user_file"]["path"], machine.user_file().string());
  EXPECT_EQ(report["project_file"], fs::weakly_canonical(machine.project_file()).string());
  const std::string project = fs::weakly_canonical(machine.project_file()).string();

  EXPECT_EQ(setting(report, "viewport")["value"], "1000x800");  // the flag over both files
  EXPECT_EQ(setting(report, "viewport")["source"], "flag");
  EXPECT_EQ(setting(report, "engine")["value"], "chromium");  // the environment over the user file
  EXPECT_EQ(setting(report, "engine")["where"], "env VIMGPT_ENGINE");
  EXPECT_EQ(setting(report, "model")["value"], "project-model");  // the project file over the user file
  EXPECT_EQ(setting(report, "model")["where"], project + ":2");
  EXPECT_EQ(setting(report, "max-actions")["value"], "4");
  EXPECT_EQ(setting(report, "max-actions")["source"], "project");
  EXPECT_EQ(setting(report, "max-steps")["value"], "7");  // the user file over the default
  EXPECT_EQ(setting(report, "max-steps")["where"], machine.user_file().string() + ":2");
  EXPECT_EQ(setting(report, "start-url")["source"], "default");
  EXPECT_EQ(setting(report, "api-key")["value"], "not set");

  // The environment over the project file too.
  const auto with_variable = test::run_vimgpt_in({"config", "--json"}, machine.project,
                                                 machine.environment({"VIMGPT_MODEL=env-model"}), StandardError::File);
  ASSERT_EQ(with_variable.exit_code, 0) << with_variable.err;
  EXPECT_EQ(setting(nlohmann::json::parse(with_variable.out), "model")["value"], "env-model");
}

TEST(ConfigE2E, AKeyIsShownAsSetAndWhereFromButNeverItsValue) {
  Machine machine;
  const fs::path key_file = machine.root / "openai-key";
  Machine::write(key_file, "sk-e2e-from-file\n");
  Machine::write(machine.user_file(), "api-key-file = \"" + key_file.string() + "\"\n");
  const auto from_file = test::run_vimgpt_in({"config"}, machine.project, machine.environment(), StandardError::File);
  ASSERT_EQ(from_file.exit_code, 0) << from_file.err;
  EXPECT_NE(from_file.out.find("set (user file " + key_file.string()), std::string::npos) << from_file.out;
  EXPECT_EQ(from_file.out.find("sk-e2e"), std::string::npos) << from_file.out;

  const auto from_environment = test::run_vimgpt_in(
      {"config"}, machine.project, machine.environment({"OPENAI_API_KEY=sk-e2e-environment"}), StandardError::File);
  ASSERT_EQ(from_environment.exit_code, 0) << from_environment.err;
  EXPECT_NE(from_environment.out.find("set (env OPENAI_API_KEY)"), std::string::npos) << from_environment.out;
  EXPECT_EQ(from_environment.out.find("sk-e2e"), std::string::npos) << from_environment.out;
}

TEST(ConfigE2E, ABrokenFileStopsTheRunAndSaysWhereAndWhat) {
  Machine machine;
  Machine::write(machine.project_file(), "model = \"m\"\nmax-action = 3\n");
  const auto run = test::run_vimgpt_in({"find the hours", "--base-url", "http://127.0.0.1:9/v1"}, machine.project,
                                       machine.environment(), StandardError::File);
  EXPECT_EQ(run.exit_code, 64) << run.err;
  const std::string where = fs::weakly_canonical(machine.project_file()).string() + ":2:";
  EXPECT_NE(run.err.find(where), std::string::npos) << run.err;
  EXPECT_NE(run.err.find("did you mean 'max-actions'"), std::string::npos) << run.err;

  Machine::write(machine.project_file(), "api-key = \"sk-e2e-in-the-file\"\n");
  const auto secret = test::run_vimgpt_in({"config"}, machine.project, machine.environment(), StandardError::File);
  EXPECT_EQ(secret.exit_code, 64);
  EXPECT_NE(secret.err.find("api-key holds a secret"), std::string::npos) << secret.err;
  EXPECT_EQ(secret.err.find("sk-e2e"), std::string::npos) << secret.err;
}

TEST(ConfigE2E, AValueOutOfRangeSaysWhichFileSetIt) {
  Machine machine;
  Machine::write(machine.user_file(), "\nmax-actions = 40\n");
  const auto run = test::run_vimgpt_in({"find the hours", "--base-url", "http://127.0.0.1:9/v1"}, machine.project,
                                       machine.environment(), StandardError::File);
  EXPECT_EQ(run.exit_code, 64) << run.err;
  EXPECT_NE(
      run.err.find("--max-actions takes 1 to 20 (max-actions = 40 is set in " + machine.user_file().string() + ":2)"),
      std::string::npos)
      << run.err;
}

}  // namespace
}  // namespace vimgpt
