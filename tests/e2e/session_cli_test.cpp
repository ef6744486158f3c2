// vimgpt as a command-line tool for coding agents: the first verb starts a background session, verbs in separate
// processes log in on the loopback site through it, and `session stop` leaves no browser and no profile behind.
#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <regex>

#include "common/file.h"
#include "support/cli_runner.h"
#include "support/proc.h"
#include "support/site_server.h"

namespace vimgpt {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

// A site that remembers who signed in by a cookie, as real ones do.
std::unique_ptr<test::SiteServer> start_site() {
  auto site = std::make_unique<test::SiteServer>([](httplib::Server& s) { test::add_cookie_login(s); });
  site->mount("/fx", VIMGPT_FIXTURES_DIR "/site");
  return site;
}

// The label a verb's text gives an element ("[AB] textbox \"Email\"").
std::string label_of(const std::string& text, const std::string& name) {
  std::smatch match;
  return std::regex_search(text, match, std::regex(R"(\[([A-Z]+)\][^\n]*)" + name)) ? std::string(match[1]) : "??";
}

// Processes whose command line names `text` (a browser's profile under the session's TMPDIR).
std::vector<pid_t> processes_naming(const std::string& text) {
  std::vector<pid_t> found;
  for (pid_t pid : test::all_processes()) {
    if (pid != ::getpid() && test::command_line_of(pid).find(text) != std::string::npos) found.push_back(pid);
  }
  return found;
}

class SessionCli : public ::testing::Test {
 protected:
  void SetUp() override {
    fs::remove_all(root_);
    fs::create_directories(place_.tmp);
  }
  void TearDown() override {
    run({"session", "stop", "--session", "t"});  // after a failure: nothing left running
    fs::remove_all(root_);
  }
  test::CliRun run(const std::vector<std::string>& args) { return test::run_vimgpt(args, place_); }

  std::unique_ptr<test::SiteServer> site_ = start_site();
  const fs::path root_ = fs::temp_directory_path() / ("vimgpt-session-" + std::to_string(::getpid()));
  const test::RunPlace place_{root_ / "tmp", {"VIMGPT_SESSION_DIR=" + (root_ / "state").string()}};
};

TEST_F(SessionCli, VerbsInSeparateProcessesShareOneBackgroundSessionUntilItIsStopped) {
  // The first verb starts the session; its frame is written to a file it names.
  auto opened = run({"open", site_->url("/fx/login.html"), "--session", "t"});
  ASSERT_EQ(opened.exit_code, 0) << opened.err << opened.out;
  EXPECT_NE(opened.out.find("Title: Sign in"), std::string::npos) << opened.out;
  std::smatch frame;
  ASSERT_TRUE(std::regex_search(opened.out, frame, std::regex("Frame: (\\S+)"))) << opened.out;
  auto jpeg = read_file(frame[1].str());
  ASSERT_TRUE(jpeg);
  EXPECT_EQ(jpeg->substr(0, 3), "\xFF\xD8\xFF");
  const auto state = json::parse(*read_file((root_ / "state" / "t.json").string()));
  const int server = state["pid"];
  EXPECT_EQ(fs::status(root_ / "state" / "t.json").permissions() & fs::perms::group_all, fs::perms::none);
  EXPECT_EQ(test::command_line_of(server).find(state["token"].get<std::string>()), std::string::npos)
      << "the token is not on the command line";

  // find names the field a coding agent asks for; type in separate processes signs in.
  auto found = run({"find", "password", "--session", "t"});
  ASSERT_EQ(found.exit_code, 0) << found.err;
  const std::string password = label_of(found.out, "Password");
  EXPECT_NE(password, "??") << found.out;
  auto email =
      run({"type", "ada@example.com", "--into", label_of(opened.out, "Email"), "--no-enter", "--session", "t"});
  ASSERT_EQ(email.exit_code, 0) << email.err << email.out;
  auto signed_in = run({"type", "hunter2", "--into", password, "--session", "t"});
  ASSERT_EQ(signed_in.exit_code, 0) << signed_in.err << signed_in.out;
  EXPECT_EQ(site_->count("POST", "/login"), 1);
  auto looked = run({"look", "-o", (root_ / "mine.jpg").string(), "--session", "t"});
  ASSERT_EQ(looked.exit_code, 0) << looked.err;
  EXPECT_NE(looked.out.find("Title: Signed in as ada@example.com"), std::string::npos) << looked.out;
  EXPECT_TRUE(fs::exists(root_ / "mine.jpg"));

  // A label that is not there fails the verb, saying so; the session goes on.
  auto missing = run({"click", "ZZ", "--session", "t"});
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.out.find("failed:"), std::string::npos) << missing.out;
  auto listed = run({"session", "list"});
  EXPECT_NE(listed.out.find("t  pid " + std::to_string(server)), std::string::npos) << listed.out << listed.err;
  EXPECT_FALSE(processes_naming(place_.tmp.string()).empty()) << "its Chromium runs with a profile under TMPDIR";

  // Stopped: no server, no Chromium, no profile, no state.
  auto stopped = run({"session", "stop", "--session", "t"});
  ASSERT_EQ(stopped.exit_code, 0) << stopped.err;
  EXPECT_TRUE(test::wait_for_exit(server, 0));
  EXPECT_TRUE(processes_naming(place_.tmp.string()).empty());
  EXPECT_TRUE(fs::is_empty(place_.tmp)) << fs::begin(fs::directory_iterator(place_.tmp))->path();
  EXPECT_FALSE(fs::exists(root_ / "state" / "t.json"));
  auto again = run({"session", "stop", "--session", "t"});
  EXPECT_NE(again.exit_code, 0);
  EXPECT_NE(again.err.find("no session 't'"), std::string::npos) << again.err;
}

TEST_F(SessionCli, BadVerbInputIsAUsageErrorThatStartsNothing) {
  auto bad = run({"tab", "two", "--session", "t"});
  EXPECT_EQ(bad.exit_code, 64);
  EXPECT_NE(bad.err.find("takes a whole number"), std::string::npos) << bad.err;
  auto both = run({"type", "x", "--enter", "--no-enter", "--session", "t"});
  EXPECT_EQ(both.exit_code, 64);
  for (const std::string& given : std::vector<std::string>{"../etc", "..", ".", std::string(65, 'a'), "a b", ""}) {
    auto name = run({"look", "--session", given});
    EXPECT_EQ(name.exit_code, 64) << given;
    EXPECT_NE(name.err.find("--session takes a name"), std::string::npos) << given << ": " << name.err;
  }
  EXPECT_FALSE(fs::exists(root_ / "state" / "t.json"));
}

}  // namespace
}  // namespace vimgpt
