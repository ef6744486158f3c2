// Opening, attaching to and following tabs: the page's events, frames, requests and downloads.
#include <algorithm>
#include <array>
#include <chrono>
#include <filesystem>

#include "browser/cdp/state.h"
#include "common/text.h"

namespace vimgpt::browser {
namespace {

using Clock = std::chrono::steady_clock;

// Only documents are held, for the navigation filter and the HTTP credentials; everything else loads untouched.
bool holds_documents(const TabOptions& options) {
  return options.navigation_filter || options.http_credentials;
}
Json document_requests(const TabOptions& options) {
  return {{"patterns", Json::array({{{"resourceType", "Document"}}})},
          {"handleAuthRequests", static_cast<bool>(options.http_credentials)}};
}

// The realm a response's WWW-Authenticate header names (Basic realm="Staff"; empty when it names none), or nothing
// when it has no such header: a 401 without one is a site's own sign-in, not HTTP authentication.
std::optional<std::string> realm_of(const Json& headers) {
  if (!headers.is_object()) return std::nullopt;
  for (const auto& [name, value] : headers.items()) {
    if (ascii_lower(name) != "www-authenticate" || !value.is_string()) continue;
    const std::string header = value.get<std::string>();
    const auto start = header.find("realm=\"");
    if (start == std::string::npos) return "";
    const auto end = header.find('"', start + 7);
    return header.substr(start + 7, end == std::string::npos ? std::string::npos : end - start - 7);
  }
  return std::nullopt;
}
// Requests are only counted (network quiet): no bodies kept.
Json network_without_buffers() {
  return {{"maxTotalBufferSize", 0}, {"maxResourceBufferSize", 0}};
}
// New frames and workers wait until their session is set up (see CdpTab::Impl::on_attached).
Json auto_attach() {
  return {{"autoAttach", true}, {"waitForDebuggerOnStart", true}, {"flatten", true}};
}

// Network quiet counts what can change what the page shows. The browser's own fetches after load (favicons,
// "Other"; the web app manifest), beacons, reports, CORS preflights (their request counts) and prefetches
// for later pages cannot.
bool can_change_the_page(std::string_view resource_type) {
  static constexpr std::array<std::string_view, 7> kInert = {"Other",    "Manifest",  "Ping", "CSPViolationReport",
                                                             "Prefetch", "Preflight", "FedCM"};
  return std::find(kInert.begin(), kInert.end(), resource_type) == kInert.end();
}

// Moves <dir>/<guid> to <dir>/<suggested name>, the name stripped of path parts and made unique.
std::string saved_download_path(const std::string& dir, const std::string& guid, const std::string& suggested) {
  namespace fs = std::filesystem;
  std::string name = fs::path(suggested).filename().string();
  if (name.empty() || name == "." || name == ".." || name[0] == '.') name = "download" + name;
  const fs::path base = fs::path(dir) / name;
  fs::path target = base;
  std::error_code error;
  for (int n = 1; fs::exists(target, error); ++n)
    target = base.parent_path() / (base.stem().string() + " (" + std::to_string(n) + ")" + base.extension().string());
  fs::rename(fs::path(dir) / guid, target, error);
  return error ? (fs::path(dir) / guid).string() : target.string();
}

// A Page.Frame's address; for an error page, the one that failed to load.
std::string address_of(const Json& frame) {
  if (auto unreachable = frame.value("unreachableUrl", ""); !unreachable.empty()) return unreachable;
  return frame.value("url", "") + frame.value("urlFragment", "");
}

DialogType dialog_type(std::string_view type) {
  if (type == "confirm") return DialogType::Confirm;
  if (type == "prompt") return DialogType::Prompt;
  if (type == "beforeunload") return DialogType::BeforeUnload;
  return DialogType::Alert;
}

DownloadState download_state(std::string_view state) {
  if (state == "completed") return DownloadState::Completed;
  if (state == "canceled") return DownloadState::Canceled;
  return DownloadState::InProgress;
}

}  // namespace

void CdpTab::Impl::on_event(const wire::Event& event) {
  if (event.method == "Page.screencastFrame") return on_screencast_frame(event);
  std::scoped_lock lock(mutex);
  if (!connection) return;  // a late event of a browser relaunch() has let go of
  const std::string& method = event.method;
  if (method == "Page.javascriptDialogOpening" && event.session_id == session_id) {
    const Dialog& dialog =
        answer_dialog(dialog_type(event.params.value("type", "alert")), event.params.value("message", ""),
                      event.params.value("url", ""), event.params.value("defaultPrompt", ""));
    Json answer = {{"accept", dialog.accepted}};
    if (dialog.type == DialogType::Prompt && dialog.accepted) answer["promptText"] = dialog.text;
    connection->post("Page.handleJavaScriptDialog", std::move(answer), session_id);
  } else if (method == "Fetch.requestPaused" && is_own_session(event.session_id)) {
    // Only document requests are paused (see configure_session); decide and let the browser go on at once.
    const std::string url = member(event.params, "request").value("url", "");
    const std::string request = event.params.value("requestId", "");
    const auto refusal = options.navigation_filter ? options.navigation_filter(url) : std::nullopt;
    if (refusal) {
      blocked.push_back({url, *refusal});
      connection->post("Fetch.failRequest", {{"requestId", request}, {"errorReason", "BlockedByClient"}},
                       event.session_id);
    } else {
      connection->post("Fetch.continueRequest", {{"requestId", request}}, event.session_id);
    }
  } else if (method == "Fetch.authRequired" && is_own_session(event.session_id)) {
    // Only with options.http_credentials (handleAuthRequests). A proxy's challenge is the browser's to answer.
    const Json& challenge = member(event.params, "authChallenge");
    const std::string request = event.params.value("requestId", "");
    std::optional<HttpCredentials> credentials;
    const bool server = challenge.value("source", "Server") == "Server";
    if (server)
      credentials =
          answer_auth(request, member(event.params, "request").value("url", ""), challenge.value("realm", ""));
    const Json response = credentials ? Json{{"response", "ProvideCredentials"},
                                             {"username", credentials->username},
                                             {"password", credentials->password}}
                                      : Json{{"response", server ? "CancelAuth" : "Default"}};
    connection->post("Fetch.continueWithAuth", {{"requestId", request}, {"authChallengeResponse", response}},
                     event.session_id);
  } else if (method == "Network.responseReceived" && !options.http_credentials && is_own_session(event.session_id)) {
    // Without credentials nothing holds the request: a document the site refused for want of them is noted here.
    const Json& response = member(event.params, "response");
    if (event.params.value("type", "") == "Document" && response.value("status", 0) == 401) {
      if (auto realm = realm_of(response.value("headers", Json::object()))) {
        auth_challenges.push_back({response.value("url", ""), std::move(*realm), AuthAnswer::NotGiven});
      }
    }
  } else if (method == "Connection.closed") {
    network_cv.notify_all();  // nobody waits for a quiet network or a download on a dead browser
    download_cv.notify_all();
  } else if (method.rfind("Network.", 0) == 0 && is_own_session(event.session_id)) {
    // An out-of-process frame's document is requested in its parent's session and finishes in its own.
    const std::string request = event.params.value("requestId", "");
    if (method == "Network.requestWillBeSent") {
      if (!can_change_the_page(event.params.value("type", ""))) return;
      requests_in_flight[request] = {event.session_id, event.params.value("frameId", ""),
                                     event.params.value("loaderId", "")};
    } else if (method == "Network.loadingFinished" || method == "Network.loadingFailed") {
      if (requests_in_flight.erase(request) == 0) return;
    } else {
      return;
    }
    network_moved();
  } else if (method == "Page.frameNavigated" && event.session_id == session_id) {
    const auto& frame = member(event.params, "frame");
    if (!frame.contains("parentId")) {
      main_frame_id = frame.value("id", main_frame_id);
      known_url = address_of(frame);
      ++generation;
      // What the old document still had in flight is cancelled with it, reported or not.
      const std::string loader = frame.value("loaderId", "");
      forget_requests([&](const Request& r) { return r.loader != loader; });
      isolated_context = 0;  // the old world went with the old document
      crashed = false;       // a new document: a new renderer if the old one had died
      // Chromium never answers a screenshot of a document that was replaced while it was taken.
      if (screenshot_pending) connection->abandon(session_id, "the page went to another document meanwhile");
    }
  } else if (method == "Page.navigatedWithinDocument" && event.session_id == session_id &&
             event.params.value("frameId", "") == main_frame_id) {
    known_url = event.params.value("url", known_url);
  } else if (method == "Target.targetCreated") {
    const auto& info = member(event.params, "targetInfo");
    // A tab still attaching has no target yet, and pages other tabs create have no opener either: only a
    // page this tab opened, in this tab's context, is followed.
    const bool same_context = browser_context_id.empty() || info.value("browserContextId", "") == browser_context_id;
    if (info.value("type", "") == "page" && !target_id.empty() && info.value("openerId", "") == target_id &&
        same_context) {
      opened_targets.push_back(info.value("targetId", ""));
    }
  } else if (method == "Target.targetDestroyed") {
    const std::string target = event.params.value("targetId", "");
    if (target == target_id) current_target_destroyed = true;
    std::erase(pages, target);
  } else if (method.rfind("Browser.download", 0) == 0) {
    on_download(event);
  } else if (method == "Inspector.targetCrashed" && event.session_id == session_id) {
    crashed = true;
    connection->abandon(session_id, kCrashed);
  } else if (method == "Target.attachedToTarget" && is_own_session(event.session_id)) {
    on_attached(event);
  } else if (method == "Target.detachedFromTarget") {
    const std::string child = event.params.value("sessionId", "");
    std::erase_if(child_frames, [&](const ChildFrame& frame) { return frame.session_id == child; });
    child_contexts.erase(child);
    // A frame that went away mid-load will not report its requests finished.
    forget_requests([&](const Request& r) { return r.session == child; });
  } else if (method == "Target.targetInfoChanged") {
    const auto& info = member(event.params, "targetInfo");
    for (auto& frame : child_frames) {
      if (frame.frame_id == info.value("targetId", "")) frame.url = info.value("url", frame.url);
    }
  }
}

bool CdpTab::Impl::is_own_session(const std::string& session) const {
  return session == session_id || std::any_of(child_frames.begin(), child_frames.end(),
                                              [&](const ChildFrame& frame) { return frame.session_id == session; });
}

// A target auto-attached to the page or to one of its frames. It waits for us (waitForDebuggerOnStart), so
// an out-of-process frame gets the document filter and auto-attach for the frames inside it before its
// first request; then it, and any worker, runs. Called with the mutex held.
void CdpTab::Impl::on_attached(const wire::Event& event) {
  const auto& info = member(event.params, "targetInfo");
  const std::string child = event.params.value("sessionId", "");
  if (info.value("type", "") == "iframe") {
    const std::string frame = info.value("targetId", "");
    child_frames.push_back(ChildFrame{child, frame, info.value("url", "")});
    configure_session(child);
    // The frame's document was requested in its parent's session, but its end is reported in the new
    // session, possibly before that session reports anything: from here on the frame counts for itself.
    forget_requests([&](const Request& r) { return r.frame == frame; });
  }
  if (event.params.value("waitingForDebugger", false)) connection->post("Runtime.runIfWaitingForDebugger", {}, child);
}

void CdpTab::Impl::post_preloads(const std::string& session) {
  // A session runs scripts on new documents only while its Page domain is enabled.
  if (!preloads.empty() && session != session_id) connection->post("Page.enable", Json::object(), session);
  for (const auto& [name, script] : preloads)
    connection->post("Page.addScriptToEvaluateOnNewDocument", script, session);
}

// Posted, not called: this runs on the reader thread, and a session's commands run in order, so all of this
// is in place before Runtime.runIfWaitingForDebugger lets the new frame go on.
void CdpTab::Impl::configure_session(const std::string& session) {
  post_preloads(session);
  if (!user_agent.empty()) connection->post("Emulation.setUserAgentOverride", {{"userAgent", user_agent}}, session);
  if (holds_documents(options)) connection->post("Fetch.enable", document_requests(options), session);
  connection->post("Network.enable", network_without_buffers(), session);
  connection->post("Target.setAutoAttach", auto_attach(), session);
}

// Chromium saves a download under its guid (behavior allowAndName, so we always know the path); once it is
// complete it gets the name the site suggested, made safe and unique. Called with the mutex held.
void CdpTab::Impl::on_download(const wire::Event& event) {
  const std::string guid = event.params.value("guid", "");
  if (event.method == "Browser.downloadWillBegin") {
    // On a browser other tabs share (a remote one, a context each), only what our own tabs' documents download,
    // counting a tab we opened but have not followed yet: a link's new tab may download before we attach to it.
    const std::string frame = event.params.value("frameId", "");
    const auto ours = [&](const std::vector<std::string>& targets) {
      return std::find(targets.begin(), targets.end(), frame) != targets.end();
    };
    if (!browser_context_id.empty() && !ours(pages) && !ours(opened_targets)) return;
    download_order.push_back(guid);
    downloads[guid] = Download{event.params.value("url", ""), event.params.value("suggestedFilename", ""), 0,
                               DownloadState::InProgress};
    return;
  }
  auto it = downloads.find(guid);
  if (event.method != "Browser.downloadProgress" || it == downloads.end()) return;
  Download& download = it->second;
  download.bytes = event.params.value("receivedBytes", std::int64_t{0});
  download.state = download_state(event.params.value("state", "inProgress"));
  if (download.state == DownloadState::Completed) {
    download.file = saved_download_path(options.download_dir.empty() ? scratch_downloads : options.download_dir, guid,
                                        download.file);
    download.kept = !options.download_dir.empty();
  } else if (download.state == DownloadState::Canceled) {
    download.file.clear();
  }
  download_cv.notify_all();
}

Status CdpTab::Impl::attach(const std::string& target) {
  VIMGPT_TRY(Json attached, connection->call("Target.attachToTarget", {{"targetId", target}, {"flatten", true}}));
  const std::string session = attached.value("sessionId", "");
  std::string previous_session;
  {
    std::scoped_lock lock(mutex);
    previous_session = std::exchange(session_id, session);
    target_id = target;
    ++generation;
    isolated_context = 0;
    current_target_destroyed = false;
    crashed = false;
    child_frames.clear();
    child_contexts.clear();
    requests_in_flight.clear();
  }
  page_events = std::make_unique<wire::EventQueue>(*connection, [session](const wire::Event& event) {
    return event.session_id == session &&
           (event.method == "Page.lifecycleEvent" || event.method == "Page.frameNavigated" ||
            event.method == "Page.frameStartedLoading" || event.method == "Page.frameRequestedNavigation" ||
            event.method == "Page.navigatedWithinDocument");
  });
  VIMGPT_TRY_VOID(call("Page.enable"));
  {
    std::scoped_lock lock(mutex);
    post_preloads(session);
    if (screencast_sink) post_start_screencast();
  }
  VIMGPT_TRY_VOID(call("Network.enable", network_without_buffers()));
  VIMGPT_TRY_VOID(call("Page.setLifecycleEventsEnabled", {{"enabled", true}}));
  VIMGPT_TRY_VOID(call("Inspector.enable"));
  if (holds_documents(options)) VIMGPT_TRY_VOID(call("Fetch.enable", document_requests(options)));
  // Cross-origin iframes run in their own processes, each reached through a flattened session of its own
  // (see on_attached).
  VIMGPT_TRY_VOID(call("Target.setAutoAttach", auto_attach()));
  // The tab we worked in before (a popup's opener) is let go: its paused requests and waiting frames would
  // otherwise wait for a session nobody listens to. Coming back attaches it afresh.
  if (!previous_session.empty() && previous_session != session) {
    connection->post("Target.detachFromTarget", {{"sessionId", previous_session}});
  }
  VIMGPT_TRY(Json tree, call("Page.getFrameTree"));
  {
    std::scoped_lock lock(mutex);
    main_frame_id = tree["frameTree"]["frame"].value("id", "");
    known_url = address_of(tree["frameTree"]["frame"]);
  }
  if (!user_agent.empty()) VIMGPT_TRY_VOID(call("Emulation.setUserAgentOverride", {{"userAgent", user_agent}}));
  VIMGPT_TRY_VOID(apply_viewport());
  // Screenshots of a background tab never complete: keep the working tab in front.
  VIMGPT_TRY_VOID(call("Page.bringToFront"));
  return ok();
}

Status CdpTab::Impl::apply_viewport() {
  const auto& v = options.viewport;
  return call("Emulation.setDeviceMetricsOverride", {{"width", v.width},
                                                     {"height", v.height},
                                                     {"deviceScaleFactor", v.device_scale_factor},
                                                     {"mobile", false}})
                 .has_value()
             ? ok()
             : fail(ErrorKind::Protocol,
                    "cannot set the viewport to " + std::to_string(v.width) + "x" + std::to_string(v.height));
}

// The agent works in the newest tab: a link with target=_blank or window.open moves it there, and a popup
// that closes itself hands control back to the tab that opened it.
Status CdpTab::Impl::follow_new_tabs() {
  std::vector<std::string> opened;
  bool destroyed = false;
  {
    std::scoped_lock lock(mutex);
    opened.swap(opened_targets);
    destroyed = current_target_destroyed;
  }
  if (!opened.empty()) {
    {
      std::scoped_lock lock(mutex);
      pages.insert(pages.end(), opened.begin(), opened.end());
    }
    if (!destroyed) previous_targets.push_back(target_id);
    VIMGPT_TRY_VOID(attach(opened.back()));
    return wait_for_new_tab_load();
  }
  if (destroyed && !previous_targets.empty()) {
    const std::string previous = previous_targets.back();
    previous_targets.pop_back();
    return attach(previous);
  }
  return ok();
}

// A tab we attach to late may still show its initial about:blank, be loading, or be done already; its
// earlier lifecycle events went to nobody, so look at where it is now.
Status CdpTab::Impl::wait_for_new_tab_load() {
  VIMGPT_TRY(Json tree, call("Page.getFrameTree"));
  const auto& frame = tree["frameTree"]["frame"];
  if (frame.value("url", "") == "about:blank") return wait_for_navigation("", options.settle.load_cap);
  const std::string loaded =
      "new Promise(resolve => document.readyState === 'complete' ? resolve(true)"
      " : addEventListener('load', () => resolve(true), {once: true}))";
  auto done = evaluate_with(session_id, std::nullopt, loaded);
  if (!done && done.error().kind == ErrorKind::BrowserExited) return done.failure();
  page_events->drain();
  return ok();
}

Status CdpTab::Impl::choose_user_agent() {
  if (!options.user_agent.empty()) {
    user_agent = options.user_agent;
    return ok();
  }
  VIMGPT_TRY(Json version, connection->call("Browser.getVersion"));
  std::string own = version.value("userAgent", "");
  constexpr std::string_view kHeadless = "HeadlessChrome/";
  if (const auto at = own.find(kHeadless); at != std::string::npos) {
    user_agent = own.replace(at, kHeadless.size(), "Chrome/");
  }
  return ok();
}

Status CdpTab::Impl::start_local() {
  VIMGPT_TRY(auto transport, launch::launch_chromium(launch_options));
  {
    std::scoped_lock lock(mutex);
    connection = std::make_shared<wire::Connection>(std::move(transport));
  }
  subscription = connection->subscribe([this](const wire::Event& e) { on_event(e); });
  VIMGPT_TRY_VOID(choose_user_agent());
  VIMGPT_TRY(const std::string folder, download_folder());
  VIMGPT_TRY_VOID(connection->call("Browser.setDownloadBehavior",
                                   {{"behavior", "allowAndName"}, {"downloadPath", folder}, {"eventsEnabled", true}}));
  // Chromium starts with one about:blank page (the URL we passed); work in it rather than open another.
  VIMGPT_TRY_VOID(connection->call("Target.setDiscoverTargets", {{"discover", true}}));
  std::string first_page;
  VIMGPT_TRY(Json targets, connection->call("Target.getTargets"));
  for (const auto& info : targets["targetInfos"]) {
    if (info.value("type", "") == "page") {
      first_page = info.value("targetId", "");
      break;
    }
  }
  if (first_page.empty()) {
    VIMGPT_TRY(Json created, connection->call("Target.createTarget", {{"url", "about:blank"}}));
    first_page = created.value("targetId", "");
  }
  {
    std::scoped_lock lock(mutex);
    pages = {first_page};
  }
  return attach(first_page);
}

Result<std::unique_ptr<Tab>> CdpTab::launch_local(const launch::LaunchOptions& launch, const TabOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->launch_options = launch;
  impl->launch_options.window_width = options.viewport.width;
  impl->launch_options.window_height = options.viewport.height;
  if (!options.user_agent.empty()) impl->launch_options.user_agent = options.user_agent;
  impl->owns_browser = true;
  impl->options = options;
  auto tab = std::make_unique<CdpTab>(std::move(impl));
  VIMGPT_TRY_VOID(tab->impl_->start_local());
  return std::unique_ptr<Tab>(std::move(tab));
}

Status CdpTab::relaunch() {
  if (!impl_->owns_browser)
    return fail(ErrorKind::Unsupported, "the browser is remote: it cannot be restarted from here");
  std::shared_ptr<wire::Connection> old;
  {
    std::scoped_lock lock(impl_->mutex);
    old = std::move(impl_->connection);
    impl_->previous_targets.clear();
    impl_->opened_targets.clear();
    impl_->pages.clear();
  }
  impl_->page_events.reset();
  if (old) {
    old->unsubscribe(impl_->subscription);
    old->close();  // reaps what is left of the old browser
  }
  return impl_->start_local();
}

std::vector<Download> CdpTab::take_downloads(milliseconds cap) {
  std::unique_lock lock(impl_->mutex);
  const auto deadline = Clock::now() + cap;
  impl_->download_cv.wait_until(lock, deadline, [&] {
    for (const auto& [guid, download] : impl_->downloads)
      if (download.state == DownloadState::InProgress) return !impl_->connection || !impl_->connection->alive();
    return true;
  });
  std::vector<Download> taken;
  for (const auto& guid : impl_->download_order) taken.push_back(impl_->downloads[guid]);
  // One still going stays, to be told again (and, once complete, opened or named) at the next step.
  std::erase_if(impl_->download_order, [&](const std::string& guid) {
    if (impl_->downloads[guid].state == DownloadState::InProgress) return false;
    impl_->downloads.erase(guid);
    return true;
  });
  return taken;
}

Result<std::unique_ptr<Tab>> CdpTab::open_remote(const std::shared_ptr<wire::Connection>& connection,
                                                 const TabOptions& options) {
  auto impl = std::make_unique<Impl>();
  impl->connection = connection;
  impl->options = options;
  VIMGPT_TRY_VOID(connection->call("Target.setDiscoverTargets", {{"discover", true}}));
  // Each task on a shared browser gets its own context: cookies and storage never leak between tasks.
  VIMGPT_TRY(Json context, connection->call("Target.createBrowserContext", {{"disposeOnDetach", true}}));
  impl->browser_context_id = context.value("browserContextId", "");
  VIMGPT_TRY(Json created, connection->call("Target.createTarget",
                                            {{"url", "about:blank"}, {"browserContextId", impl->browser_context_id}}));
  impl->pages = {created.value("targetId", "")};
  // Its downloads into the tab's folder; a browser on another machine, which has no such folder, cancels them (told as
  // not saved), and one that refuses the command keeps its own behaviour.
  VIMGPT_TRY(const std::string folder, impl->download_folder());
  (void)connection->call("Browser.setDownloadBehavior", {{"behavior", "allowAndName"},
                                                         {"browserContextId", impl->browser_context_id},
                                                         {"downloadPath", folder},
                                                         {"eventsEnabled", true}});
  VIMGPT_TRY_VOID(impl->choose_user_agent());
  auto tab = std::make_unique<CdpTab>(std::move(impl));
  tab->impl_->subscription =
      connection->subscribe([raw = tab->impl_.get()](const wire::Event& e) { raw->on_event(e); });
  VIMGPT_TRY_VOID(tab->impl_->attach(created.value("targetId", "")));
  return std::unique_ptr<Tab>(std::move(tab));
}

CdpTab::CdpTab(std::unique_ptr<Impl> impl) : EngineTab(*impl), impl_(std::move(impl)) {}

CdpTab::~CdpTab() {
  close();
}

void CdpTab::close() {
  if (!impl_ || !impl_->connection) return;
  impl_->connection->unsubscribe(impl_->subscription);
  impl_->page_events.reset();
  if (impl_->owns_browser) {
    impl_->connection->close();
  } else if (impl_->connection->alive() && !impl_->browser_context_id.empty()) {
    [[maybe_unused]] auto disposed = impl_->connection->call(
        "Target.disposeBrowserContext", {{"browserContextId", impl_->browser_context_id}}, {}, milliseconds{5000});
  }
  impl_->connection.reset();
}

std::vector<ChildFrame> CdpTab::child_frames() const {
  std::scoped_lock lock(impl_->mutex);
  return impl_->child_frames;
}

std::string CdpTab::session_id() const {
  std::scoped_lock lock(impl_->mutex);
  return impl_->session_id;
}

}  // namespace vimgpt::browser
