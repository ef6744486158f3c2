// Firefox over WebDriver BiDi. Message shapes as Firefox ESR 153.8 answers them (read 2026-12-02 against the
// installed browser and https://w3c.github.io/webdriver-bidi/).
#include "browser/bidi_tab.h"

#include <algorithm>
#include <condition_variable>
#include <map>
#include <mutex>
#include <set>

#include "browser/tab_impl.h"
#include "common/base64.h"

namespace vimgpt::browser {
namespace {

using Clock = std::chrono::steady_clock;
constexpr milliseconds kBidiTimeout{15000};
constexpr const char* kSandbox = "vimgpt";  // the isolated world's realm, as CDP's world is named

// A BiDi remote value (https://w3c.github.io/webdriver-bidi/#type-script-RemoteValue) as plain JSON, as CDP's
// returnByValue gives it: objects from their [key, value] pairs, special numbers and what JSON cannot hold as null.
Json plain(const Json& remote) {
  const std::string type = remote.value("type", "");
  const Json& value = remote.contains("value") ? remote["value"] : Json();
  if (type == "string" || type == "boolean") return value;
  if (type == "number") return value.is_number() ? value : Json();
  if (type == "bigint" || type == "date") return value;
  if (type == "array" || type == "set") {
    Json list = Json::array();
    for (const auto& item : value) list.push_back(plain(item));
    return list;
  }
  if (type == "object" || type == "map") {
    Json object = Json::object();
    for (const auto& pair : value) {
      if (!pair.is_array() || pair.size() != 2) continue;
      const std::string key = pair[0].is_string() ? pair[0].get<std::string>() : plain(pair[0]).dump();
      object[key] = plain(pair[1]);
    }
    return object;
  }
  return Json();
}

// WebDriver's key values for the keys that type no character (https://w3c.github.io/webdriver/#keyboard-actions).
std::string key_value(std::string_view key) {
  static const std::map<std::string_view, std::string_view> kNamed = {
      {"Backspace", "\uE003"}, {"Tab", "\uE004"},      {"Enter", "\uE006"},      {"Shift", "\uE008"},
      {"Control", "\uE009"},   {"Alt", "\uE00A"},      {"Escape", "\uE00C"},     {" ", "\uE00D"},
      {"PageUp", "\uE00E"},    {"PageDown", "\uE00F"}, {"End", "\uE010"},        {"Home", "\uE011"},
      {"ArrowLeft", "\uE012"}, {"ArrowUp", "\uE013"},  {"ArrowRight", "\uE014"}, {"ArrowDown", "\uE015"},
      {"Insert", "\uE016"},    {"Delete", "\uE017"},   {"Meta", "\uE03D"},       {"F1", "\uE031"},
      {"F2", "\uE032"},        {"F3", "\uE033"},       {"F4", "\uE034"},         {"F5", "\uE035"},
      {"F6", "\uE036"},        {"F7", "\uE037"},       {"F8", "\uE038"},         {"F9", "\uE039"},
      {"F10", "\uE03A"},       {"F11", "\uE03B"},      {"F12", "\uE03C"}};
  const auto found = kNamed.find(key);
  return found != kNamed.end() ? std::string(found->second) : std::string(key);
}

// One UTF-8 code point at a time, as keys are pressed.
std::vector<std::string> code_points(std::string_view text) {
  std::vector<std::string> points;
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const std::size_t length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    points.emplace_back(text.substr(i, length));
    i += length;
  }
  return points;
}

Json pointer(Json actions) {
  return {{"type", "pointer"}, {"id", "mouse"}, {"parameters", {{"pointerType", "mouse"}}}, {"actions", actions}};
}

Json move_to(Point point) {
  return {{"type", "pointerMove"}, {"x", point.x}, {"y", point.y}, {"origin", "viewport"}};
}

int button_number(MouseButton button) {
  return button == MouseButton::Right ? 2 : button == MouseButton::Middle ? 1 : 0;
}

}  // namespace

