// Faults the tab survives, against a real Chromium: a renderer that crashes, a browser that is killed, a
// page that never finishes loading, a beforeunload prompt, and downloads (saved where asked, under the
// site's name, or refused when there is nowhere to keep them).
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <condition_variable>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <sstream>

#include "browser/browser.h"
#include "browser/diagnostics.h"
#include "support/assertions.h"
#include "support/browser_options.h"
#include "support/proc.h"
#include "support/site_server.h"

namespace vimgpt {
namespace {

namespace fs = std::filesystem;
using browser::DownloadState;
using browser::Tab;
using namespace std::chrono_literals;

// The profile folder a browser was started with: Chromium's --user-data-dir=DIR, Firefox's --profile DIR.
std::string profile_of(int pid) {
  const std::string text = test::command_line_of(pid);
  const std::string_view flag = test::on_firefox() ? "--profile " : "--user-data-dir=";
  const auto at = text.find(flag);
  if (at == std::string::npos) return {};
  const auto begin = at + flag.size();
  return text.substr(begin, text.find(' ', begin) - begin);
}

std::string read_file(const fs::path& path) {
  std::stringstream out;
  out << std::ifstream(path, std::ios::binary).rdbuf();
  return out.str();
}

class RecoveryTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("vimgpt-recovery-" + std::to_string(::getpid()) + "-" +
                                        ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(dir_);
    fs::create_directories(dir_);
    server_ = std::make_unique<test::SiteServer>([this](httplib::Server& s) {
      // An image that never arrives (until the test ends): the page's load event never fires.
      s.Get("/stuck", [](const httplib::Request&, httplib::Response& res) {
        res.set_content("<title>Stuck</title><p>text is here</p><img src=/never>", "text/html");
      });
      s.Get("/never", [this](const httplib::Request&, httplib::Response& res) {
        std::unique_lock lock(release_mutex_);
        released_cv_.wait_for(lock, 60s, [this] { return released_; });
        res.set_content("", "image/png");
      });
      s.Get("/leave", [](const httplib::Request&, httplib::Response& res) {
        res.set_content(
            "<title>Leave?</title><script>addEventListener('beforeunload', (e) => { e.preventDefault();"
            " e.returnValue = 'unsaved'; });</script><p style='font-size:40px'>unsaved work</p>",
            "text/html");
      });
      s.Get("/page", [](const httplib::Request&, httplib::Response& res) {
        res.set_content("<title>Kept</title><p>a page</p>", "text/html");
      });
      s.Get("/links", [](const httplib::Request&, httplib::Response& res) {
        res.set_content("<title>Files</title><a id=get href=/file style='font-size:40px'>report</a>", "text/html");
      });
      s.Get("/file", [](const httplib::Request&, httplib::Response& res) {
        res.set_header("Content-Disposition", "attachment; filename=\"report.csv\"");
        res.set_content("a,b\n1,2\n", "text/csv");
      });
    });
  }
  void TearDown() override {
    {
      std::scoped_lock lock(release_mutex_);
      released_ = true;
    }
    released_cv_.notify_all();
    tab_.reset();
    fs::remove_all(dir_);
  }

  void launch(const browser::TabOptions& options = {}, launch::LaunchOptions launch = test::loopback_only_launch()) {
    auto tab = Tab::launch(launch, options);
    ASSERT_TRUE(tab) << tab.error().describe();
    tab_ = std::move(*tab);
  }

  // Kills the local browser by its pid and waits until the tab has seen the connection go.
  void kill_browser() {
    wire::EventQueue nothing(browser::connection_of(*tab_), [](const wire::Event&) { return false; });
    ASSERT_EQ(::kill(tab_->browser_pid(), SIGKILL), 0);
    auto waited = nothing.wait([](const wire::Event&) { return false; }, 10s);  // ends when the link does
    ASSERT_FALSE(waited);
    EXPECT_EQ(waited.error().kind, ErrorKind::BrowserExited);
    EXPECT_FALSE(tab_->alive());
  }

