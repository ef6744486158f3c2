// Launching Firefox for WebDriver BiDi, no geckodriver: a fresh profile with the prefs an automated Firefox needs,
// --remote-debugging-port=0, and the WebSocket it announces on stderr ("WebDriver BiDi listening on ws://HOST:PORT")
// connected at /session. Facts read 2026-12-02 from Firefox ESR 153.8's remote agent and Puppeteer's Firefox
// launcher (packages/browsers/src/browser-data/firefox.ts, FirefoxLauncher.ts).
#include <fcntl.h>
#include <sys/prctl.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <thread>

#include "launch/child.h"
#include "launch/firefox_profile.h"
#include "launch/launch.h"
#include "launch/xvfb.h"

namespace vimgpt::launch {
namespace {

constexpr const char* kDefaultFirefox = "/usr/lib/firefox-esr/firefox-esr";
constexpr std::string_view kAnnouncement = "WebDriver BiDi listening on ";
constexpr std::chrono::seconds kStartTimeout{30};

// user.js: quiet on a closed network (no first-run pages, updates, telemetry, remote settings, safe browsing), no
// dialogs that wait for a person, and pointer input that reaches cross-origin frames (Firefox 153 delivers a click
// over an out-of-process frame to its <iframe> element unless mouse events are dispatched asynchronously). A PDF is
// saved as a download, as Chromium's headless shell saves it, for the agent to show on either engine (src/pdf), and
// the downloads panel does not open over the window (Firefox 98 on): opened by one run's download in a shared browser,
// it took the next run's first click, which only closed it (agent_pdf_test, its PDF tests in a row). No warning before
// a form is sent from a secure page (https, or a loopback one, which Firefox counts as secure) to an http address:
// Firefox's stops the page without a word over BiDi (no prompt event, no navigation, the click's
// input.performActions unanswered until vimgpt's 15 s timeout, the page's timers stopped), so vimgpt could neither see
// it nor answer it; a form of yahoo-4's saved page (tests/browser/hints_pages_test.cpp) met it on every search button.
// The form is sent as the click asked, as Chromium sends it from a loopback page.
constexpr const char* kPrefs[][2] = {
    {"app.normandy.api_url", "\"\""},
    {"app.update.disabledForTesting", "true"},
    {"browser.aboutwelcome.enabled", "false"},
    {"browser.download.alwaysOpenPanel", "false"},
    {"browser.newtabpage.enabled", "false"},
    {"browser.pagethumbnails.capturing_disabled", "true"},
    {"browser.safebrowsing.blockedURIs.enabled", "false"},
    {"browser.safebrowsing.downloads.enabled", "false"},
    {"browser.safebrowsing.malware.enabled", "false"},
    {"browser.safebrowsing.phishing.enabled", "false"},
    {"browser.search.update", "false"},
    {"browser.sessionstore.resume_from_crash", "false"},
    {"browser.shell.checkDefaultBrowser", "false"},
    {"browser.startup.homepage", "\"about:blank\""},
    {"browser.startup.homepage_override.mstone", "\"ignore\""},
    {"browser.startup.page", "0"},
    {"browser.tabs.warnOnCloseOtherTabs", "false"},
    {"browser.tabs.warnOnOpen", "false"},
    {"browser.translations.automaticallyPopup", "false"},
    {"browser.uitour.enabled", "false"},
    {"browser.warnOnQuit", "false"},
    {"datareporting.healthreport.uploadEnabled", "false"},
    {"datareporting.policy.dataSubmissionEnabled", "false"},
    {"datareporting.policy.dataSubmissionPolicyBypassNotification", "true"},
    {"dom.disable_open_during_load", "false"},
    {"dom.max_script_run_time", "0"},
    {"extensions.update.enabled", "false"},
    {"focusmanager.testmode", "true"},
    {"layout.testing.top-level-always-active", "true"},
    {"media.gmp-manager.updateEnabled", "false"},
    {"network.captive-portal-service.enabled", "false"},
    {"network.connectivity-service.enabled", "false"},
    {"network.http.speculative-parallel-limit", "0"},
    {"pdfjs.disabled", "true"},
    {"remote.bidi.dismiss_file_pickers.enabled", "true"},
    {"remote.events.async.mouse.enabled", "true"},
    {"remote.events.async.wheel.enabled", "true"},
    {"services.settings.server", "\"data:,#remote-settings-dummy/v1\""},
    {"security.warn_submit_secure_to_insecure", "false"},
    {"signon.rememberSignons", "false"},
    {"startup.homepage_welcome_url", "\"about:blank\""},
    {"startup.homepage_welcome_url.additional", "\"\""},
    {"toolkit.startup.max_resumed_crashes", "-1"},
    {"toolkit.telemetry.server", "\"\""},
};

}  // namespace

Json firefox_automation_prefs() {
  Json prefs = Json::object();
  for (const auto& [name, value] : kPrefs) prefs[name] = Json::parse(value);
  return prefs;
}

Json firefox_session_capabilities() {
  return {{"unhandledPromptBehavior", {{"default", "ignore"}}}};
}

Status write_prefs(const std::filesystem::path& profile, const LaunchOptions& options) {
  std::ofstream out(profile / "user.js", std::ios::app);
  const auto write = [&](std::string_view name, std::string_view value) {
    out << "user_pref(" << nlohmann::json(name).dump() << ", " << value << ");\n";
  };
  for (const auto& [name, value] : kPrefs) write(name, value);
  // Firefox reads no User-Agent flag: the pref is the way (the Tab sets it over BiDi as well).
  if (!options.user_agent.empty()) write("general.useragent.override", nlohmann::json(options.user_agent).dump());
  for (const auto& [name, value] : options.firefox_prefs) write(name, value);
  if (!out) return fail(ErrorKind::Io, "cannot write the Firefox profile's user.js in " + profile.string());
  return ok();
}

namespace {

// The BiDi WebSocket, and the process behind it: closing ends Firefox and every process of its group, removes a
// temporary profile, and ends the Xvfb of an --xvfb run.
class FirefoxTransport final : public Transport {
 public:
  FirefoxTransport(pid_t pid, std::string url, std::unique_ptr<Transport> socket, std::filesystem::path scratch,
                   int output, std::unique_ptr<VirtualDisplay> display)
      : display_(std::move(display)),
        pid_(pid),
        url_(std::move(url)),
        socket_(std::move(socket)),
        scratch_(std::move(scratch)),
        output_(output) {
    // Firefox keeps writing to stderr; a full pipe would stop it.
    drain_ = std::thread([fd = output_] {
      std::array<char, 4096> buffer{};
      while (::read(fd, buffer.data(), buffer.size()) > 0) {
      }
    });
  }
  ~FirefoxTransport() override { close(); }
  FirefoxTransport(const FirefoxTransport&) = delete;
  FirefoxTransport& operator=(const FirefoxTransport&) = delete;