struct BidiTab::State {
  std::shared_ptr<cdp::Connection> connection;
  cdp::LaunchOptions launch;
  TabOptions options;
  std::uint64_t subscription = 0;
  std::set<std::string> preloaded;  // names given to preload()

  // Written by the event handler on the connection's reader thread.
  mutable std::mutex mutex;
  std::condition_variable changed;
  std::string context;                                    // the top-level browsing context worked in
  std::vector<std::string> pages;                         // ours, in the order they opened
  std::vector<std::string> previous;                      // to go back to when the current one closes
  std::vector<std::string> opened;                        // opened by ours, not yet followed
  std::map<std::string, std::string> frames;              // child context → its parent
  std::map<std::string, std::string> requests_in_flight;  // request id → context
  Clock::time_point network_changed = Clock::now();
  std::uint64_t generation = 0;  // documents committed in the context worked in
  std::uint64_t started = 0;     // navigations started there
  std::uint64_t loaded = 0;      // and ended (load, failure, a download instead)
  std::string known_url;
  std::vector<Dialog> dialogs;
  std::vector<BlockedNavigation> blocked;
  std::vector<Download> downloads;
  std::optional<Json> file_dialog;  // the element of the last file chooser the page opened

  Result<Json> call(std::string_view method, Json params, milliseconds timeout = kBidiTimeout) {
    return connection->call(method, std::move(params), {}, timeout);
  }
  std::string current() const {
    std::scoped_lock lock(mutex);
    return context;
  }
  // The context worked in, or one of its frames (nested too).
  bool ours(const std::string& id) const {
    for (std::string at = id; !at.empty();) {
      if (at == context) return true;
      const auto parent = frames.find(at);
      at = parent == frames.end() ? std::string() : parent->second;
    }
    return false;
  }

  void on_event(const cdp::Event& event) {
    const Json& p = event.params;
    const std::string at = p.value("context", "");
    std::scoped_lock lock(mutex);
    const std::string& method = event.method;
    if (method == "browsingContext.contextCreated") {
      const std::string created = p.value("context", "");
      if (!p.value("parent", Json()).is_null()) {
        frames[created] = p["parent"].get<std::string>();
      } else if (std::find(pages.begin(), pages.end(),
                           p.value("originalOpener", Json()).is_string() ? p["originalOpener"].get<std::string>()
                                                                         : std::string()) != pages.end()) {
        opened.push_back(created);
      }
    } else if (method == "browsingContext.contextDestroyed") {
      frames.erase(at);
      std::erase(pages, at);
    } else if (method == "browsingContext.navigationStarted" && at == context) {
      ++started;
    } else if ((method == "browsingContext.load" || method == "browsingContext.navigationFailed" ||
                method == "browsingContext.downloadWillBegin" || method == "browsingContext.navigationAborted") &&
               at == context) {
      loaded = started;
    } else if (method == "browsingContext.navigationCommitted" && at == context) {
      ++generation;
      known_url = p.value("url", known_url);
    } else if ((method == "browsingContext.fragmentNavigated" || method == "browsingContext.historyUpdated") &&
               at == context) {
      known_url = p.value("url", known_url);
    } else if (method == "browsingContext.userPromptOpened" && ours(at)) {
      const std::string type = p.value("type", "alert");
      const DialogType kind = type == "confirm"        ? DialogType::Confirm
                              : type == "prompt"       ? DialogType::Prompt
                              : type == "beforeunload" ? DialogType::BeforeUnload
                                                       : DialogType::Alert;
      dialogs.push_back({kind, p.value("message", ""), known_url});
      // As on Chromium: alerts and leaving the page accepted so the page goes on, questions declined.
      connection->post("browsingContext.handleUserPrompt",
                       {{"context", at}, {"accept", kind == DialogType::Alert || kind == DialogType::BeforeUnload}});
    } else if (method == "browsingContext.downloadEnd" && ours(at)) {
      const std::string status = p.value("status", "");
      downloads.push_back({p.value("url", ""),
                           p.value("filepath", Json()).is_string() ? p["filepath"].get<std::string>() : "", 0,
                           status == "complete" ? DownloadState::Completed : DownloadState::Canceled});
    } else if (method == "network.beforeRequestSent") {
      // Every held request is answered, a tab's the page opened and not yet followed too: one left held would hold
      // up its page's load event for good.
      const std::string id = p["request"].value("request", "");
      if (p.value("isBlocked", false)) decide(p, id);
      if (!ours(at)) return;
      requests_in_flight[id] = at;
      network_changed = Clock::now();
    } else if ((method == "network.responseCompleted" || method == "network.fetchError") &&
               requests_in_flight.erase(p["request"].value("request", "")) > 0) {
      network_changed = Clock::now();
    } else if (method == "input.fileDialogOpened" && ours(at)) {
      file_dialog = p.value("element", Json());
    } else if (method != "Connection.closed") {
      return;
    }
    changed.notify_all();
  }

