// The browser core against a real browser and pages served from 127.0.0.1: Chromium, and (the firefox label's
// copies) Firefox.
#include <gtest/gtest.h>
#include <httplib.h>
#include <signal.h>
#include <stb_image.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <future>

#include "browser/browser.h"
#include "browser/diagnostics.h"
#include "support/assertions.h"
#include "support/browser_options.h"
#include "support/fake_latency.h"
#include "support/proc.h"
#include "support/refused_port.h"
#include "support/shared_tab.h"
#include "support/site_server.h"

namespace vimgpt {
namespace {

using browser::ImageFormat;
using browser::ScriptWorld;
using browser::Tab;
using namespace std::chrono_literals;

class BrowserTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_ = std::make_unique<test::SiteServer>([](httplib::Server& s) {
      s.Get("/slow-data", [](const httplib::Request&, httplib::Response& res) {
        test::simulate_latency(400ms);
        res.set_content("arrived late", "text/plain");
      });
      s.Get("/ua", [](const httplib::Request& req, httplib::Response& res) {  // the User-Agent the site received
        res.set_content("<title>" + req.get_header_value("User-Agent") + "</title>", "text/html");
      });
      s.Post("/submit", [](const httplib::Request& req, httplib::Response& res) {
        res.set_content("<title>Submitted</title><p>got " + req.get_param_value("q") + "</p>", "text/html");
      });
    });
    server_->mount("/fx", VIMGPT_FIXTURES_DIR "/browser");
    auto tab = test::open_test_tab();
    ASSERT_TRUE(tab) << tab.error().describe();
    tab_ = std::move(*tab);
  }

  std::unique_ptr<test::SiteServer> server_;
  std::unique_ptr<Tab> tab_;
};

TEST_F(BrowserTest, NavigateWaitsForContentAddedAfterLoad) {
  ASSERT_OK(tab_->navigate(server_->url("/fx/late.html")));
  auto late = tab_->evaluate("document.getElementById('late')?.textContent ?? null");
  ASSERT_TRUE(late) << late.error().describe();
  EXPECT_EQ(*late, "arrived late");
}

// Many sites answer "HeadlessChrome" with a block page: a headless run says what the full browser says, in the
// request and to the page's scripts; a given User-Agent still wins.
TEST_F(BrowserTest, AHeadlessBrowserSendsTheFullBrowsersUserAgent) {
  ASSERT_TRUE(tab_->navigate(server_->url("/ua")));
  const std::string sent = tab_->title().value_or("");
  EXPECT_EQ(sent.find("Headless"), std::string::npos) << sent;
  EXPECT_NE(sent.find(test::on_firefox() ? " Firefox/" : " Chrome/"), std::string::npos) << sent;
  EXPECT_EQ(tab_->evaluate_in_page("navigator.userAgent").value_or(""), sent);
  const auto brands = tab_->evaluate_in_page("JSON.stringify(navigator.userAgentData?.brands ?? [])");
  ASSERT_TRUE(brands) << brands.error().describe();
  EXPECT_EQ(brands->get<std::string>().find("Headless"), std::string::npos) << *brands;

  browser::TabOptions options;
  options.user_agent = "vimgpt-test/1.0";
  auto given = Tab::launch(test::loopback_only_launch(), options);
  ASSERT_TRUE(given) << given.error().describe();
  ASSERT_TRUE((*given)->navigate(server_->url("/ua")));
  EXPECT_EQ((*given)->title().value_or(""), "vimgpt-test/1.0");
}

TEST_F(BrowserTest, RefusedConnectionIsANavigationError) {
  const test::RefusedPort refused;
  auto status = tab_->navigate(refused.url());
  ASSERT_FALSE(status);
  EXPECT_EQ(status.error().kind, ErrorKind::Navigation);
  const std::string code = test::on_firefox() ? "NS_ERROR_CONNECTION_REFUSED" : "ERR_CONNECTION_REFUSED";
  EXPECT_NE(status.error().message.find(code + " (nothing is listening at that address)"), std::string::npos)
      << status.error().message;
  // The tab is still usable afterwards.
  EXPECT_TRUE(tab_->navigate(server_->url("/fx/input.html")));
}