  Status send(std::string_view message) override {
    auto sent = socket_->send(message);
    if (!sent && !closed_) return ended_or(sent.error());
    return sent;
  }
  Result<std::string> receive() override {
    auto message = socket_->receive();
    if (!message && message.error().kind != ErrorKind::Cancelled && !closed_) return ended_or(message.error());
    return message;
  }
  void interrupt() override { socket_->interrupt(); }
  void close() override {
    if (closed_.exchange(true)) return;
    socket_->close();
    end_child(pid_);
    drain_.join();  // the pipe's last writer is gone
    ::close(output_);
    std::error_code ignored;
    if (!scratch_.empty()) std::filesystem::remove_all(scratch_, ignored);
    display_.reset();
  }
  // The socket breaks as Firefox ends, seen by whichever of send and receive comes first: how Firefox ended, or the
  // socket's own error when it has not.
  [[nodiscard]] Failure ended_or(const Error& error) const {
    if (auto ended = exit_of(pid_, kExitWait)) return fail(ErrorKind::BrowserExited, "Firefox " + *ended);
    return fail(error);
  }
  // Its socket's URL too: another client (a vimgpt given --browser URL) can work in the same Firefox.
  [[nodiscard]] std::string describe() const override {
    return "Firefox (pid " + std::to_string(pid_) + ") at " + url_;
  }
  [[nodiscard]] int process_id() const override { return pid_; }