  // A request held by the document filter (only documents: a frame's or the page's own): let go or failed at once.
  void decide(const Json& p, const std::string& id) {
    const auto& request = p["request"];
    const std::string destination = request.value("destination", "");
    const std::string url = request.value("url", "");
    const bool document = destination == "document" || destination == "iframe";
    const auto refusal = document && options.navigation_filter ? options.navigation_filter(url) : std::nullopt;
    if (refusal) {
      blocked.push_back({url, *refusal});
      connection->post("network.failRequest", {{"request", id}});
    } else {
      connection->post("network.continueRequest", {{"request", id}});
    }
  }

  Status start() {
    VIMGPT_TRY_VOID(call(
        "session.new", {{"capabilities", {{"alwaysMatch", {{"unhandledPromptBehavior", {{"default", "ignore"}}}}}}}}));
    subscription = connection->subscribe([this](const cdp::Event& event) { on_event(event); });
    VIMGPT_TRY_VOID(call("session.subscribe", {{"events", {"browsingContext", "network", "input"}}}));
    VIMGPT_TRY(Json tree, call("browsingContext.getTree", {{"maxDepth", 0}}));
    if (!tree["contexts"].is_array() || tree["contexts"].empty()) {
      return fail(ErrorKind::Protocol, "Firefox has no tab to work in");
    }
    {
      std::scoped_lock lock(mutex);
      context = tree["contexts"][0].value("context", "");
      pages = {context};
    }
    if (options.navigation_filter) {
      VIMGPT_TRY_VOID(call("network.addIntercept", {{"phases", {"beforeRequestSent"}}}));
    }
    Json behaviour = options.download_dir.empty()
                         ? Json{{"type", "denied"}}
                         : Json{{"type", "allowed"}, {"destinationFolder", options.download_dir}};
    VIMGPT_TRY_VOID(call("browser.setDownloadBehavior", {{"downloadBehavior", behaviour}}));
    if (!options.user_agent.empty()) {
      VIMGPT_TRY_VOID(call("emulation.setUserAgentOverride", {{"userAgent", options.user_agent}}));
    }
    return apply_viewport();
  }

  Status apply_viewport() {
    const auto& v = options.viewport;
    return call("browsingContext.setViewport", {{"context", current()},
                                                {"viewport", {{"width", v.width}, {"height", v.height}}},
                                                {"devicePixelRatio", v.device_scale_factor}})
                   .has_value()
               ? ok()
               : fail(ErrorKind::Protocol, "Firefox did not take the viewport");
  }

  // Follows a tab the page opened, as on Chromium.
  void follow_new_tabs() {
    std::scoped_lock lock(mutex);
    if (opened.empty()) return;
    previous.push_back(context);
    context = opened.back();
    pages.insert(pages.end(), opened.begin(), opened.end());
    opened.clear();
    ++generation;
  }

  Result<Json> evaluate(const Json& target, std::string_view expression) {
    VIMGPT_TRY(
        Json result,
        call("script.evaluate",
             {{"expression", expression}, {"target", target}, {"awaitPromise", true}, {"resultOwnership", "none"}}));
    if (result.value("type", "") == "exception") {
      return fail(ErrorKind::Protocol, result["exceptionDetails"].value("text", "the script threw"));
    }
    return plain(result.value("result", Json()));
  }