// A page that sends the tab where nothing listens (a link to a dead or refused site) ends on the browser's error page;
// Firefox announces its error pages with DOMContentLoaded and never a load event. Settling ends there, not at the
// load cap, which this tab sets past the test's own timeout: waiting for it fails the test.
TEST(BrowserSettle, ANavigationToAnErrorPageEndsThere) {
  test::SiteServer server;
  server.mount("/fx", VIMGPT_FIXTURES_DIR "/browser");
  browser::TabOptions options;
  options.settle.load_cap = std::chrono::minutes{10};
  auto tab = Tab::launch(test::loopback_only_launch(), options);
  ASSERT_TRUE(tab) << tab.error().describe();
  ASSERT_OK((*tab)->navigate(server.url("/fx/input.html")));
  const test::RefusedPort refused;
  ASSERT_TRUE((*tab)->evaluate("setTimeout(() => { location.href = '" + refused.url() + "'; }, 0); true"));
  ASSERT_OK((*tab)->settle(2s));
  const auto document = (*tab)->evaluate("document.documentURI");
  ASSERT_TRUE(document) << document.error().describe();
  EXPECT_TRUE(document->get<std::string>().starts_with(test::on_firefox() ? "about:neterror" : "chrome-error:"))
      << *document;
}

// A page the browser kept in its back-forward cache is shown again with no commit and no load event on Firefox: going
// back there ends all the same, with its address and a new document counted.
TEST(BrowserSettle, GoingBackToAPageTheBrowserKeptEndsThere) {
  test::SiteServer server;
  server.mount("/fx", VIMGPT_FIXTURES_DIR "/browser");
  browser::TabOptions options;
  options.settle.load_cap = std::chrono::minutes{10};
  auto tab = test::open_test_tab(options);
  ASSERT_TRUE(tab) << tab.error().describe();
  ASSERT_OK((*tab)->navigate(server.url("/fx/input.html")));
  ASSERT_OK((*tab)->navigate(server.url("/fx/popup.html")));
  const auto generation = (*tab)->page_generation();
  ASSERT_OK((*tab)->go_back());
  EXPECT_EQ((*tab)->last_url(), server.url("/fx/input.html"));
  EXPECT_NE((*tab)->page_generation(), generation);
  EXPECT_EQ(*(*tab)->evaluate("document.getElementById('b').textContent"), "Press");
}

// A navigation the page starts to an address the filter refuses (here on a redirect's second hop) ends where it was
// refused: Chromium shows its error page, Firefox leaves the page as it was and says so only with a failed fetch.
TEST(BrowserSettle, APageNavigationRefusedOnARedirectEndsThere) {
  test::SiteServer server([](httplib::Server& s) {
    s.Get("/away", [](const httplib::Request&, httplib::Response& res) { res.set_redirect("/fx/refused.html"); });
  });
  server.mount("/fx", VIMGPT_FIXTURES_DIR "/browser");
  browser::TabOptions options;
  options.settle.load_cap = std::chrono::minutes{10};
  options.navigation_filter = [](const std::string& url) -> std::optional<std::string> {
    if (url.find("refused") != std::string::npos) return "not for this test";
    return std::nullopt;
  };
  auto tab = test::open_test_tab(options);
  ASSERT_TRUE(tab) << tab.error().describe();
  ASSERT_OK((*tab)->navigate(server.url("/fx/input.html")));
  ASSERT_TRUE((*tab)->evaluate("setTimeout(() => { location.href = '/away'; }, 0); true"));
  ASSERT_OK((*tab)->settle(2s));
  const auto blocked = (*tab)->take_blocked();
  ASSERT_EQ(blocked.size(), 1U);
  EXPECT_EQ(blocked[0].url, server.url("/fx/refused.html"));
  EXPECT_EQ(server.count("GET", "/fx/refused.html"), 0);
  ASSERT_OK((*tab)->navigate(server.url("/fx/popup.html")));
}

