// Launching Chromium as a child with --remote-debugging-pipe: commands go to its fd 3, replies come from its
// fd 4. No port is opened, so nothing else on the machine can drive this browser.
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <mutex>

#include "launch/child.h"
#include "launch/launch.h"
#include "launch/xvfb.h"
#include "wire/framing.h"

namespace vimgpt::launch {
namespace {

constexpr const char* kDefaultChrome = "/usr/lib/chromium/chromium";
// The same Chromium without its browser UI (Debian's chromium-headless-shell): it starts in about half the time
// and navigates faster here (docs/benchmarks.md). It cannot show a window or load extensions.
constexpr const char* kHeadlessShell = "/usr/lib/chromium/chromium-headless-shell";
// How often a blocked reader re-checks that the child is still alive when the pipe stays silent.
constexpr int kLivenessPollMs = 200;
// Time a browser gets to shut down cleanly before it is killed, and its helpers get to disappear.
constexpr auto kGracefulExit = std::chrono::milliseconds(2000);

std::string errno_text() {
  return std::strerror(errno);
}

std::string resolve_chrome_path(const LaunchOptions& options) {
  if (!options.chrome_path.empty()) return options.chrome_path;
  if (const char* env = std::getenv("CHROME_PATH"); env != nullptr && *env != '\0') return env;
  if (options.display == Display::Headless && options.extension_dir.empty() && ::access(kHeadlessShell, X_OK) == 0)
    return kHeadlessShell;
  return kDefaultChrome;
}

std::vector<std::string> chromium_arguments(const LaunchOptions& options, const std::string& profile) {
  std::vector<std::string> args = {
      "--remote-debugging-pipe",
      "--user-data-dir=" + profile,
      // Quiet on a closed network: no first-run UI, no background fetches, no updates, no sync.
      "--no-first-run",
      "--no-default-browser-check",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--disable-gpu",
      "--disable-breakpad",
      "--disable-domain-reliability",
      "--metrics-recording-only",
      "--password-store=basic",
      "--use-mock-keychain",
      "--mute-audio",
      "--hide-scrollbars",
      // A tab that is not in front must still render and run timers: the agent may be waiting on it.
      "--disable-renderer-backgrounding",
      "--disable-background-timer-throttling",
      "--disable-backgrounding-occluded-windows",
      // Frames on demand instead of at 60 Hz: a screenshot does not wait for the next vsync tick.
      "--disable-frame-rate-limit",
      "--window-size=" + std::to_string(options.window_width) + "," + std::to_string(options.window_height),
      // Every site in a process of its own, as desktop Chrome does: the headless shell otherwise keeps a cross-origin
      // frame in its page's process, where neither the page's script (the origin rule) nor a DevTools session of
      // the frame's own reaches it, and its fields and buttons get no labels.
      "--site-per-process",
  };
  if (options.display == Display::Headless) args.emplace_back("--headless=new");
  // Chromium's sandbox cannot start as root; everywhere else it stays on.
  if (geteuid() == 0) args.emplace_back("--no-sandbox");
  if (!options.extension_dir.empty()) {
    args.push_back("--disable-extensions-except=" + options.extension_dir);
    args.push_back("--load-extension=" + options.extension_dir);
  }
  if (!options.user_agent.empty()) args.push_back("--user-agent=" + options.user_agent);
  // Chromium reads only the last --disable-features: a caller's list joins ours instead of replacing it (with
  // the omnibox popup and RenderDocument back on, every screenshot is slower: docs/benchmarks.md).
  constexpr std::string_view kFlag = "--disable-features=";
  std::string disabled(kDisabledFeatures);
  for (const auto& arg : options.extra_args) {
    if (arg.starts_with(kFlag)) {
      disabled.append(",").append(arg, kFlag.size());
    } else {
      args.push_back(arg);
    }
  }
  args.push_back(std::string(kFlag) + disabled);
  args.emplace_back("about:blank");
  return args;
}

class PipeTransport final : public Transport {
 public:
  enum class Profile { Temporary, Persistent };

  PipeTransport(pid_t pid, int to_browser, int from_browser, int wake_read, int wake_write,
                std::filesystem::path scratch_root, Profile profile, std::unique_ptr<VirtualDisplay> display)
      : display_(std::move(display)),
        pid_(pid),
        profile_(profile),
        to_browser_(to_browser),
        from_browser_(from_browser),
        wake_read_(wake_read),
        wake_write_(wake_write),
        scratch_root_(std::move(scratch_root)) {}

  ~PipeTransport() override {
    close();
    for (int fd : {to_browser_, from_browser_, wake_read_, wake_write_}) ::close(fd);
  }

  Status send(std::string_view message) override {
    std::scoped_lock lock(send_mutex_);
    if (closed_) return fail(ErrorKind::BrowserExited, "the browser was closed");
    std::string framed(message);
    framed.push_back('\0');
    std::string_view rest = framed;
    while (!rest.empty()) {
      const ssize_t n = ::write(to_browser_, rest.data(), rest.size());
      if (n < 0 && errno == EINTR) continue;
      if (n < 0)
        return fail(ErrorKind::BrowserExited, exit_description("Chromium's pipe closed (" + errno_text() + ")"));
      rest.remove_prefix(static_cast<std::size_t>(n));
    }
    return ok();
  }

