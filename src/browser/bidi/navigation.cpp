// Navigating, and waiting until the page has settled: the load, the network quiet, the DOM quiet.
#include "browser/bidi/state.h"

namespace vimgpt::browser {

using bidi::Clock;
using bidi::kBidiTimeout;
using bidi::kSandbox;

using bidi::kReplySlack;

namespace {

// The document a context shows, as its sandbox sees it: the realm (a document the back-forward cache shows again gets
// a new one), whether it has loaded, and its address.
struct ShownDocument {
  std::string realm;
  bool complete = false;
  std::string url;
};

Result<ShownDocument> shown_document(BidiTab::State& s) {
  constexpr milliseconds kAnswered{1000};  // a document frozen as the cache takes it never answers
  VIMGPT_TRY(Json answer, s.call("script.evaluate",
                                 {{"expression", "[document.readyState, location.href]"},
                                  {"target", {{"context", s.current()}, {"sandbox", kSandbox}}},
                                  {"awaitPromise", false},
                                  {"resultOwnership", "none"}},
                                 kAnswered));
  const Json shown = bidi::plain(answer.value("result", Json()));
  if (answer.value("type", "") != "success" || !shown.is_array() || shown.size() != 2 || !shown[1].is_string()) {
    return fail(ErrorKind::Protocol, "the page did not say which document it shows");
  }
  return ShownDocument{answer.value("realm", ""), shown[0] == "complete", shown[1].get<std::string>()};
}
}  // namespace

Status BidiTab::navigate(std::string_view url, SettleWait wait) {
  s_->follow_new_tabs();
  const std::uint64_t generation = page_generation();
  // The load cap is the command's own deadline: a page that never finishes loading is used as it is once it passes.
  const auto started =
      s_->call("browsingContext.navigate", {{"context", s_->current()}, {"url", url}, {"wait", "complete"}},
               s_->options.settle.load_cap);
  if (!started) {
    std::optional<BlockedNavigation> refused;
    {
      std::scoped_lock lock(s_->mutex);
      if (!s_->blocked.empty()) refused = s_->blocked.back();
    }
    if (refused) {
      VIMGPT_TRY_VOID(leave_error_page());
      return fail(ErrorKind::Refused, "navigation to " + refused->url + " was blocked: " + refused->reason);
    }
    if (started.error().kind == ErrorKind::Timeout) return ok();  // loading past the cap: the page is used as it is
    // A dead browser (or an interrupted wait) is not a page that failed to load.
    if (started.error().kind != ErrorKind::Protocol) return started.failure();
    // Firefox 153's navigation tracker also fails a load when an error page shows in one of its frames (a saved
    // page's third-party ad frame, say: "Address rejected"), though the document itself came: it is used as loaded.
    const auto document = page_generation() > generation ? evaluate("document.documentURI") : Result<Json>(Json());
    if (document && document->is_string() && !document->get<std::string>().starts_with("about:")) {
      s_->wait_loaded(s_->options.settle.load_cap, wait);
      return ok();
    }
    return fail(ErrorKind::Navigation,
                "could not load " + std::string(url) + ": " + with_reason(started.error().message));
  }
  s_->wait_network_quiet(s_->options.settle.idle_cap, wait);
  return ok();
}

Status BidiTab::go_back() {
  s_->follow_new_tabs();
  std::uint64_t before = 0;
  std::uint64_t generation = 0;
  {
    std::scoped_lock lock(s_->mutex);
    before = s_->started;
    generation = s_->generation;
  }
  const auto leaving = shown_document(*s_);
  auto moved = s_->call("browsingContext.traverseHistory", {{"context", s_->current()}, {"delta", -1}});
  if (!moved) return fail(ErrorKind::InvalidArgument, "there is no previous page to go back to");
  // traverseHistory answers once the history has moved, before a page to load has loaded. A page the back-forward
  // cache shows again never says it has: no commit, no load event (w3c/webdriver-bidi#1019, open in 2026), and every
  // later wait would run out the load cap. It is told apart by asking: another document (a realm of its own), loaded,
  // with no commit said.
  constexpr milliseconds kAskEvery{50};
  const auto deadline = Clock::now() + s_->options.settle.load_cap;
  while (leaving && Clock::now() < deadline) {
    {
      std::unique_lock lock(s_->mutex);
      const bool said = s_->changed.wait_for(lock, kAskEvery, [&] {
        return s_->generation != generation || (s_->started > before && s_->loaded >= s_->started) ||
               !s_->connection->alive();
      });
      if (said) break;
    }
    const auto shown = shown_document(*s_);
    if (!shown || shown->realm == leaving->realm || !shown->complete) continue;
    std::unique_lock lock(s_->mutex);
    // Its navigationStarted may still be on its way: the navigation it ends must be counted first.
    s_->changed.wait_until(lock, deadline, [&] { return s_->started > before; });
    if (s_->generation == generation && s_->loaded < s_->started) {
      s_->loaded = s_->started;
      s_->load_ended = Clock::now();
      ++s_->generation;  // another document, as a commit would have said
      s_->known_url = shown->url;
    }
    break;
  }
  {
    std::unique_lock lock(s_->mutex);
    s_->changed.wait_until(lock, deadline, [&] { return s_->started > before; });
  }
  s_->wait_loaded(s_->options.settle.load_cap);
  return ok();
}

Status BidiTab::reload() {
  VIMGPT_TRY_VOID(s_->call("browsingContext.reload", {{"context", s_->current()}, {"wait", "complete"}},
                           s_->options.settle.load_cap + kBidiTimeout));
  s_->wait_network_quiet(s_->options.settle.idle_cap);
  return ok();
}

Status BidiTab::settle(milliseconds cap, milliseconds quiet, SettleWait wait) {
  s_->follow_new_tabs();
  {
    std::scoped_lock lock(s_->mutex);
    s_->dom_window.reset();
  }
  if (!s_->navigating()) {
    // No navigation: until the DOM has had no mutation for `quiet` (LeaveOpen: for the page's first reaction, the
    // rest of the window the caller's), at most `cap`, watched from the sandbox. The script fails when a navigation
    // replaces the document: that navigation is waited for below.
    const milliseconds first =
        wait == SettleWait::LeaveOpen ? std::min(quiet, s_->options.settle.first_reaction) : quiet;
    // Its reply is awaited a little past `cap` and no more: a document a navigation put in the back-forward cache
    // (Firefox does so when the next page is its error page) is frozen, timers and all, and never answers.
    auto still = s_->evaluate({{"context", s_->current()}, {"sandbox", kSandbox}}, dom_quiet_script(first, cap),
                              cap + kReplySlack);
    if (!s_->navigating()) {
      // A page still changing when the cap came (an animation) has nothing left to verify.
      if (still && *still == true && first < quiet) {
        std::scoped_lock lock(s_->mutex);
        s_->dom_window = DomWindow{Clock::now() + (quiet - first), quiet, cap};
      }
      return ok();
    }
  }
  s_->wait_loaded(s_->options.settle.load_cap, wait);
  return ok();
}

NetworkState BidiTab::network_state() const {
  std::scoped_lock lock(s_->mutex);
  NetworkState state;
  state.changed = s_->network_changed;
  state.idle = std::none_of(s_->requests_in_flight.begin(), s_->requests_in_flight.end(),
                            [&](const auto& r) { return s_->ours(r.second); });
  state.quiet = state.idle && Clock::now() >= s_->quiet_from();
  return state;
}

void BidiTab::wait_network_quiet() {
  s_->wait_network_quiet(s_->options.settle.idle_cap);
}

// A refused navigation leaves Firefox's network error page (about:neterror) in the tab: step back so the agent stays
// where it was.
Status BidiTab::leave_error_page() {
  const auto document = evaluate("document.documentURI");
  if (!document || !document->is_string() || !bidi::is_error_page(document->get<std::string>())) return ok();
  return go_back();
}

}  // namespace vimgpt::browser