struct Decoded {
  int width = 0, height = 0;
  bool ok = false;
};
Decoded decode(const std::string& bytes) {
  Decoded d;
  int channels = 0;
  unsigned char* pixels = stbi_load_from_memory(reinterpret_cast<const unsigned char*>(bytes.data()),
                                                static_cast<int>(bytes.size()), &d.width, &d.height, &channels, 3);
  d.ok = pixels != nullptr;
  stbi_image_free(pixels);
  return d;
}

TEST_F(BrowserTest, ScreenshotsDecodeInTheRequestedFormatAndSize) {
  ASSERT_OK(tab_->navigate(server_->url("/fx/input.html")));
  for (auto format : {ImageFormat::Png, ImageFormat::Jpeg}) {
    auto shot = tab_->screenshot({format, 70, 1.0, std::nullopt});
    ASSERT_TRUE(shot) << shot.error().describe();
    const auto d = decode(shot->bytes);
    ASSERT_TRUE(d.ok) << to_string(format);
    EXPECT_EQ(d.width, 1080);
    EXPECT_EQ(d.height, 720);
    EXPECT_EQ(shot->width, 1080);
    const bool is_png = shot->bytes.rfind("\x89PNG", 0) == 0;
    EXPECT_EQ(is_png, format == ImageFormat::Png);
  }
  auto scaled = tab_->screenshot({ImageFormat::Jpeg, 80, 0.5, std::nullopt});
  ASSERT_TRUE(scaled) << scaled.error().describe();
  const auto d = decode(scaled->bytes);
  EXPECT_EQ(d.width, 540);
  EXPECT_EQ(d.height, 360);
  // A region on its own (a computer tool's zoom), at a scale: its CSS size times the scale.
  auto region = tab_->screenshot({ImageFormat::Jpeg, 80, 2.0, browser::ViewportBox{10, 20, 100, 50}});
  ASSERT_TRUE(region) << region.error().describe();
  const auto r = decode(region->bytes);
  EXPECT_EQ(r.width, 200);
  EXPECT_EQ(r.height, 100);
  EXPECT_FALSE(tab_->screenshot({ImageFormat::Jpeg, 80, 1.0, browser::ViewportBox{0, 0, 0, 10}}));
  auto webp = tab_->screenshot({ImageFormat::Webp, 80, 1.0, std::nullopt});
  if (test::on_firefox()) {  // BiDi captures PNG and JPEG only
    ASSERT_FALSE(webp);
    EXPECT_EQ(webp.error().kind, ErrorKind::Unsupported);
  } else {
    ASSERT_TRUE(webp);
    EXPECT_EQ(webp->bytes.substr(8, 4), "WEBP");
    EXPECT_EQ(webp->width, 1080);
  }
  // A new viewport is what the next capture covers.
  ASSERT_OK(tab_->set_viewport({800, 600, 1.0}));
  auto resized = tab_->screenshot();
  ASSERT_TRUE(resized) << resized.error().describe();
  EXPECT_EQ(resized->width, 800);
  EXPECT_EQ(resized->height, 600);
  EXPECT_EQ(*tab_->evaluate_in_page("innerWidth"), 800);
}