  Result<std::string> receive() override {
    while (true) {
      if (!ready_.empty()) {
        std::string message = std::move(ready_.front());
        ready_.pop_front();
        return message;
      }
      if (eof_) return fail(ErrorKind::BrowserExited, exit_description("Chromium closed its DevTools pipe"));
      std::array<pollfd, 2> fds{pollfd{from_browser_, POLLIN, 0}, pollfd{wake_read_, POLLIN, 0}};
      const int n = ::poll(fds.data(), fds.size(), kLivenessPollMs);
      if (n < 0 && errno == EINTR) continue;
      if (n < 0) return fail(ErrorKind::BrowserExited, "poll on Chromium's pipe failed: " + errno_text());
      if (fds[1].revents != 0) return fail(ErrorKind::Cancelled, "the connection was interrupted");
      if (n == 0) {
        // The pipe is quiet: make sure the child has not died with the pipe somehow held open.
        if (child_has_exited()) eof_ = true;
        continue;
      }
      char buffer[65536];
      const ssize_t got = ::read(from_browser_, buffer, sizeof buffer);
      if (got < 0 && errno == EINTR) continue;
      if (got <= 0) {
        eof_ = true;
        continue;
      }
      std::vector<std::string> complete;
      framer_.feed(std::string_view(buffer, static_cast<std::size_t>(got)), complete);
      for (auto& message : complete) ready_.push_back(std::move(message));
    }
  }

  void interrupt() override {
    const char byte = 1;
    [[maybe_unused]] const ssize_t n = ::write(wake_write_, &byte, 1);
  }

  void close() override {
    {
      std::scoped_lock lock(send_mutex_);
      if (closed_) return;
      closed_ = true;
    }
    reap();
    display_.reset();  // the browser first, then the display it showed on
    std::error_code ignored;
    std::filesystem::remove_all(scratch_root_, ignored);
  }

  [[nodiscard]] std::string describe() const override { return "Chromium (pid " + std::to_string(pid_) + ")"; }
  [[nodiscard]] int process_id() const override { return pid_; }

 private:
  // Checks without reaping, so close() can still collect the exit status.
  bool child_has_exited() {
    siginfo_t info{};
    return ::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0 || info.si_pid != 0;
  }

  // The pipe breaks as Chromium ends, seen by whichever of send and receive comes first: how Chromium ended, or
  // `otherwise` when it has not.
  [[nodiscard]] std::string exit_description(const std::string& otherwise) const {
    const auto ended = exit_of(pid_, kExitWait);
    return ended ? "Chromium " + *ended : otherwise;
  }

  // Ends the browser and every helper process in its group, all reaped so no zombie is left behind. A
  // persistent profile gets a clean shutdown first (cookies and sessions are flushed to disk); a throwaway
  // one is killed at once, since nothing in it is kept.
  void reap() {
    if (profile_ == Profile::Persistent) {
      constexpr std::string_view kBrowserClose = R"({"id":0,"method":"Browser.close"})";
      std::string message(kBrowserClose);
      message.push_back('\0');
      if (::write(to_browser_, message.data(), message.size()) != static_cast<ssize_t>(message.size())) {
        ::kill(pid_, SIGTERM);
      }
      const auto deadline = std::chrono::steady_clock::now() + kGracefulExit;
      while (::waitpid(pid_, nullptr, WNOHANG) == 0 && std::chrono::steady_clock::now() < deadline) {
        ::poll(nullptr, 0, 10);
      }
    }
    // We are the subreaper of the group's orphans, so waiting on the group collects the helpers too.
    collect_group(pid_, static_cast<int>(kGracefulExit.count()));
  }

