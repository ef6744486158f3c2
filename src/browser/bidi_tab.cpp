// Firefox over WebDriver BiDi. Message shapes as Firefox ESR 153.8 answers them (read 2026-12-02 against the
// installed browser and https://w3c.github.io/webdriver-bidi/).
#include "browser/bidi_state.h"

#include <cmath>

#include "common/base64.h"
#include "common/pixels.h"

namespace vimgpt::browser {

using bidi::Clock;
using bidi::kBidiTimeout;
using bidi::kSandbox;

Result<std::unique_ptr<Tab>> BidiTab::launch_local(const cdp::LaunchOptions& launch, const TabOptions& options) {
  auto state = std::make_unique<State>();
  state->launch = launch;
  state->options = options;
  VIMGPT_TRY(auto transport, cdp::launch_firefox(launch));
  state->connection = std::make_shared<cdp::Connection>(std::move(transport));
  auto tab = std::make_unique<BidiTab>(std::move(state));
  VIMGPT_TRY_VOID(tab->s_->start(false));
  return std::unique_ptr<Tab>(std::move(tab));
}

Result<std::unique_ptr<Tab>> BidiTab::open_shared(const std::shared_ptr<cdp::Connection>& connection,
                                                  const TabOptions& options) {
  auto state = std::make_unique<State>();
  state->options = options;
  state->connection = connection;
  auto tab = std::make_unique<BidiTab>(std::move(state));
  VIMGPT_TRY_VOID(tab->s_->start(true));
  return std::unique_ptr<Tab>(std::move(tab));
}

BidiTab::BidiTab(std::unique_ptr<State> state) : s_(std::move(state)) {}

BidiTab::~BidiTab() {
  close();
}

Status BidiTab::navigate(std::string_view url) {
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
      s_->wait_loaded(s_->options.settle.load_cap);
      return ok();
    }
    return fail(ErrorKind::Navigation,
                "could not load " + std::string(url) + ": " + with_reason(started.error().message));
  }
  s_->wait_network_quiet(s_->options.settle.idle_cap);
  return ok();
}