// A tab the page opens whose navigation began before the tab was followed (its document still on the way): settling
// waits for that load as for any, so the page read next is the new one, not its empty first document. Firefox lost
// such a navigation (it counted only the current tab's) and was read mid-load under CI's load.
TEST_F(BrowserTest, ATabOpenedOnASlowPageIsFollowedOnceItHasLoaded) {
  std::promise<void> asked;
  std::atomic<bool> told{false};
  test::SiteServer site([&](httplib::Server& s) {
    s.Get("/opener", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(
          "<!doctype html><title>Opener</title><a href='/slow-page' target='_blank' "
          "style='display:block;width:200px;height:50px;margin:20px'>open</a>",
          "text/html");
    });
    s.Get("/slow-page", [&](const httplib::Request&, httplib::Response& res) {
      if (!told.exchange(true)) asked.set_value();
      test::simulate_latency(1500ms);
      res.set_content("<!doctype html><title>Arrived</title><p>late but whole</p>", "text/html");
    });
  });
  ASSERT_OK(tab_->navigate(site.url("/opener")));
  ASSERT_OK(tab_->click({120, 45}));
  // The new tab's navigation has begun (its request reached the server) before anything follows the tab.
  ASSERT_EQ(asked.get_future().wait_for(10s), std::future_status::ready);
  ASSERT_OK(tab_->settle(10s));
  EXPECT_EQ(*tab_->url(), site.url("/slow-page"));
  EXPECT_EQ(*tab_->title(), "Arrived");
}

TEST_F(BrowserTest, ClickIsTrustedTypingFillsAndEnterSubmits) {
  ASSERT_OK(tab_->navigate(server_->url("/fx/input.html")));
  ASSERT_OK(tab_->click({200, 130}));
  EXPECT_EQ(*tab_->evaluate_in_page("window.clicked"), true);
  ASSERT_OK(tab_->click({250, 215}));
  ASSERT_OK(tab_->type_text("hello vimgpt"));
  EXPECT_EQ(*tab_->evaluate("document.getElementById('q').value"), "hello vimgpt");
  ASSERT_OK(tab_->press_key(browser::Key::Enter));
  ASSERT_OK(tab_->settle(5s));
  EXPECT_EQ(*tab_->title(), "Submitted");
  EXPECT_EQ(server_->count("POST", "/submit"), 1);
  EXPECT_EQ(server_->requests().back().body, "q=hello+vimgpt");
  ASSERT_OK(tab_->go_back());
  EXPECT_EQ(*tab_->url(), server_->url("/fx/input.html"));
}

TEST_F(BrowserTest, IsolatedWorldIsInvisibleToThePage) {
  ASSERT_OK(tab_->navigate(server_->url("/fx/input.html")));
  ASSERT_OK(tab_->evaluate("window.vimgptPrivate = 42; true"));
  EXPECT_EQ(*tab_->evaluate_in_page("typeof window.vimgptPrivate"), "undefined");
  EXPECT_EQ(*tab_->evaluate("typeof window.pageSecret"), "undefined");
  EXPECT_EQ(*tab_->evaluate("window.vimgptPrivate"), 42);
  // Both worlds share the same DOM.
  EXPECT_EQ(*tab_->evaluate("document.getElementById('b').textContent"), "Press");
  // Values come back as plain JSON, a promise's once it settles; a thrown error is an error.
  EXPECT_EQ(*tab_->evaluate("({a: [1, 'x', null], b: {c: true}})"),
            nlohmann::json::parse(R"({"a": [1, "x", null], "b": {"c": true}})"));
  EXPECT_EQ(*tab_->evaluate("Promise.resolve(7)"), 7);
  const auto thrown = tab_->evaluate("throw new Error('boom')");
  ASSERT_FALSE(thrown);
  EXPECT_NE(thrown.error().message.find("boom"), std::string::npos);
}