  Status perform(Json actions) {
    VIMGPT_TRY_VOID(call("input.performActions", {{"context", current()}, {"actions", std::move(actions)}}));
    return ok();
  }

  // Until no request has been in flight for the network-quiet window, at most `cap`.
  void wait_network_quiet(milliseconds cap) {
    std::unique_lock lock(mutex);
    const auto deadline = Clock::now() + cap;
    while (Clock::now() < deadline && connection->alive()) {
      const bool idle = std::none_of(requests_in_flight.begin(), requests_in_flight.end(),
                                     [&](const auto& r) { return ours(r.second); });
      const auto quiet_at = network_changed + options.settle.network_quiet;
      if (idle && Clock::now() >= quiet_at) return;
      changed.wait_until(lock, idle ? std::min(quiet_at, deadline) : deadline);
    }
  }

  // Until the navigations started so far have ended, at most `cap`, then network-quiet.
  void wait_loaded(milliseconds cap) {
    {
      std::unique_lock lock(mutex);
      changed.wait_for(lock, cap, [&] { return loaded >= started || !connection->alive(); });
    }
    wait_network_quiet(options.settle.idle_cap);
  }
};

Result<std::unique_ptr<Tab>> BidiTab::launch_local(const cdp::LaunchOptions& launch, const TabOptions& options) {
  auto state = std::make_unique<State>();
  state->launch = launch;
  state->options = options;
  VIMGPT_TRY(auto transport, cdp::launch_firefox(launch));
  state->connection = std::make_shared<cdp::Connection>(std::move(transport));
  auto tab = std::make_unique<BidiTab>(std::move(state));
  VIMGPT_TRY_VOID(tab->s_->start());
  return std::unique_ptr<Tab>(std::move(tab));
}

BidiTab::BidiTab(std::unique_ptr<State> state) : s_(std::move(state)) {}

BidiTab::~BidiTab() {
  close();
}

