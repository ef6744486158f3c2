// Navigating, and waiting until the page has settled: the load event, the network quiet, the DOM quiet.
#include <algorithm>
#include <cctype>
#include <chrono>
#include <utility>

#include "browser/tab_impl.h"

namespace vimgpt::browser {
namespace {

using Clock = std::chrono::steady_clock;

milliseconds remaining(Clock::time_point deadline) {
  return std::max(milliseconds{0}, std::chrono::duration_cast<milliseconds>(deadline - Clock::now()));
}

}  // namespace

std::string with_reason(const std::string& error) {
  static constexpr std::pair<std::string_view, std::string_view> kReasons[] = {
      {"net::ERR_CONNECTION_REFUSED", "nothing is listening at that address"},
      {"net::ERR_NAME_NOT_RESOLVED", "that host name does not resolve"},
      {"net::ERR_ADDRESS_UNREACHABLE", "that address cannot be reached from here"},
      {"net::ERR_INTERNET_DISCONNECTED", "this machine is offline"},
      {"net::ERR_CONNECTION_TIMED_OUT", "the server did not answer in time"},
      {"net::ERR_TIMED_OUT", "the server did not answer in time"},
      {"net::ERR_CONNECTION_RESET", "the server closed the connection"},
      {"net::ERR_EMPTY_RESPONSE", "the server closed the connection without an answer"},
      {"net::ERR_UNSAFE_PORT", "Chromium never connects to that port: it is on its list of unsafe ports"},
      {"net::ERR_SSL_PROTOCOL_ERROR", "the TLS handshake failed (an https URL for a plain http server?)"},
      {"net::ERR_CERT_AUTHORITY_INVALID", "the site's certificate is not signed by a trusted authority"},
      {"net::ERR_CERT_COMMON_NAME_INVALID", "the site's certificate is for another host name"},
      {"net::ERR_CERT_DATE_INVALID", "the site's certificate has expired or is not valid yet"},
      {"net::ERR_TOO_MANY_REDIRECTS", "the site redirects in a loop"},
      // Firefox's (Gecko's nsresult names, which its BiDi navigation errors carry inside a longer message).
      {"NS_ERROR_CONNECTION_REFUSED", "nothing is listening at that address"},
      {"NS_ERROR_UNKNOWN_HOST", "that host name does not resolve"},
      {"NS_ERROR_OFFLINE", "this machine is offline"},
      {"NS_ERROR_NET_TIMEOUT", "the server did not answer in time"},
      {"NS_ERROR_NET_RESET", "the server closed the connection"},
      {"NS_ERROR_NET_INTERRUPT", "the server closed the connection"},
      {"NS_ERROR_NET_EMPTY_RESPONSE", "the server closed the connection without an answer"},
      {"NS_ERROR_PORT_ACCESS_NOT_ALLOWED", "Firefox never connects to that port: it is on its list of unsafe ports"},
      {"NS_ERROR_PROXY_CONNECTION_REFUSED", "the proxy Firefox is set to use refused the connection"},
      {"NS_ERROR_REDIRECT_LOOP", "the site redirects in a loop"},
  };
  for (const auto& [name, reason] : kReasons) {
    const auto at = error.find(name);
    // The whole name: NS_ERROR_NET_RESET is not NS_ERROR_NET_RESET_SOMETHING.
    const auto after = at + name.size();
    if (at == std::string::npos ||
        (after < error.size() && (std::isalnum(static_cast<unsigned char>(error[after])) || error[after] == '_'))) {
      continue;
    }
    return error.substr(0, after) + " (" + std::string(reason) + ")" + error.substr(after);
  }
  return error;
}

namespace {

bool is_lifecycle(const cdp::Event& event, std::string_view name, std::string_view loader) {
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
        [&](const cdp::Event& e) {
          return e.method == "Page.frameNavigated" && !e.params["frame"].contains("parentId");
        },
        load_cap);
    if (!navigated) return navigated.error().kind == ErrorKind::Timeout ? ok() : navigated.failure();
    loader_id = navigated->params["frame"].value("loaderId", "");
  }
  auto loaded =
      page_events->wait([&](const cdp::Event& e) { return is_lifecycle(e, "load", loader_id); }, remaining(deadline));
  if (!loaded && loaded.error().kind != ErrorKind::Timeout) return loaded.failure();
  wait_for_network_quiet(wait == SettleWait::Close ? options.settle.network_quiet : milliseconds{0},
                         options.settle.idle_cap);
  if (!connection->alive()) return fail(ErrorKind::BrowserExited, connection->closed_reason());
  page_events->drain();  // what is left belongs to this navigation: the next wait starts clean
  return ok();
}

Status CdpTab::navigate(std::string_view url) {
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
  return impl_->wait_for_navigation(loader, impl_->options.settle.load_cap);
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

std::optional<DomWindow> CdpTab::take_dom_window() {
  std::scoped_lock lock(impl_->mutex);
  return std::exchange(impl_->dom_window, std::nullopt);
}

std::string dom_quiet_script(milliseconds quiet, milliseconds cap) {
  return "new Promise(resolve => {"
         "  const quietMs = " +
         std::to_string(quiet.count()) + ", capMs = " + std::to_string(cap.count()) +
         ";"
         "  let timer = setTimeout(() => done(true), quietMs);"
         "  const cap = setTimeout(() => done(false), capMs);"
         "  const observer = new MutationObserver(() => {"
         "    clearTimeout(timer); timer = setTimeout(() => done(true), quietMs); });"
         "  observer.observe(document, {subtree: true, childList: true, attributes: true, characterData: true});"
         "  function done(quiet) { observer.disconnect(); clearTimeout(timer); clearTimeout(cap); resolve(quiet); }"
         "})";
}

Status CdpTab::settle(milliseconds cap, milliseconds quiet, SettleWait wait) {
  {
    std::scoped_lock lock(impl_->mutex);
    impl_->dom_window.reset();
  }
  if (impl_->has_crashed()) return ok();  // nothing will change until a page loads again
  const auto deadline = Clock::now() + cap;
  const auto navigation_started = [&] {
    return impl_->page_events->contains([&](const cdp::Event& e) {
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