// The full Chromium (and Firefox) runs a preloaded script as each document is created, before it is parsed.
TEST_F(BrowserTest, PreloadedScriptsRunInTheIsolatedWorldOfEachNewDocumentBeforeItIsParsed) {
  auto full = Tab::launch(test::full_browser_launch());
  ASSERT_TRUE(full) << full.error().describe();
  Tab& tab = **full;
  const std::string counter = "globalThis.runs = (globalThis.runs || 0) + 1; globalThis.sawBody = !!document.body;";
  ASSERT_OK(tab.preload("counter", counter, ScriptWorld::Isolated));
  ASSERT_OK(tab.preload("counter", counter, ScriptWorld::Isolated));  // once per name
  ASSERT_OK(tab.navigate(server_->url("/fx/input.html")));
  EXPECT_EQ(*tab.evaluate("globalThis.runs"), 1);
  EXPECT_EQ(*tab.evaluate("globalThis.sawBody"), false);
  EXPECT_EQ(*tab.evaluate_in_page("typeof globalThis.runs"), "undefined");
  // A new document, and a same-origin frame's document, start with it too.
  ASSERT_OK(tab.navigate(server_->url("/fx/popup.html")));
  EXPECT_EQ(*tab.evaluate("globalThis.runs"), 1);
  ASSERT_OK(
      tab.evaluate("new Promise((done) => { const f = document.createElement('iframe'); f.onload = () => done(true);"
                   " f.src = '/fx/input.html'; document.body.appendChild(f); })"));
  // Read from the parent's world, which Chromium gives the frame's world of the same name for. A Firefox sandbox
  // reaches only the frame's page window (an Xray), and Tab lists no Firefox frames yet (docs/engines.md): the frame's
  // own sandbox cannot be asked there.
  if (!test::on_firefox()) {
    EXPECT_EQ(*tab.evaluate("document.querySelector('iframe').contentWindow.runs"), 1);
  }
}

// The headless shell (the default headless engine) runs it once per document too, when the world is first used.
TEST_F(BrowserTest, PreloadedScriptsRunOncePerDocumentInTheHeadlessShell) {
  ASSERT_OK(tab_->preload("counter", "globalThis.runs = (globalThis.runs || 0) + 1;", ScriptWorld::Isolated));
  ASSERT_OK(tab_->navigate(server_->url("/fx/input.html")));
  EXPECT_EQ(*tab_->evaluate("globalThis.runs"), 1);
  EXPECT_EQ(*tab_->evaluate("globalThis.runs"), 1);
  EXPECT_EQ(*tab_->evaluate_in_page("typeof globalThis.runs"), "undefined");
  ASSERT_OK(tab_->navigate(server_->url("/fx/popup.html")));
  EXPECT_EQ(*tab_->evaluate("globalThis.runs"), 1);
}

// A script for the page's own world (autoconsent's) runs there, once in each new document; the isolated world does
// not see what it defines.
TEST_F(BrowserTest, PreloadedPageScriptsRunOnceInThePagesOwnWorldOfEachDocument) {
  ASSERT_OK(tab_->preload("page counter", "window.pageRuns = (window.pageRuns || 0) + 1;", ScriptWorld::Page));
  ASSERT_OK(tab_->preload("page counter", "window.pageRuns = (window.pageRuns || 0) + 1;", ScriptWorld::Page));
  ASSERT_OK(tab_->navigate(server_->url("/fx/input.html")));
  EXPECT_EQ(*tab_->evaluate_in_page("window.pageRuns"), 1);
  EXPECT_EQ(*tab_->evaluate("typeof window.pageRuns"), "undefined");
  ASSERT_OK(tab_->navigate(server_->url("/fx/popup.html")));
  EXPECT_EQ(*tab_->evaluate_in_page("window.pageRuns"), 1);
}

TEST_F(BrowserTest, LastUrlFollowsNavigationsWithinAndAcrossDocuments) {
  ASSERT_OK(tab_->navigate(server_->url("/fx/input.html")));
  EXPECT_EQ(tab_->last_url(), server_->url("/fx/input.html"));
  // Same-document navigations are reported while the script runs, before its answer.
  ASSERT_OK(tab_->evaluate_in_page("location.hash = 'part'; history.pushState({}, '', '/fx/pushed'); true"));
  EXPECT_EQ(tab_->last_url(), *tab_->url());
  EXPECT_EQ(tab_->last_url(), server_->url("/fx/pushed"));
  ASSERT_OK(tab_->navigate(server_->url("/fx/popup.html#top")));
  EXPECT_EQ(tab_->last_url(), server_->url("/fx/popup.html#top"));
}

