// Firefox over WebDriver BiDi. Message shapes as Firefox ESR 153.8 answers them (read 2026-12-02 against the
// installed browser and https://w3c.github.io/webdriver-bidi/).
#include "browser/bidi/state.h"

#include <cmath>

#include "common/base64.h"
#include "common/pixels.h"

namespace vimgpt::browser {

using bidi::Clock;
using bidi::kBidiTimeout;
using bidi::kSandbox;

Result<std::unique_ptr<Tab>> BidiTab::launch_local(const launch::LaunchOptions& launch, const TabOptions& options) {
  auto state = std::make_unique<State>();
  state->launch = launch;
  state->options = options;
  VIMGPT_TRY(auto transport, launch::launch_firefox(launch));
  state->connection = std::make_shared<wire::Connection>(std::move(transport));
  auto tab = std::make_unique<BidiTab>(std::move(state));
  VIMGPT_TRY_VOID(tab->s_->start(false));
  return std::unique_ptr<Tab>(std::move(tab));
}

Result<std::unique_ptr<Tab>> BidiTab::open_shared(const std::shared_ptr<wire::Connection>& connection,
                                                  const TabOptions& options) {
  auto state = std::make_unique<State>();
  state->options = options;
  state->connection = connection;
  auto tab = std::make_unique<BidiTab>(std::move(state));
  VIMGPT_TRY_VOID(tab->s_->start(true));
  return std::unique_ptr<Tab>(std::move(tab));
}

BidiTab::BidiTab(std::unique_ptr<State> state) : EngineTab(*state), s_(std::move(state)) {}

BidiTab::~BidiTab() {
  close();
}

std::vector<Download> BidiTab::take_downloads(milliseconds cap) {
  std::unique_lock lock(s_->mutex);
  s_->changed.wait_for(lock, cap, [&] { return s_->downloads_going == 0 || !s_->connection->alive(); });
  return std::exchange(s_->downloads, {});
}

Status BidiTab::relaunch() {
  if (!s_->user_context.empty()) {
    return fail(ErrorKind::Unsupported, "this Firefox was not launched by vimgpt (a WebDriver session's, a batch's)");
  }
  if (s_->connection) {
    s_->connection->unsubscribe(s_->subscription);
    s_->connection->close();
  }
  VIMGPT_TRY(auto transport, launch::launch_firefox(s_->launch));
  {
    std::scoped_lock lock(s_->mutex);
    s_->connection = std::make_shared<wire::Connection>(std::move(transport));
    s_->pages.clear();
    s_->previous.clear();
    s_->opened.clear();
    s_->frames.clear();
    s_->requests_in_flight.clear();
    s_->refused_documents.clear();
    s_->started = s_->loaded = 0;
  }
  return s_->start(false);
}

std::string BidiTab::session_id() const {
  return s_->current();
}

void BidiTab::close() {
  if (!s_) return;
  stop_screencast();
  if (!s_->connection) return;
  if (s_->user_context.empty()) {
    s_->connection->unsubscribe(s_->subscription);
    s_->connection->close();
  } else {
    // A shared connection stays open for the next tab: this one's intercept goes (a request it would hold has no one
    // to decide it), its event subscription (the session would keep it to its end: a batch worker's session outlives
    // hundreds of tabs) and its user context with every tab in it.
    if (s_->connection->alive()) {
      if (!s_->intercept.empty()) (void)s_->call("network.removeIntercept", {{"intercept", s_->intercept}});
      if (!s_->events.empty()) (void)s_->call("session.unsubscribe", {{"subscriptions", {s_->events}}});
      (void)s_->call("browser.removeUserContext", {{"userContext", s_->user_context}});
    }
    s_->connection->unsubscribe(s_->subscription);
  }
  s_->connection.reset();
}

}  // namespace vimgpt::browser