Status BidiTab::navigate(std::string_view url) {
  s_->follow_new_tabs();
  const auto started =
      s_->call("browsingContext.navigate", {{"context", s_->current()}, {"url", url}, {"wait", "complete"}},
               s_->options.settle.load_cap + kBidiTimeout);
  if (!started) {
    std::optional<BlockedNavigation> refused;
    {
      std::scoped_lock lock(s_->mutex);
      if (!s_->blocked.empty()) refused = s_->blocked.back();
    }
    if (refused) return fail(ErrorKind::Refused, "navigation to " + refused->url + " was blocked: " + refused->reason);
    if (started.error().kind == ErrorKind::Timeout) return ok();  // loading past the cap: the page is used as it is
    return fail(ErrorKind::Navigation, "could not load " + std::string(url) + ": " + started.error().message);
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

Status BidiTab::settle(milliseconds cap, milliseconds quiet, SettleWait) {
  s_->follow_new_tabs();
  bool navigating = false;
  {
    std::scoped_lock lock(s_->mutex);
    navigating = s_->loaded < s_->started;
  }
  if (navigating) {
    s_->wait_loaded(s_->options.settle.load_cap);
    return ok();
  }
  // No navigation: until the DOM has had no mutation for `quiet`, at most `cap`, watched from the sandbox.
  const std::string script =
      "new Promise((done) => { let timer; const end = (still) => { observer.disconnect();"
      " clearTimeout(timer); clearTimeout(cap); done(still); };"
      " const observer = new MutationObserver(() => { clearTimeout(timer); timer = setTimeout("
      "() => end(true), " +
      std::to_string(quiet.count()) +
      "); }); observer.observe(document, {subtree: true, childList: true, attributes: true,"
      " characterData: true}); timer = setTimeout(() => end(true), " +
      std::to_string(quiet.count()) + "); const cap = setTimeout(() => end(false), " + std::to_string(cap.count()) +
      "); })";
  [[maybe_unused]] auto settled = evaluate(script);  // a document replaced meanwhile has settled enough
  return ok();
}

std::optional<DomWindow> BidiTab::take_dom_window() {
  return std::nullopt;  // settle() always closes its window on Firefox
}

NetworkState BidiTab::network_state() const {
  std::scoped_lock lock(s_->mutex);
  NetworkState state;
  state.changed = s_->network_changed;
  state.idle = std::none_of(s_->requests_in_flight.begin(), s_->requests_in_flight.end(),
                            [&](const auto& r) { return s_->ours(r.second); });
  state.quiet = state.idle && Clock::now() >= s_->network_changed + s_->options.settle.network_quiet;
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

// BiDi captures at the viewport's size: a smaller frame is scaled by whoever sends it on (the vision module does).
Result<Screenshot> BidiTab::screenshot(const ScreenshotOptions& options) {
  Json format = {{"type", options.format == ImageFormat::Jpeg ? "image/jpeg" : "image/png"}};
  if (options.format == ImageFormat::Jpeg) format["quality"] = options.quality / 100.0;
  if (options.format != ImageFormat::Jpeg && options.format != ImageFormat::Png) {
    return fail(ErrorKind::Unsupported, "Firefox captures PNG or JPEG only");
  }
  VIMGPT_TRY(Json shot, s_->call("browsingContext.captureScreenshot",
                                 {{"context", s_->current()}, {"origin", "viewport"}, {"format", format}}));
  VIMGPT_TRY(std::string bytes, base64_decode(shot.value("data", "")));
  auto image = inspect_image(std::move(bytes));
  if (!image) return fail(ErrorKind::Protocol, "Firefox returned a screenshot that is not a readable image");
  return image;
}

void BidiTab::start_screencast(FrameSink, const ScreencastOptions&) {
  // Firefox 153 has no screencast (browsingContext.startScreencast is an unknown command there): the live view
  // shows the model's frames only.
}

void BidiTab::stop_screencast() {}

Status BidiTab::click(Point point, MouseButton button, int clicks) {
  s_->follow_new_tabs();
  VIMGPT_TRY_VOID(inside(point, s_->options.viewport));
  Json steps = Json::array({move_to(point)});
  for (int i = 0; i < std::max(clicks, 1); ++i) {
    steps.push_back({{"type", "pointerDown"}, {"button", button_number(button)}});
    steps.push_back({{"type", "pointerUp"}, {"button", button_number(button)}});
  }
  return s_->perform(Json::array({pointer(steps)}));
}

Status BidiTab::move_mouse(Point point) {
  VIMGPT_TRY_VOID(inside(point, s_->options.viewport));
  return s_->perform(Json::array({pointer(Json::array({move_to(point)}))}));
}

Status BidiTab::wheel(Point point, double dx, double dy) {
  VIMGPT_TRY_VOID(inside(point, s_->options.viewport));
  const auto whole = [](double value) { return static_cast<int>(value); };
  return s_->perform(Json::array({{{"type", "wheel"},
                                   {"id", "wheel"},
                                   {"actions", Json::array({{{"type", "scroll"},
                                                             {"x", whole(point.x)},
                                                             {"y", whole(point.y)},
                                                             {"deltaX", whole(dx)},
                                                             {"deltaY", whole(dy)},
                                                             {"origin", "viewport"}}})}}}));
}

Result<bool> BidiTab::drag(Point from, Point to, int steps) {
  VIMGPT_TRY_VOID(inside(from, s_->options.viewport));
  VIMGPT_TRY_VOID(inside(to, s_->options.viewport));
  Json moves = Json::array({move_to(from), {{"type", "pointerDown"}, {"button", 0}}});
  const int count = std::max(steps, 1);
  for (int i = 1; i <= count; ++i) {
    const double t = static_cast<double>(i) / count;
    moves.push_back(move_to({from.x + (to.x - from.x) * t, from.y + (to.y - from.y) * t}));
  }
  moves.push_back({{"type", "pointerUp"}, {"button", 0}});
  VIMGPT_TRY_VOID(s_->perform(Json::array({pointer(moves)})));
  return false;  // Firefox runs an HTML5 drag itself when the page starts one; nothing tells it apart here
}

Status BidiTab::type_text(std::string_view text) {
  Json keys = Json::array();
  for (const auto& point : code_points(text)) {
    keys.push_back({{"type", "keyDown"}, {"value", point}});
    keys.push_back({{"type", "keyUp"}, {"value", point}});
  }
  return s_->perform(Json::array({{{"type", "key"}, {"id", "keyboard"}, {"actions", keys}}}));
}

Status BidiTab::press_key(Key key) {
  VIMGPT_TRY(const KeyPress keys, parse_keys(to_string(key)));
  return press(keys);
}

Status BidiTab::press(const KeyPress& keys) {
  Json down = Json::array();
  Json up = Json::array();
  for (const auto& [bit, name] :
       {std::pair{kControl, "Control"}, std::pair{kShift, "Shift"}, std::pair{kAlt, "Alt"}, std::pair{kMeta, "Meta"}}) {
    if ((keys.modifiers & bit) == 0) continue;
    down.push_back({{"type", "keyDown"}, {"value", key_value(name)}});
    up.insert(up.begin(), {{"type", "keyUp"}, {"value", key_value(name)}});
  }
  Json actions = down;
  actions.push_back({{"type", "keyDown"}, {"value", key_value(keys.key)}});
  actions.push_back({{"type", "keyUp"}, {"value", key_value(keys.key)}});
  for (auto& one : up) actions.push_back(std::move(one));
  return s_->perform(Json::array({{{"type", "key"}, {"id", "keyboard"}, {"actions", actions}}}));
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
    return fail(ErrorKind::InvalidArgument,
                "there is no tab " + std::to_string(number) + " (" + std::to_string(s_->pages.size()) + " open)");
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
    if (s_->pages.size() < 2) return fail(ErrorKind::InvalidArgument, "the last tab cannot be closed");
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
               {{"functionDeclaration", "() => { (0, eval)(" + Json(source).dump() + "); }"}, {"sandbox", kSandbox}}));
  return ok();
}

std::vector<ChildFrame> BidiTab::child_frames() const {
  return {};  // same-origin frames are read from inside the page; cross-origin ones are not yet (docs/engines.md)
}

Result<FrameBox> BidiTab::frame_box(std::string_view) {
  return fail(ErrorKind::Unsupported, "frames in other processes are not yet read on Firefox");
}

Status BidiTab::scroll_frame_into_view(std::string_view) {
  return fail(ErrorKind::Unsupported, "frames in other processes are not yet read on Firefox");
}

Result<Json> BidiTab::evaluate_with_command_line_api(std::string_view, const ChildFrame*) {
  return fail(ErrorKind::Unsupported, "Firefox has no getEventListeners over WebDriver BiDi");
}

Result<std::vector<std::vector<std::string>>> BidiTab::listener_types(std::string_view, const ChildFrame*) {
  return fail(ErrorKind::Unsupported, "Firefox has no getEventListeners over WebDriver BiDi");
}

std::vector<BlockedNavigation> BidiTab::take_blocked() {
  std::scoped_lock lock(s_->mutex);
  return std::exchange(s_->blocked, {});
}

Status BidiTab::leave_error_page() {
  return go_back();
}

std::vector<Dialog> BidiTab::take_dialogs() {
  std::scoped_lock lock(s_->mutex);
  return std::exchange(s_->dialogs, {});
}

std::vector<Download> BidiTab::take_downloads(milliseconds) {
  std::scoped_lock lock(s_->mutex);
  return std::exchange(s_->downloads, {});
}

bool BidiTab::crashed() const {
  return false;  // a content process that dies takes its tab with it: the context is gone, and the browser says so
}

Status BidiTab::relaunch() {
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
  return s_->start();
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
  if (!s_ || !s_->connection) return;
  s_->connection->unsubscribe(s_->subscription);
  s_->connection->close();
  s_->connection.reset();
}

}  // namespace vimgpt::browser