Status BidiTab::go_back() {
  s_->follow_new_tabs();
  std::uint64_t before = 0;
  {
    std::scoped_lock lock(s_->mutex);
    before = s_->started;
  }
  auto moved = s_->call("browsingContext.traverseHistory", {{"context", s_->current()}, {"delta", -1}});
  if (!moved) return fail(ErrorKind::InvalidArgument, "there is no previous page to go back to");
  // traverseHistory answers before the page has loaded.
  {
    std::unique_lock lock(s_->mutex);
    s_->changed.wait_for(lock, s_->options.settle.load_cap, [&] { return s_->started > before; });
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
    auto still = evaluate(dom_quiet_script(first, cap));
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

std::optional<DomWindow> BidiTab::take_dom_window() {
  std::scoped_lock lock(s_->mutex);
  return std::exchange(s_->dom_window, std::nullopt);
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

Status BidiTab::set_viewport(const Viewport& viewport) {
  VIMGPT_TRY_VOID(valid_viewport(viewport));
  s_->options.viewport = viewport;
  return s_->apply_viewport();
}

const Viewport& BidiTab::viewport() const {
  return s_->options.viewport;
}

// BiDi captures at the viewport's size only: a scaled frame (the agent's, at the model's width) is scaled here, from a
// capture fine enough (JPEG at 90 or better) that its second encoding loses nothing a model or a person would see.
Result<Screenshot> BidiTab::screenshot(const ScreenshotOptions& options) {
  if (options.format != ImageFormat::Jpeg && options.format != ImageFormat::Png) {
    return fail(ErrorKind::Unsupported, "Firefox captures PNG or JPEG only");
  }
  VIMGPT_TRY_VOID(valid_screenshot_scale(options.scale));
  const bool scaled = options.scale != 1.0;
  const int quality = std::clamp(scaled ? std::max(options.quality, 90) : options.quality, 1, 100);
  Json format = {{"type", options.format == ImageFormat::Jpeg ? "image/jpeg" : "image/png"}};
  if (options.format == ImageFormat::Jpeg) format["quality"] = quality / 100.0;
  VIMGPT_TRY(Json shot, s_->call("browsingContext.captureScreenshot",
                                 {{"context", s_->current()}, {"origin", "viewport"}, {"format", format}}));
  VIMGPT_TRY(std::string bytes, base64_decode(shot.value("data", "")));
  if (scaled) {
    VIMGPT_TRY(Pixels pixels, decode_pixels(bytes));
    const int width = std::max(1, static_cast<int>(std::lround(pixels.width * options.scale)));
    VIMGPT_TRY(pixels, scale_to_width(pixels, width));
    if (options.format == ImageFormat::Jpeg) {
      VIMGPT_TRY(bytes, encode_jpeg(pixels, std::clamp(options.quality, 1, 100)));
    } else {
      VIMGPT_TRY(bytes, encode_png(pixels));
    }
  }
  auto image = inspect_image(std::move(bytes));
  if (!image) return fail(ErrorKind::Protocol, "Firefox returned a screenshot that is not a readable image");
  return image;
}

void BidiTab::State::stream_frames() {
  std::string last;
  std::unique_lock lock(screencast.mutex);
  while (screencast.sink) {
    const Json format = {{"type", "image/jpeg"}, {"quality", screencast.options.quality / 100.0}};
    lock.unlock();
    std::shared_ptr<cdp::Connection> link;  // a relaunch replaces it
    std::string at;                         // and following a new tab changes it
    {
      std::scoped_lock state(mutex);
      link = connection;
      at = context;
    }
    if (link && link->alive()) {
      auto shot = link->call("browsingContext.captureScreenshot",
                             {{"context", at}, {"origin", "viewport"}, {"format", format}}, {}, bidi::kBidiTimeout);
      auto bytes = shot ? base64_decode(shot->value("data", "")) : Result<std::string>(shot.failure());
      if (bytes && *bytes != last) {
        last = *bytes;
        auto frame = inspect_image(std::move(*bytes));
        FrameSink sink;
        {
          std::scoped_lock cast(screencast.mutex);
          sink = screencast.sink;
        }
        if (frame && sink) sink(std::move(*frame));
      }
    }
    lock.lock();
    screencast.wake.wait_for(lock, BidiScreencast::kInterval, [&] { return !screencast.sink; });
  }
}

void BidiTab::start_screencast(FrameSink sink, const ScreencastOptions& options) {
  auto& cast = s_->screencast;
  std::scoped_lock lock(cast.mutex);
  const bool running = static_cast<bool>(cast.sink);
  cast.sink = std::move(sink);
  cast.options = options;
  if (running) return;                             // the loop takes the new sink
  if (cast.thread.joinable()) cast.thread.join();  // a loop that was told to stop has ended, or is about to
  cast.thread = std::thread([s = s_.get()] { s->stream_frames(); });
}

void BidiTab::stop_screencast() {
  auto& cast = s_->screencast;
  std::thread ending;
  {
    std::scoped_lock lock(cast.mutex);
    cast.sink = nullptr;
    cast.wake.notify_all();
    ending = std::move(cast.thread);
  }
  if (ending.joinable()) ending.join();
}

Status BidiTab::scroll(ScrollDirection direction) {
  return scroll_by_script(*this, direction);
}

std::uint64_t BidiTab::page_generation() const {
  std::scoped_lock lock(s_->mutex);
  return s_->generation;
}

Status BidiTab::click_to_choose_files(Point point, const std::vector<std::string>& files, milliseconds cap) {
  {
    std::scoped_lock lock(s_->mutex);
    s_->file_dialog.reset();
  }
  VIMGPT_TRY_VOID(click(point));
  Json element;
  {
    std::unique_lock lock(s_->mutex);
    if (!s_->changed.wait_for(lock, cap, [&] { return s_->file_dialog.has_value(); })) {
      return fail(ErrorKind::NotFound, "no file chooser opened");
    }
    element = *s_->file_dialog;
  }
  VIMGPT_TRY_VOID(s_->call(
      "input.setFiles",
      {{"context", s_->current()}, {"element", {{"sharedId", element.value("sharedId", "")}}}, {"files", files}}));
  return ok();
}

Result<std::vector<PageSummary>> BidiTab::pages() {
  s_->follow_new_tabs();
  std::vector<std::string> ids;
  std::string current;
  {
    std::scoped_lock lock(s_->mutex);
    ids = s_->pages;
    current = s_->context;
  }
  std::vector<PageSummary> listed;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    auto info =
        s_->evaluate({{"context", ids[i]}, {"sandbox", kSandbox}}, "({url: location.href, title: document.title})");
    const Json page = info.value_or(Json::object());
    listed.push_back({static_cast<int>(i) + 1, page.value("url", ""), page.value("title", ""), ids[i] == current});
  }
  return listed;
}

Status BidiTab::switch_page(int number) {
  std::scoped_lock lock(s_->mutex);
  if (number < 1 || number > static_cast<int>(s_->pages.size())) {
    return no_such_tab(number, s_->pages.size());
  }
  s_->previous.push_back(s_->context);
  s_->context = s_->pages[static_cast<std::size_t>(number) - 1];
  ++s_->generation;
  return ok();
}

Status BidiTab::close_page() {
  std::string closing;
  {
    std::scoped_lock lock(s_->mutex);
    if (s_->pages.size() < 2) return only_tab_open();
    closing = s_->context;
  }
  VIMGPT_TRY_VOID(s_->call("browsingContext.close", {{"context", closing}}));
  std::scoped_lock lock(s_->mutex);
  std::erase(s_->pages, closing);
  std::erase(s_->previous, closing);
  s_->context = s_->previous.empty() ? s_->pages.back() : s_->previous.back();
  if (!s_->previous.empty()) s_->previous.pop_back();
  ++s_->generation;
  return ok();
}

Result<PageInfo> BidiTab::page_info() {
  s_->follow_new_tabs();
  VIMGPT_TRY(Json info, evaluate("({url: location.href, title: document.title})"));
  return PageInfo{info.value("url", ""), info.value("title", "")};
}

std::string BidiTab::last_url() const {
  std::scoped_lock lock(s_->mutex);
  return s_->known_url;
}

Result<Json> BidiTab::evaluate(std::string_view expression) {
  return s_->evaluate({{"context", s_->current()}, {"sandbox", kSandbox}}, expression);
}

Result<Json> BidiTab::evaluate_in_page(std::string_view expression) {
  return s_->evaluate({{"context", s_->current()}}, expression);
}

Result<Json> BidiTab::evaluate_in_frame(const ChildFrame& frame, std::string_view expression) {
  return s_->evaluate({{"context", frame.frame_id}, {"sandbox", kSandbox}}, expression);
}

Status BidiTab::preload(std::string_view name, const std::string& source) {
  if (!s_->preloaded.insert(std::string(name)).second) return ok();
  // Run by an indirect eval, so the library's top-level declarations are the realm's globals, as on Chromium.
  VIMGPT_TRY_VOID(
      s_->call("script.addPreloadScript",
               s_->in_user_context({{"functionDeclaration", "() => { (0, eval)(" + Json(source).dump() + "); }"},
                                    {"sandbox", kSandbox}})));
  return ok();
}

std::vector<BlockedNavigation> BidiTab::take_blocked() {
  std::scoped_lock lock(s_->mutex);
  return std::exchange(s_->blocked, {});
}

// A refused navigation leaves Firefox's network error page (about:neterror) in the tab: step back so the agent stays
// where it was.
Status BidiTab::leave_error_page() {
  const auto document = evaluate("document.documentURI");
  if (!document || !document->is_string() || !bidi::is_error_page(document->get<std::string>())) return ok();
  return go_back();
}

std::vector<Dialog> BidiTab::take_dialogs() {
  std::scoped_lock lock(s_->mutex);
  return std::exchange(s_->dialogs, {});
}

std::vector<Download> BidiTab::take_downloads(milliseconds cap) {
  std::unique_lock lock(s_->mutex);
  s_->changed.wait_for(lock, cap, [&] { return s_->downloads_going == 0 || !s_->connection->alive(); });
  return std::exchange(s_->downloads, {});
}

bool BidiTab::crashed() const {
  std::scoped_lock lock(s_->mutex);
  return s_->crashed;
}

Status BidiTab::relaunch() {
  if (!s_->user_context.empty()) {
    return fail(ErrorKind::Unsupported, "this Firefox was not launched by vimgpt (a WebDriver session's, a batch's)");
  }
  if (s_->connection) {
    s_->connection->unsubscribe(s_->subscription);
    s_->connection->close();
  }
  VIMGPT_TRY(auto transport, cdp::launch_firefox(s_->launch));
  {
    std::scoped_lock lock(s_->mutex);
    s_->connection = std::make_shared<cdp::Connection>(std::move(transport));
    s_->pages.clear();
    s_->previous.clear();
    s_->opened.clear();
    s_->frames.clear();
    s_->requests_in_flight.clear();
    s_->started = s_->loaded = 0;
  }
  return s_->start(false);
}

cdp::Connection& BidiTab::connection() {
  return *s_->connection;
}

std::string BidiTab::session_id() const {
  return s_->current();
}

bool BidiTab::alive() const {
  return s_->connection && s_->connection->alive();
}

std::string BidiTab::closed_reason() const {
  return s_->connection ? s_->connection->closed_reason() : "the browser was closed";
}

int BidiTab::browser_pid() const {
  return s_->connection ? s_->connection->process_id() : 0;
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
    // to decide it) and its user context with every tab in it.
    if (s_->connection->alive()) {
      if (!s_->intercept.empty()) (void)s_->call("network.removeIntercept", {{"intercept", s_->intercept}});
      (void)s_->call("browser.removeUserContext", {{"userContext", s_->user_context}});
    }
    s_->connection->unsubscribe(s_->subscription);
  }
  s_->connection.reset();
}

}  // namespace vimgpt::browser
