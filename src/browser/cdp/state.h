// Private to src/browser: the state behind a CdpTab, shared by the files of browser/cdp.
#pragma once

#include <chrono>
#include <condition_variable>
#include <map>
#include <mutex>

#include "browser/cdp/tab.h"
#include "browser/core.h"

namespace vimgpt::browser {

struct CdpTab::Impl : TabCore {
  bool owns_browser = false;             // a local Chromium we launched (vs a tab in a remote browser)
  launch::LaunchOptions launch_options;  // how it was launched, for relaunch()
  std::string browser_context_id;        // set when the tab lives in its own context on a remote browser
  // The User-Agent every page and frame is given: options.user_agent, else the browser's own with "HeadlessChrome"
  // said as the full browser says it ("Chrome"), since many sites answer a headless one with a block page.
  std::string user_agent;

  // The target the agent works in; it moves to a new tab when the page opens one.
  std::string target_id;
  std::string session_id;
  std::string main_frame_id;
  std::vector<std::string> previous_targets;  // to return to when a popup closes itself
  std::vector<std::string> pages;             // every open tab of ours, in the order they opened (pages())

  // Everything below is written by event handlers on the connection's reader thread.
  // Requests of the working target and its frames still in flight, for "network quiet" (Chromium's
  // networkAlmostIdle waits a fixed 500 ms+ even when nothing is loading).
  struct Request {
    std::string session;  // where it was reported
    std::string frame;
    std::string loader;
  };
  std::map<std::string, Request> requests_in_flight;  // by request id
  // A request started or ended: stamps the time and wakes the network waiters. Mutex held.
  void network_moved() {
    network_changed = std::chrono::steady_clock::now();
    network_cv.notify_all();
  }
  // Forgets requests whose end will not be reported here. Mutex held.
  template <typename Predicate>
  void forget_requests(Predicate gone) {
    if (std::erase_if(requests_in_flight, [&](const auto& entry) { return gone(entry.second); }) > 0) network_moved();
  }
  std::chrono::steady_clock::time_point network_changed = std::chrono::steady_clock::now();
  std::condition_variable network_cv;
  std::vector<std::string> opened_targets;  // pages this tab opened, not yet followed
  bool current_target_destroyed = false;
  bool screenshot_pending = false;            // a capture whose frame a new document would never deliver
  int isolated_context = 0;                   // 0: create on next use
  std::vector<ChildFrame> child_frames;       // out-of-process frames, nested ones too, in attach order
  std::map<std::string, int> child_contexts;  // isolated world per child session
  // name → the Page.addScriptToEvaluateOnNewDocument parameters of each preload(), for every session
  std::map<std::string, Json, std::less<>> preloads;
  std::vector<std::string> download_order;    // guids, in the order downloads began
  std::map<std::string, Download> downloads;  // by guid, until take_downloads()
  std::condition_variable download_cv;

  // start_screencast(): the sink of a running screencast (empty: none), and how it was asked for.
  FrameSink screencast_sink;
  ScreencastOptions screencast_options;
  // Asks the current session for screencast frames. Mutex held.
  void post_start_screencast();
  // A frame: acknowledged (the browser sends the next only then) and given to the sink, outside the mutex.
  void on_screencast_frame(const wire::Event& event);

  std::uint64_t subscription = 0;
  std::unique_ptr<wire::EventQueue> page_events;  // lifecycle and navigation events of the current target

  Result<Json> call(std::string_view method, Json params = Json::object(), milliseconds timeout = kCommandTimeout) {
    // A crashed renderer answers nothing; only loading a page again (browser-side commands) can help.
    if (has_crashed() && method != "Page.navigate" && method != "Page.reload") return crash_failure();
    return connection->call(method, std::move(params), session_id, timeout);
  }
  bool has_crashed() {
    std::scoped_lock lock(mutex);
    return crashed;
  }
  static Failure crash_failure() { return fail(ErrorKind::Protocol, kCrashed); }
  static constexpr const char* kCrashed = "the page crashed (its renderer died); load a page to go on";

  void on_event(const wire::Event& event);
  void on_download(const wire::Event& event);
  void on_attached(const wire::Event& event);
  // The working target's session or one of its out-of-process frames'. Called with the mutex held.
  [[nodiscard]] bool is_own_session(const std::string& session) const;
  // Launches Chromium with launch_options, subscribes and attaches to its first page.
  Status start_local();
  Status attach(const std::string& target);
  // Sets user_agent once the browser is there (its own one asked for only when none is given).
  Status choose_user_agent();
  Status follow_new_tabs();
  Result<int> create_world(std::string_view session, const std::string& frame);
  Result<int> isolated_world();
  Result<int> frame_world(const ChildFrame& frame);
  // Evaluates in the isolated world of the main frame. A world gone stale (its document replaced) is
  // forgotten, so the next call makes a fresh one in the new document.
  Result<Json> evaluate_isolated(std::string_view expression);
  // The world vanished between creating it and using it, or under a running script (a navigation).
  static bool is_stale_world(const Result<Json>& result);
  // Has `session` run the preloads in each new document. Posted, in order with the session's other commands.
  void post_preloads(const std::string& session);
  // Sends what a session needs to report (the document filter) and auto-attach nested frames.
  void configure_session(const std::string& session);
  Result<Json> evaluate_with(std::string_view session, std::optional<int> context, std::string_view expression);
  Status wait_for_navigation(std::string loader_id, milliseconds load_cap, SettleWait wait = SettleWait::Close);
  Status wait_for_new_tab_load();
  // Waits until no request has been in flight for `quiet`, at most `cap`.
  void wait_for_network_quiet(milliseconds quiet, milliseconds cap);
  Status apply_viewport() override;
  Status navigate_history(int offset);
  // Before an action: follow tabs the page opened and forget events from before the action.
  Status prepare_action() {
    VIMGPT_TRY_VOID(follow_new_tabs());
    page_events->drain();
    return ok();
  }
};

}  // namespace vimgpt::browser