TEST_F(BrowserTest, DialogsAreDismissedAndReported) {
  ASSERT_OK(tab_->navigate(server_->url("/fx/popup.html")));
  auto rect = tab_->evaluate(
      "(() => { const r = document.getElementById('alert').getBoundingClientRect();"
      " return [r.x + r.width / 2, r.y + r.height / 2]; })()");
  ASSERT_TRUE(rect);
  ASSERT_OK(tab_->click({(*rect)[0].get<double>(), (*rect)[1].get<double>()}));
  ASSERT_OK(tab_->settle(3s));
  EXPECT_EQ(*tab_->title(), "after alert");
  const auto dialogs = tab_->take_dialogs();
  ASSERT_EQ(dialogs.size(), 1U);
  EXPECT_EQ(dialogs[0].type, browser::DialogType::Alert);
  EXPECT_EQ(dialogs[0].message, "hello from the page");
}

TEST_F(BrowserTest, NewTabsAreFollowed) {
  ASSERT_OK(tab_->navigate(server_->url("/fx/popup.html")));
  auto rect = tab_->evaluate(
      "(() => { const r = document.getElementById('new').getBoundingClientRect();"
      " return [r.x + 10, r.y + r.height / 2]; })()");
  ASSERT_TRUE(rect);
  ASSERT_OK(tab_->click({(*rect)[0].get<double>(), (*rect)[1].get<double>()}));
  ASSERT_OK(tab_->settle(5s));
  EXPECT_EQ(*tab_->url(), server_->url("/fx/input.html"));
  EXPECT_EQ(*tab_->title(), "Input");
  auto shot = tab_->screenshot();  // the followed tab is in front, so capture does not hang
  ASSERT_TRUE(shot) << shot.error().describe();
}

TEST_F(BrowserTest, KilledBrowserFailsThePendingCommandAsExited) {
  auto own = Tab::launch(test::loopback_only_launch());  // a browser of its own to kill, never a shared one
  ASSERT_TRUE(own) << own.error().describe();
  tab_ = std::move(*own);
  ASSERT_OK(tab_->navigate(server_->url("/fx/input.html")));
  const int pid = tab_->browser_pid();
  ASSERT_GT(pid, 0);
  // A command that would never finish on its own: only noticing the dead browser can end it.
  auto pending = std::async(std::launch::async, [&] { return tab_->evaluate("new Promise(() => {})"); });
  ASSERT_EQ(pending.wait_for(200ms), std::future_status::timeout);
  const auto killed_at = std::chrono::steady_clock::now();
  ASSERT_EQ(::kill(pid, SIGKILL), 0);
  auto result = pending.get();
  const auto noticed_ms =
      std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() - killed_at).count();
  ASSERT_FALSE(result);
  EXPECT_EQ(result.error().kind, ErrorKind::BrowserExited) << result.error().describe();
  std::printf("dead browser noticed after %lld ms\n", static_cast<long long>(noticed_ms));
  EXPECT_FALSE(tab_->alive());
  EXPECT_EQ(tab_->last_url(), server_->url("/fx/input.html"));  // known without the browser
  auto after = tab_->navigate(server_->url("/fx/input.html"));
  ASSERT_FALSE(after);
  EXPECT_EQ(after.error().kind, ErrorKind::BrowserExited);
}