  std::unique_ptr<VirtualDisplay> display_;  // --xvfb: the browser's own display
  pid_t pid_;
  Profile profile_;
  int to_browser_;
  int from_browser_;
  int wake_read_;
  int wake_write_;
  std::filesystem::path scratch_root_;  // temporary profile and Chromium's $TMPDIR
  std::mutex send_mutex_;
  bool closed_ = false;
  wire::NulFramer framer_;
  std::deque<std::string> ready_;
  bool eof_ = false;
};

}  // namespace

Result<std::unique_ptr<Transport>> launch_chromium(const LaunchOptions& options) {
  const std::string chrome = resolve_chrome_path(options);
  if (::access(chrome.c_str(), X_OK) != 0) {
    return fail(ErrorKind::NotFound, "Chromium not found at " + chrome +
                                         ": run scripts/setup.sh to install it, or pass --chrome PATH / set "
                                         "CHROME_PATH");
  }
  if (options.window_width <= 0 || options.window_height <= 0) {
    return fail(ErrorKind::InvalidArgument, "the browser window must be at least 1x1");
  }
  // A write to a pipe whose reader died must be an error we can report, not a signal that ends us.
  ::signal(SIGPIPE, SIG_IGN);
  // Chromium's helper processes outlive the browser process by a moment; as their subreaper we collect them
  // ourselves instead of leaving zombies for init.
  ::prctl(PR_SET_CHILD_SUBREAPER, 1);

  // Everything Chromium writes outside a user-named profile lives in one folder of ours, removed at close:
  // the temporary profile and Chromium's own scratch files (it leaves org.chromium.* folders in $TMPDIR).
  std::string root_pattern = (std::filesystem::temp_directory_path() / "vimgpt-browser-XXXXXX").string();
  if (::mkdtemp(root_pattern.data()) == nullptr) {
    return fail(ErrorKind::Io, "cannot create a temporary folder for the browser: " + errno_text());
  }
  const std::filesystem::path scratch_root = root_pattern;
  auto discard_scratch = [&] {
    std::error_code ignored;
    std::filesystem::remove_all(scratch_root, ignored);
  };
  std::error_code error;
  std::filesystem::create_directories(scratch_root / "tmp", error);
  std::string profile = options.user_data_dir;
  if (profile.empty()) profile = (scratch_root / "profile").string();
  std::filesystem::create_directories(profile, error);
  if (error) {
    discard_scratch();
    return fail(ErrorKind::Io, "cannot use the profile folder " + profile + ": " + error.message());
  }

  std::array<int, 2> to_browser{};    // we write [1], Chromium reads fd 3
  std::array<int, 2> from_browser{};  // Chromium writes fd 4, we read [0]
  std::array<int, 2> wake{};
  if (::pipe2(to_browser.data(), O_CLOEXEC) != 0 || ::pipe2(from_browser.data(), O_CLOEXEC) != 0 ||
      ::pipe2(wake.data(), O_CLOEXEC | O_NONBLOCK) != 0) {
    discard_scratch();
    return fail(ErrorKind::Io, "cannot create pipes for Chromium: " + errno_text());
  }

  std::unique_ptr<VirtualDisplay> display;
  if (options.display == Display::Xvfb) {
    auto started = VirtualDisplay::start(options.window_width, options.window_height);
    if (!started) {
      discard_scratch();
      return started.failure();
    }
    display = std::move(*started);
  }

  std::vector<std::string> args = chromium_arguments(options, profile);
  std::vector<char*> argv;
  argv.reserve(args.size() + 2);
  argv.push_back(const_cast<char*>(chrome.c_str()));
  for (auto& arg : args) argv.push_back(arg.data());
  argv.push_back(nullptr);
  const bool keep_stderr = std::getenv("VIMGPT_CHROME_STDERR") != nullptr;
  // The child's environment is built here: between fork and exec only async-signal-safe calls are allowed.
  std::vector<std::string> environment =
      display ? environment_with({"TMPDIR=" + (scratch_root / "tmp").string(), "DISPLAY=" + display->name()},
                                 {"WAYLAND_DISPLAY"})
              : environment_with({"TMPDIR=" + (scratch_root / "tmp").string()});
  std::vector<char*> envp;
  envp.reserve(environment.size() + 1);
  for (auto& entry : environment) envp.push_back(entry.data());
  envp.push_back(nullptr);
  const pid_t parent = ::getpid();

  const pid_t pid = fork_tracked();
  if (pid < 0) {
    discard_scratch();
    return fail(ErrorKind::Io, "cannot start Chromium: fork failed: " + errno_text());
  }
  if (pid == 0) {
    // Child: only async-signal-safe calls from here to exec.
    ::setpgid(0, 0);                     // its own group, so every helper process it starts can be ended together
    ::prctl(PR_SET_PDEATHSIG, SIGKILL);  // if vimgpt dies, even by SIGKILL, the browser goes too
    if (::getppid() != parent) ::_exit(127);
    // Move both ends out of the way first: pipe2 may have handed out fds 3 or 4 themselves.
    const int commands = ::fcntl(to_browser[0], F_DUPFD, 10);
    const int replies = ::fcntl(from_browser[1], F_DUPFD, 10);
    ::dup2(commands, 3);
    ::dup2(replies, 4);
    const int null_fd = ::open("/dev/null", O_RDWR);
    ::dup2(null_fd, 0);
    ::dup2(null_fd, 1);
    if (!keep_stderr) ::dup2(null_fd, 2);
    ::close_range(5, ~0U, 0);  // every other descriptor stays with the parent
    ::execve(chrome.c_str(), argv.data(), envp.data());
    ::_exit(127);
  }
  ::close(to_browser[0]);
  ::close(from_browser[1]);
  return std::unique_ptr<Transport>(std::make_unique<PipeTransport>(
      pid, to_browser[1], from_browser[0], wake[0], wake[1], scratch_root,
      options.user_data_dir.empty() ? PipeTransport::Profile::Temporary : PipeTransport::Profile::Persistent,
      std::move(display)));
}

}  // namespace vimgpt::launch