  // A trusted click on the download link, and the wait until the browser says a download began.
  void click_download_link() {
    const std::string began_event =
        test::on_firefox() ? "browsingContext.downloadWillBegin" : "Browser.downloadWillBegin";
    wire::EventQueue began(browser::connection_of(*tab_),
                           [&](const wire::Event& e) { return e.method == began_event; });
    auto box = tab_->evaluate(
        "(() => { const r = document.getElementById('get').getBoundingClientRect();"
        " return [r.x + r.width / 2, r.y + r.height / 2]; })()");
    ASSERT_TRUE(box) << box.error().describe();
    ASSERT_OK(tab_->click({(*box)[0].get<double>(), (*box)[1].get<double>()}));
    ASSERT_TRUE(began.wait([](const wire::Event&) { return true; }, 10s));
  }

  fs::path dir_;
  std::mutex release_mutex_;
  std::condition_variable released_cv_;
  bool released_ = false;
  std::unique_ptr<test::SiteServer> server_;
  std::unique_ptr<Tab> tab_;
};

TEST_F(RecoveryTest, RendererCrashIsSeenAndReloadBringsThePageBack) {
  launch();
  ASSERT_OK(tab_->navigate(server_->url("/page")));
  EXPECT_FALSE(tab_->crashed());
  wire::EventQueue crashes(browser::connection_of(*tab_),
                           [](const wire::Event& e) { return e.method == "Inspector.targetCrashed"; });
  browser::connection_of(*tab_).post("Page.crash", wire::Json::object(), browser::session_of(*tab_));
  ASSERT_TRUE(crashes.wait([](const wire::Event&) { return true; }, 10s));
  EXPECT_TRUE(tab_->crashed());
  EXPECT_TRUE(tab_->alive());  // the browser itself lives on

  ASSERT_OK(tab_->navigate(server_->url("/page")));
  EXPECT_FALSE(tab_->crashed());
  auto title = tab_->evaluate("document.title");
  ASSERT_TRUE(title) << title.error().describe();
  EXPECT_EQ(*title, "Kept");
  EXPECT_EQ(server_->count("GET", "/page"), 2);
}

TEST_F(RecoveryTest, KilledBrowserIsRelaunchedWithTheSameProfile) {
  launch::LaunchOptions options = test::loopback_only_launch();
  options.user_data_dir = (dir_ / "profile").string();
  launch({}, options);
  ASSERT_OK(tab_->navigate(server_->url("/page")));
  const int first = tab_->browser_pid();
  EXPECT_EQ(profile_of(first), options.user_data_dir);

  kill_browser();
  auto dead = tab_->evaluate("1");
  ASSERT_FALSE(dead);
  EXPECT_EQ(dead.error().kind, ErrorKind::BrowserExited);

  ASSERT_OK(tab_->relaunch());
  ASSERT_TRUE(tab_->alive());
  EXPECT_NE(tab_->browser_pid(), first);
  EXPECT_EQ(profile_of(tab_->browser_pid()), options.user_data_dir);
  ASSERT_OK(tab_->navigate(server_->url("/page")));
  auto title = tab_->evaluate("document.title");
  ASSERT_TRUE(title) << title.error().describe();
  EXPECT_EQ(*title, "Kept");
}

TEST_F(RecoveryTest, RelaunchWithATemporaryProfileRemovesTheOldOne) {
  launch();
  const std::string old_profile = profile_of(tab_->browser_pid());
  ASSERT_FALSE(old_profile.empty());
  ASSERT_TRUE(fs::exists(old_profile));
  kill_browser();
  ASSERT_OK(tab_->relaunch());
  const std::string new_profile = profile_of(tab_->browser_pid());
  EXPECT_FALSE(fs::exists(old_profile)) << old_profile;
  EXPECT_TRUE(fs::exists(new_profile)) << new_profile;
  ASSERT_OK(tab_->navigate(server_->url("/page")));
  tab_->close();
  EXPECT_FALSE(fs::exists(new_profile)) << new_profile;
}

TEST_F(RecoveryTest, DownloadsAreSavedUnderTheSitesNameAndReported) {
  browser::TabOptions options;
  options.download_dir = (dir_ / "downloads").string();
  launch(options);
  ASSERT_OK(tab_->navigate(server_->url("/links")));
  click_download_link();
  auto first = tab_->take_downloads(10s);
  ASSERT_EQ(first.size(), 1U);
  EXPECT_EQ(first[0].state, DownloadState::Completed);
  EXPECT_EQ(first[0].url, server_->url("/file"));
  EXPECT_EQ(first[0].bytes, 8);
  EXPECT_TRUE(first[0].kept);
  EXPECT_EQ(fs::path(first[0].file), dir_ / "downloads" / "report.csv");
  EXPECT_EQ(read_file(first[0].file), "a,b\n1,2\n");

  // The same name again does not overwrite the first file.
  click_download_link();
  auto second = tab_->take_downloads(10s);
  ASSERT_EQ(second.size(), 1U);
  EXPECT_EQ(second[0].state, DownloadState::Completed);
  // Made unique as the browser makes names unique.
  EXPECT_EQ(fs::path(second[0].file), dir_ / "downloads" / (test::on_firefox() ? "report(1).csv" : "report (1).csv"));
  EXPECT_TRUE(fs::exists(first[0].file));
  EXPECT_TRUE(tab_->take_downloads(0ms).empty());  // each download is reported once
}

// Without a folder of the user's a download goes to a scratch folder of the tab's, for the agent to read (a PDF) and
// delete: reported as not kept, and gone with the tab.
TEST_F(RecoveryTest, DownloadsWithoutAFolderGoToTheTabsScratchFolderAndGoWithIt) {
  launch();
  ASSERT_OK(tab_->navigate(server_->url("/links")));
  click_download_link();
  auto downloads = tab_->take_downloads(10s);
  ASSERT_EQ(downloads.size(), 1U);
  EXPECT_EQ(downloads[0].state, DownloadState::Completed);
  EXPECT_FALSE(downloads[0].kept);
  EXPECT_EQ(read_file(downloads[0].file), "a,b\n1,2\n");
  const fs::path scratch = fs::path(downloads[0].file).parent_path();
  EXPECT_NE(scratch.filename().string().find("vimgpt-downloads-"), std::string::npos) << scratch;
  tab_.reset();
  EXPECT_FALSE(fs::exists(scratch)) << scratch;
}

TEST_F(RecoveryTest, APageThatNeverFinishesLoadingIsCappedAndStillUsable) {
  browser::TabOptions options;
  options.settle.load_cap = 1500ms;
  options.settle.idle_cap = 500ms;
  launch(options);
  const auto start = std::chrono::steady_clock::now();
  ASSERT_OK(tab_->navigate(server_->url("/stuck")));  // the cap, not an error: the run goes on
  EXPECT_LT(std::chrono::steady_clock::now() - start, 10s);
  auto text = tab_->evaluate("document.querySelector('p').textContent");
  ASSERT_TRUE(text) << text.error().describe();
  EXPECT_EQ(*text, "text is here");
  EXPECT_OK(tab_->settle(500ms));
}

TEST_F(RecoveryTest, BeforeUnloadIsAcceptedSoTheNavigationGoesOn) {
  launch();
  ASSERT_OK(tab_->navigate(server_->url("/leave")));
  ASSERT_OK(tab_->click({100, 40}));  // Chromium asks only on pages the user has interacted with
  ASSERT_OK(tab_->navigate(server_->url("/page")));
  auto title = tab_->evaluate("document.title");
  ASSERT_TRUE(title) << title.error().describe();
  EXPECT_EQ(*title, "Kept");
  const auto dialogs = tab_->take_dialogs();
  ASSERT_EQ(dialogs.size(), 1U);
  EXPECT_EQ(dialogs[0].type, browser::DialogType::BeforeUnload);
}

}  // namespace
}  // namespace vimgpt