TEST(BrowserLifetime, ClosingReapsTheProcessAndRemovesTheTemporaryProfile) {
  const auto temp = std::filesystem::temp_directory_path() / ("vimgpt-test-" + std::to_string(::getpid()));
  std::filesystem::create_directories(temp);
  ::setenv("TMPDIR", temp.c_str(), 1);
  int pid = 0;
  {
    // The full Chromium: it starts a crash handler in a session of its own (the headless shell starts none).
    auto tab = Tab::launch(test::full_browser_launch());
    ASSERT_TRUE(tab) << tab.error().describe();
    pid = (*tab)->browser_pid();
    EXPECT_FALSE(std::filesystem::is_empty(temp));  // the profile lives there while the browser runs
  }
  ::unsetenv("TMPDIR");
  EXPECT_TRUE(std::filesystem::is_empty(temp));
  EXPECT_EQ(::waitpid(pid, nullptr, WNOHANG), -1);  // already reaped: no zombie left
  EXPECT_EQ(errno, ECHILD);
  EXPECT_EQ(::kill(-pid, 0), -1);  // nothing of its process group is left either
  // Nor any helper it started outside its group (Chromium's crash handler, in a session of its own, is adopted by us
  // as their subreaper): no child of this process has ended unreaped.
  siginfo_t ended{};
  if (::waitid(P_ALL, 0, &ended, WEXITED | WNOHANG | WNOWAIT) == 0) {
    EXPECT_EQ(ended.si_pid, 0) << "an unreaped child: " << test::read_proc(ended.si_pid, "comm").value_or("?");
  } else {
    EXPECT_EQ(errno, ECHILD);  // no child at all
  }
  std::filesystem::remove_all(temp);
}

// Headless runs use Debian's chromium-headless-shell (scripts/setup.sh installs it); --chrome still wins.
TEST(BrowserLaunch, HeadlessRunsUseTheHeadlessShell) {
  const auto executable = [](const Tab& tab) {
    return std::filesystem::read_symlink("/proc/" + std::to_string(tab.browser_pid()) + "/exe").string();
  };
  auto shell = Tab::launch(test::loopback_only_launch());
  ASSERT_TRUE(shell) << shell.error().describe();
  EXPECT_EQ(executable(**shell), "/usr/lib/chromium/chromium-headless-shell");
  auto full = Tab::launch(test::full_browser_launch());
  ASSERT_TRUE(full) << full.error().describe();
  EXPECT_EQ(executable(**full), test::kFullChromium);
}

// Chromium reads only the last --disable-features it is given: a caller's own list must not turn ours back on.
TEST(BrowserLaunch, ACallersDisabledFeaturesJoinOurs) {
  auto options = test::loopback_only_launch();
  options.extra_args.emplace_back("--enable-automation");  // lets Browser.getBrowserCommandLine answer
  options.extra_args.emplace_back("--disable-features=AutofillServerCommunication");
  auto tab = Tab::launch(options);
  ASSERT_TRUE(tab) << tab.error().describe();
  auto line = browser::connection_of(**tab).call("Browser.getBrowserCommandLine");
  ASSERT_TRUE(line) << line.error().describe();
  std::vector<std::string> lists;
  for (const auto& arg : (*line)["arguments"]) {
    const auto text = arg.get<std::string>();
    if (text.starts_with("--disable-features=")) lists.push_back(text);
  }
  ASSERT_EQ(lists.size(), 1U);
  EXPECT_NE(lists[0].find("AutofillServerCommunication"), std::string::npos) << lists[0];
  EXPECT_NE(lists[0].find("WebUIOmniboxPopup"), std::string::npos) << lists[0];
  EXPECT_NE(lists[0].find("RenderDocument"), std::string::npos) << lists[0];
}

TEST(BrowserLaunch, MissingChromiumSaysWhatToDo) {
  launch::LaunchOptions options;
  options.chrome_path = "/nonexistent/chromium";
  auto tab = Tab::launch(options);
  ASSERT_FALSE(tab);
  EXPECT_EQ(tab.error().kind, ErrorKind::NotFound);
  EXPECT_NE(tab.error().message.find("--chrome"), std::string::npos);
}

}  // namespace
}  // namespace vimgpt
