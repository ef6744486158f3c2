// Navigating, and waiting until the page has settled: the load event, the network quiet, the DOM quiet.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <utility>

#include "browser/cdp/state.h"

namespace vimgpt::browser {
namespace {

using Clock = std::chrono::steady_clock;

milliseconds remaining(Clock::time_point deadline) {
  return std::max(milliseconds{0}, std::chrono::duration_cast<milliseconds>(deadline - Clock::now()));
}

}  // namespace

namespace {

bool is_lifecycle(const wire::Event& event, std::string_view name, std::string_view loader) {
  return event.method == "Page.lifecycleEvent" && event.params.value("name", "") == name &&
         event.params.value("loaderId", "") == loader;
}

}  // namespace

void CdpTab::Impl::wait_for_network_quiet(milliseconds quiet, milliseconds cap) {
  const auto deadline = Clock::now() + cap;
  std::unique_lock lock(mutex);
  while (Clock::now() < deadline && connection->alive()) {
    const auto quiet_at = network_changed + quiet;
    if (requests_in_flight.empty() && Clock::now() >= quiet_at) return;
    network_cv.wait_until(lock, requests_in_flight.empty() ? std::min(quiet_at, deadline) : deadline);
  }
}

// Waits for the load event of a navigation (the given loader, or the next main-frame one), then for the
// network to go quiet (or only idle: LeaveOpen). Both are capped: a page that never finishes loading still
// lets the run go on.
Status CdpTab::Impl::wait_for_navigation(std::string loader_id, milliseconds load_cap, SettleWait wait) {
  const auto deadline = Clock::now() + load_cap;
  {
    std::scoped_lock lock(mutex);
    dom_window.reset();  // the document it watched is going
  }
  if (loader_id.empty()) {
    auto navigated = page_events->wait(
        [&](const wire::Event& e) {
          return e.method == "Page.frameNavigated" && !member(e.params, "frame").contains("parentId");
        },
        load_cap);
    if (!navigated) return navigated.error().kind == ErrorKind::Timeout ? ok() : navigated.failure();
    loader_id = member(navigated->params, "frame").value("loaderId", "");
  }
  auto loaded =
      page_events->wait([&](const wire::Event& e) { return is_lifecycle(e, "load", loader_id); }, remaining(deadline));
  if (!loaded && loaded.error().kind != ErrorKind::Timeout) return loaded.failure();
  wait_for_network_quiet(wait == SettleWait::Close ? options.settle.network_quiet : milliseconds{0},
                         options.settle.idle_cap);
  if (!connection->alive()) return fail(ErrorKind::BrowserExited, connection->closed_reason());
  page_events->drain();  // what is left belongs to this navigation: the next wait starts clean
  return ok();
}

Status CdpTab::navigate(std::string_view url, SettleWait wait) {
  VIMGPT_TRY_VOID(impl_->follow_new_tabs());
  impl_->page_events->drain();
  VIMGPT_TRY(Json result,
             impl_->call("Page.navigate", {{"url", url}}, impl_->options.settle.load_cap + kCommandTimeout));
  if (const auto error = result.value("errorText", ""); !error.empty()) {
    std::optional<BlockedNavigation> refused;
    {
      std::scoped_lock lock(impl_->mutex);
      if (error == "net::ERR_BLOCKED_BY_CLIENT" && !impl_->blocked.empty()) refused = impl_->blocked.back();
    }
    if (refused) {
      VIMGPT_TRY_VOID(leave_error_page());
      return fail(ErrorKind::Refused, "navigation to " + refused->url + " was blocked: " + refused->reason);
    }
    return fail(ErrorKind::Navigation, "could not load " + std::string(url) + ": " + with_reason(error));
  }
  const std::string loader = result.value("loaderId", "");
  if (loader.empty()) return ok();  // same-document navigation (a #fragment): nothing loads
  return impl_->wait_for_navigation(loader, impl_->options.settle.load_cap, wait);
}

Status CdpTab::Impl::navigate_history(int offset) {
  VIMGPT_TRY(Json history, call("Page.getNavigationHistory"));
  const int target = history.value("currentIndex", 0) + offset;
  const auto& entries = history["entries"];
  if (target < 0 || target >= static_cast<int>(entries.size())) {
    return fail(ErrorKind::InvalidArgument,
                offset < 0 ? "there is no previous page to go back to" : "there is no next page to go forward to");
  }
  page_events->drain();
  VIMGPT_TRY_VOID(call("Page.navigateToHistoryEntry", {{"entryId", entries[target].value("id", 0)}}));
  return wait_for_navigation("", options.settle.load_cap);
}

// A refused navigation commits Chromium's error page; step back so the agent stays where it was.
Status CdpTab::leave_error_page() {
  VIMGPT_TRY(Json tree, impl_->call("Page.getFrameTree"));
  if (!tree["frameTree"]["frame"].contains("unreachableUrl")) return ok();  // not an error page
  VIMGPT_TRY(Json history, impl_->call("Page.getNavigationHistory"));
  if (history.value("currentIndex", 0) < 1) return ok();
  return impl_->navigate_history(-1);
}

Status CdpTab::go_back() {
  VIMGPT_TRY_VOID(impl_->follow_new_tabs());
  return impl_->navigate_history(-1);
}

Status CdpTab::reload() {
  impl_->page_events->drain();
  VIMGPT_TRY_VOID(impl_->call("Page.reload"));
  return impl_->wait_for_navigation("", impl_->options.settle.load_cap);
}

NetworkState CdpTab::network_state() const {
  std::scoped_lock lock(impl_->mutex);
  const bool idle = impl_->requests_in_flight.empty();
  return {impl_->network_changed, idle,
          idle && Clock::now() >= impl_->network_changed + impl_->options.settle.network_quiet};
}

void CdpTab::wait_network_quiet() {
  impl_->wait_for_network_quiet(impl_->options.settle.network_quiet, impl_->options.settle.idle_cap);
}

Status CdpTab::settle(milliseconds cap, milliseconds quiet, SettleWait wait) {
  {
    std::scoped_lock lock(impl_->mutex);
    impl_->dom_window.reset();
  }
  if (impl_->has_crashed()) return ok();  // nothing will change until a page loads again
  const auto deadline = Clock::now() + cap;
  const auto navigation_started = [&] {
    return impl_->page_events->contains([&](const wire::Event& e) {
      return (e.method == "Page.frameStartedLoading" || e.method == "Page.frameRequestedNavigation") &&
             e.params.value("frameId", "") == impl_->main_frame_id;
    });
  };
  bool opened_tab = false;
  {
    std::scoped_lock lock(impl_->mutex);
    opened_tab = !impl_->opened_targets.empty() || impl_->current_target_destroyed;
  }
  if (opened_tab) return impl_->follow_new_tabs();
  if (!navigation_started()) {
    // No navigation yet: wait for the DOM to go quiet (LeaveOpen: only for the page's first reaction). If a
    // navigation starts meanwhile, the world is destroyed under the script and we fall through to waiting for
    // the load instead.
    const milliseconds first =
        wait == SettleWait::LeaveOpen ? std::min(quiet, impl_->options.settle.first_reaction) : quiet;
    const std::string script = dom_quiet_script(first, cap);
    // Not run again when a navigation destroys the world under it: that is the navigation we wait for
    // below, and a second quiet window in the new document would only add to the wait.
    auto quiet_result = impl_->evaluate_isolated(script);
    if (Impl::is_stale_world(quiet_result) && !navigation_started()) {
      quiet_result = impl_->evaluate_isolated(script);  // a world stale from before
    }
    if (quiet_result && !navigation_started()) {
      // A page still changing when the cap came (an animation) has nothing left to verify.
      if (first < quiet && *quiet_result == true) {
        std::scoped_lock lock(impl_->mutex);
        impl_->dom_window = DomWindow{Clock::now() + (quiet - first), quiet, cap};
      }
      return ok();
    }
    if (!quiet_result && quiet_result.error().kind == ErrorKind::BrowserExited) return quiet_result.failure();
  }
  return impl_->wait_for_navigation("", std::max(remaining(deadline), milliseconds{1}), wait);
}

}  // namespace vimgpt::browser