 private:
  std::unique_ptr<VirtualDisplay> display_;  // --xvfb: Firefox's own display
  pid_t pid_;
  std::string url_;
  std::unique_ptr<Transport> socket_;
  std::filesystem::path scratch_;
  int output_;
  std::thread drain_;
  std::atomic<bool> closed_{false};
};

}  // namespace

Result<std::unique_ptr<Transport>> start_firefox(FirefoxStart start) {
  std::array<int, 2> output{};
  if (::pipe2(output.data(), O_CLOEXEC) != 0) {
    return fail(ErrorKind::Io, std::string("cannot create a pipe for Firefox: ") + std::strerror(errno));
  }
  std::vector<std::string> argv = {start.firefox, "--no-remote", "--profile", start.profile.string(),
                                   "--remote-debugging-port=0"};
  if (start.headless) argv.emplace_back("--headless");
  argv.emplace_back("about:blank");
  auto pid = spawn_child({argv, start.environment, {}, output[1]});
  ::close(output[1]);
  if (!pid) {
    ::close(output[0]);
    return pid.failure();
  }
  // A Firefox that never became reachable is ended.
  const auto abandon = [&](const std::string& why) {
    end_child(*pid);
    ::close(output[0]);
    return fail(ErrorKind::BrowserExited, why);
  };
  auto announced = read_line(
      output[0], [](std::string_view line) { return line.starts_with(kAnnouncement); }, kStartTimeout);
  if (!announced) return abandon("Firefox did not start its WebDriver BiDi server: " + announced.error().message);
  const std::string url = announced->substr(kAnnouncement.size()) + "/session";
  auto socket = wire::connect_websocket(url);
  if (!socket) {
    return abandon("cannot reach Firefox's WebDriver BiDi server at " + url + ": " + socket.error().message);
  }
  return std::unique_ptr<Transport>(std::make_unique<FirefoxTransport>(*pid, url, std::move(*socket), start.scratch,
                                                                       output[0], std::move(start.display)));
}

Result<std::unique_ptr<Transport>> launch_firefox(const LaunchOptions& options) {
  std::string firefox = options.firefox_path;
  if (firefox.empty()) {
    const char* env = std::getenv("FIREFOX_PATH");
    firefox = env != nullptr && *env != '\0' ? env : kDefaultFirefox;
  }
  if (::access(firefox.c_str(), X_OK) != 0) {
    return fail(ErrorKind::NotFound,
                "Firefox not found at " + firefox +
                    ": install it (apt-get install firefox-esr, or scripts/setup.sh), or set FIREFOX_PATH");
  }
  if (options.display == Display::Headed && std::getenv("DISPLAY") == nullptr &&
      std::getenv("WAYLAND_DISPLAY") == nullptr) {
    return fail(ErrorKind::Unsupported,
                "--headed needs a display and this session has none (no DISPLAY or WAYLAND_DISPLAY): use --xvfb");
  }
  if (!options.extension_dir.empty()) return fail(ErrorKind::Unsupported, "--extension loads Chromium extensions");
  // Firefox's content processes outlive it by a moment: as their subreaper we collect them (end_child) instead of
  // leaving them to init.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);
  auto scratch = make_scratch_folder(std::filesystem::temp_directory_path() / "vimgpt-firefox-XXXXXX");
  if (!scratch) return scratch.failure();
  const bool temporary = options.user_data_dir.empty();
  const std::filesystem::path profile = temporary ? *scratch / "profile" : std::filesystem::path(options.user_data_dir);
  std::error_code error;
  std::filesystem::create_directories(profile, error);
  std::filesystem::create_directories(*scratch / "tmp", error);
  auto discard = [&] { std::filesystem::remove_all(*scratch, error); };
  if (temporary) copy_profile_template(firefox, profile);
  if (auto written = write_prefs(profile, options); !written) {
    discard();
    return written.failure();
  }
  FirefoxStart start{firefox, profile, *scratch, options.display == Display::Headless, nullptr, {}};
  if (options.display == Display::Xvfb) {
    auto started = VirtualDisplay::start(options.window_width, options.window_height);
    if (!started) {
      discard();
      return started.failure();
    }
    start.display = std::move(*started);
  }
  start.environment =
      start.display ? environment_with({"TMPDIR=" + (*scratch / "tmp").string(), "DISPLAY=" + start.display->name()},
                                       {"WAYLAND_DISPLAY", "MOZ_HEADLESS"})
                    : environment_with({"TMPDIR=" + (*scratch / "tmp").string()});
  auto transport = start_firefox(std::move(start));
  if (!transport) discard();
  return transport;
}

}  // namespace vimgpt::launch
