// Private to src/browser: the state behind a BidiTab, shared by its files (tab.cpp: opening and closing, the browser;
// scripts, the browser; bidi_input.cpp: trusted input).
#pragma once

#include <algorithm>
#include <condition_variable>
#include <filesystem>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "browser/bidi/tab.h"
#include "browser/core.h"
#include "common/text.h"

namespace vimgpt::browser {
namespace bidi {

using Clock = std::chrono::steady_clock;
constexpr milliseconds kBidiTimeout{15000};
// session.new is answered once Firefox's first window is ready: eight Firefoxes started at once on two cores (an MCP
// server's sessions, the soak on Firefox) took longer than kBidiTimeout, and the session's first call failed.
constexpr milliseconds kSessionStartTimeout{60000};
constexpr const char* kSandbox = "vimgpt";  // the isolated world's realm, as CDP's world is named
// BiDi's network events come from Firefox's parent process, a little after the page acted: a request a load handler
// starts can reach us later than the 50 ms network-quiet window Chromium needs after its load event. After a load the
// network is quiet no sooner than this; the page's own fetch and XHR calls are asked for besides (wait_page_requests).
constexpr milliseconds kLoadHandlersWindow{200};
// How much longer than its own cap a script that waits in the page is awaited: a document the back-forward cache
// froze (Firefox puts one there when the next page is its error page) never answers.
constexpr milliseconds kReplySlack{2000};

// Firefox's error pages (a load that failed or was refused, a certificate refused, a site blocked) are about:
// documents shown under the address that failed.
inline bool is_error_page(std::string_view document_uri) {
  return document_uri.starts_with("about:neterror") || document_uri.starts_with("about:certerror") ||
         document_uri.starts_with("about:blocked");
}

// Network quiet counts what can change what the page shows: not the browser's own fetches, such as a page's icon, which
// Firefox fetches after load, headless too (no navigation, no initiator type: nothing in the page asked for it).
inline bool browsers_own(const Json& request_event) {
  return request_event.value("navigation", Json()).is_null() &&
         member(request_event, "request").value("initiatorType", Json()).is_null() &&
         request_event.value("initiator", Json::object()).value("type", "") == "other";
}

// A BiDi remote value (https://w3c.github.io/webdriver-bidi/#type-script-RemoteValue) as plain JSON, as CDP's
// returnByValue gives it: objects from their [key, value] pairs, special numbers and what JSON cannot hold as null.
inline Json plain(const Json& remote) {
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

}  // namespace bidi

// The live view's stream. Firefox 153 has no screencast (browsingContext.startScreencast is an unknown command there),
// so while someone watches a thread captures the viewport every kInterval and passes a frame on only when it differs
// from the last one: none while nothing changes, as Chromium's screencast.
struct BidiScreencast {
  static constexpr milliseconds kInterval{200};
  std::mutex mutex;
  std::condition_variable wake;
  FrameSink sink;  // empty: stopped
  ScreencastOptions options;
  std::thread thread;
};

struct BidiTab::State : TabCore {
  launch::LaunchOptions launch;
  std::uint64_t subscription = 0;
  std::set<std::string> preloaded;  // names given to preload()
  std::string listener_key;         // the page-realm property the listener recorder answers on (bidi/frames.cpp)
  // On a connection the tab shares (Tab::open): the user context it works in, and its document intercept, both
  // removed when it closes. Empty for a Firefox the tab launched, whose default user context it uses.
  std::string user_context;
  std::string intercept;
  std::string events;  // the session.subscribe this tab made (its id), given back when a shared connection's tab goes

  // Written by the event handler on the connection's reader thread.
  std::condition_variable changed;
  std::string context;                // the top-level browsing context worked in
  std::vector<std::string> pages;     // ours, in the order they opened
  std::vector<std::string> previous;  // to go back to when the current one closes
  std::vector<std::string> opened;    // opened by ours, not yet followed
  // Those of them whose navigation has started and not yet ended: it began before the tab was followed, where
  // `started` and `loaded` (the current context's) did not count it, and following such a tab waits for it.
  std::set<std::string> opened_loading;
  std::map<std::string, std::string> frames;              // child context → its parent
  std::map<std::string, std::string> requests_in_flight;  // request id → context
  // Page documents refused by the navigation filter (decide): Firefox 153 ends such a navigation with a fetchError
  // and nothing else (no navigationFailed, no load), so that error ends it.
  std::set<std::string> refused_documents;
  bidi::Clock::time_point network_changed = bidi::Clock::now();
  bidi::Clock::time_point load_ended = bidi::Clock::now();
  std::uint64_t started = 0;  // navigations started there
  std::uint64_t loaded = 0;   // and ended (load, failure, a download instead)
  std::vector<Download> downloads;
  int downloads_going = 0;                  // begun, not yet ended
  std::set<std::string> download_contexts;  // the contexts they began in
  std::string closing;                      // the tab close_page is closing
  // TabCore::crashed: the tab's content process died. Firefox shows its "tab crashed" page, a parent-process page no
  // script reaches, in the same context, and says so only by committing it there, sometimes after a script has been
  // refused; the next navigation there starts a content process again.
  std::optional<Json> file_dialog;  // the element of the last file chooser the page opened
  BidiScreencast screencast;

  Result<Json> call(std::string_view method, Json params, milliseconds timeout = bidi::kBidiTimeout) {
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

  void on_event(const wire::Event& event) {
    const Json& p = event.params;
    const std::string at = p.value("context", "");
    std::scoped_lock lock(mutex);
    const std::string& method = event.method;
    // A navigation ends in a load, a failure, a download instead, or for Firefox's own error pages (a refused or
    // unreachable address), which get no load event in Firefox 153, their DOMContentLoaded: without it every step
    // that reached one would wait out the load cap.
    const bool navigation_ended =
        method == "browsingContext.load" || method == "browsingContext.navigationFailed" ||
        method == "browsingContext.downloadWillBegin" || method == "browsingContext.navigationAborted" ||
        (method == "browsingContext.domContentLoaded" && bidi::is_error_page(p.value("url", ""))) ||
        (method == "network.fetchError" &&
         refused_documents.erase(p.value("request", Json::object()).value("request", "")) > 0);
    if (navigation_ended) opened_loading.erase(at);
    // A download is reported by the tab it began in, one the page opened too (Firefox closes such a tab again, and
    // tells the download as the opener's, which is no longer the one worked in by then).
    const auto listed = [&](const std::vector<std::string>& tabs) {
      return std::find(tabs.begin(), tabs.end(), at) != tabs.end();
    };
    if (method == "browsingContext.downloadWillBegin" && (ours(at) || listed(pages) || listed(opened))) {
      ++downloads_going;
      download_contexts.insert(at);
    }
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
      // A tab the page opened that the browser closed again (Firefox closes one whose navigation became a download):
      // the work goes back to the tab before it. close_page moves the work itself.
      std::erase(opened, at);
      opened_loading.erase(at);
      if (at == context && at != closing && !pages.empty()) {
        std::erase(previous, at);
        context = previous.empty() ? pages.back() : previous.back();
        if (!previous.empty()) previous.pop_back();
        ++generation;
        loaded = started;  // the load waited for in the closed tab will not come
        load_ended = bidi::Clock::now();
      }
    } else if (method == "browsingContext.navigationStarted" &&
               std::find(opened.begin(), opened.end(), at) != opened.end()) {
      opened_loading.insert(at);
    } else if (method == "browsingContext.navigationStarted" && at == context) {
      ++started;
      crashed = false;
      dom_window.reset();  // the document it watched is going
    } else if (navigation_ended && at == context) {
      loaded = started;
      load_ended = bidi::Clock::now();
      if (method == "network.fetchError")
        requests_in_flight.erase(p.value("request", Json::object()).value("request", ""));
    } else if (method == "browsingContext.navigationCommitted" && at == context) {
      ++generation;
      // Firefox's "tab crashed" page commits in the crashed page's navigation, before or after a script sent there
      // is refused (RecoveryE2E under load): the address stays the page's, the one to load again.
      const std::string url = p.value("url", known_url);
      if (url.starts_with("about:tabcrashed")) {
        crashed = true;
      } else {
        known_url = url;
      }
    } else if ((method == "browsingContext.fragmentNavigated" || method == "browsingContext.historyUpdated") &&
               at == context) {
      known_url = p.value("url", known_url);
    } else if (method == "browsingContext.userPromptOpened" && ours(at)) {
      const std::string type = p.value("type", "alert");
      const DialogType kind = type == "confirm"        ? DialogType::Confirm
                              : type == "prompt"       ? DialogType::Prompt
                              : type == "beforeunload" ? DialogType::BeforeUnload
                                                       : DialogType::Alert;
      const Dialog& dialog = answer_dialog(kind, p.value("message", ""), known_url, p.value("defaultValue", ""));
      Json answer = {{"context", at}, {"accept", dialog.accepted}};
      if (kind == DialogType::Prompt && dialog.accepted) answer["userText"] = dialog.text;
      connection->post("browsingContext.handleUserPrompt", std::move(answer));
    } else if (method == "browsingContext.downloadEnd" && (ours(at) || download_contexts.contains(at))) {
      download_contexts.erase(at);
      if (downloads_going > 0) --downloads_going;
      const bool complete = p.value("status", "") == "complete";
      const std::string file = p.value("filepath", Json()).is_string() ? p["filepath"].get<std::string>() : "";
      // BiDi says where the file is, not how big: the file does.
      std::error_code unknown;
      const auto bytes = complete && !file.empty() ? std::filesystem::file_size(file, unknown) : 0;
      downloads.push_back({p.value("url", ""), file, unknown ? 0 : static_cast<std::int64_t>(bytes),
                           complete ? DownloadState::Completed : DownloadState::Canceled,
                           !options.download_dir.empty()});
    } else if (method == "network.beforeRequestSent") {
      // Every held request is answered, a tab's the page opened and not yet followed too: one left held would hold
      // up its page's load event for good.
      const std::string id = member(p, "request").value("request", "");
      if (p.value("isBlocked", false)) decide(p, id);
      if (!ours(at) || bidi::browsers_own(p)) return;
      requests_in_flight[id] = at;
      network_changed = bidi::Clock::now();
    } else if ((method == "network.responseCompleted" || method == "network.fetchError") &&
               requests_in_flight.erase(member(p, "request").value("request", "")) > 0) {
      network_changed = bidi::Clock::now();
    } else if (method == "network.authRequired" && p.value("isBlocked", false)) {
      // Held by the authRequired intercept (start): every one is answered, as decide() answers every held request.
      const Json& challenges = member(p, "response").value("authChallenges", Json::array());
      const auto credentials =
          answer_auth(member(p, "request").value("request", ""), member(p, "request").value("url", ""),
                      challenges.empty() ? std::string() : challenges[0].value("realm", std::string()));
      Json answer = {{"request", member(p, "request").value("request", "")},
                     {"action", credentials ? "provideCredentials" : "cancel"}};
      if (credentials) {
        answer["credentials"] = {
            {"type", "password"}, {"username", credentials->username}, {"password", credentials->password}};
      }
      connection->post("network.continueWithAuth", std::move(answer));
    } else if (method == "input.fileDialogOpened" && ours(at)) {
      file_dialog = p.value("element", Json());
    } else if (method != "Connection.closed") {
      return;
    }
    changed.notify_all();
  }

  // A request held by the document filter (only documents: a frame's or the page's own): let go or failed at once.
  void decide(const Json& p, const std::string& id) {
    const auto& request = member(p, "request");
    const std::string destination = request.value("destination", "");
    const std::string url = request.value("url", "");
    const bool document = destination == "document" || destination == "iframe";
    const auto refusal = document && options.navigation_filter ? options.navigation_filter(url) : std::nullopt;
    if (refusal && destination == "iframe") {
      // A failed frame request leaves the frame as it was, with no load event and nothing to show why (Chromium
      // shows its error page there): the frame gets a page that says it was refused.
      blocked.push_back({url, *refusal});
      const std::string page = "<!doctype html><meta charset=utf-8><title>Refused</title><p>vimgpt refused " +
                               html_text(url) + ": " + html_text(*refusal) + "</p>";
      connection->post(
          "network.provideResponse",
          {{"request", id},
           {"statusCode", 403},
           {"reasonPhrase", "Forbidden"},
           {"headers", {{{"name", "Content-Type"}, {"value", {{"type", "string"}, {"value", "text/html"}}}}}},
           {"body", {{"type", "string"}, {"value", page}}}});
    } else if (refusal) {
      blocked.push_back({url, *refusal});
      if (destination == "document") refused_documents.insert(id);
      connection->post("network.failRequest", {{"request", id}});
    } else {
      connection->post("network.continueRequest", {{"request", id}});
    }
  }

  // `shared`: on a connection the tab did not make (Tab::open), whose BiDi session may exist already (a WebDriver
  // session's, an earlier tab's): the tab works in a user context of its own there.
  Status start(bool shared) {
    bool session_exists = false;
    if (shared) {
      const auto status = call("session.status", Json::object());
      session_exists = status && status->is_object() && !status->value("ready", true);
    }
    if (!session_exists) {
      VIMGPT_TRY_VOID(call("session.new", {{"capabilities", {{"alwaysMatch", launch::firefox_session_capabilities()}}}},
                           bidi::kSessionStartTimeout));
    }
    subscription = connection->subscribe([this](const wire::Event& event) { on_event(event); });
    VIMGPT_TRY(Json subscribed, call("session.subscribe", {{"events", {"browsingContext", "network", "input"}}}));
    events = subscribed.is_object() ? subscribed.value("subscription", "") : "";
    std::string first;
    if (shared) {
      VIMGPT_TRY(Json made, call("browser.createUserContext", Json::object()));
      user_context = made.value("userContext", "");
      VIMGPT_TRY(Json tab, call("browsingContext.create", {{"type", "tab"}, {"userContext", user_context}}));
      first = tab.value("context", "");
    } else {
      VIMGPT_TRY(Json tree, call("browsingContext.getTree", {{"maxDepth", 0}}));
      if (tree["contexts"].is_array() && !tree["contexts"].empty()) first = tree["contexts"][0].value("context", "");
    }
    if (first.empty()) return fail(ErrorKind::Protocol, "Firefox has no tab to work in");
    {
      std::scoped_lock lock(mutex);
      context = first;
      pages = {context};
    }
    install_listener_recorder();
    // BiDi 153 scopes an intercept to top-level contexts, not to a user context: the session's only tab at a time
    // (a batch worker's browser, a WebDriver session) holds the whole session's documents. An authentication
    // challenge is always held: answered from options.http_credentials, or refused as headless Chromium refuses it,
    // rather than left to Firefox's own prompt.
    Json phases = {"authRequired"};
    if (options.navigation_filter) phases.push_back("beforeRequestSent");
    VIMGPT_TRY(Json added, call("network.addIntercept", {{"phases", phases}}));
    intercept = added.value("intercept", "");
    // Downloads into the tab's folder; a browser that refuses it (one on another machine, which has no such folder)
    // refuses downloads instead, and a download is told as not saved.
    VIMGPT_TRY(const std::string folder, download_folder());
    if (!call("browser.setDownloadBehavior",
              in_user_context({{"downloadBehavior", {{"type", "allowed"}, {"destinationFolder", folder}}}}))) {
      VIMGPT_TRY_VOID(
          call("browser.setDownloadBehavior", in_user_context({{"downloadBehavior", {{"type", "denied"}}}})));
    }
    if (!options.user_agent.empty()) {
      VIMGPT_TRY_VOID(call("emulation.setUserAgentOverride", in_user_context({{"userAgent", options.user_agent}})));
    }
    return apply_viewport();
  }

  // A session-wide setting's parameters, scoped to the tab's user context when it has one of its own.
  Json in_user_context(Json params) const {
    if (!user_context.empty()) params["userContexts"] = Json::array({user_context});
    return params;
  }

  Status apply_viewport() override {
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
    if (opened_loading.contains(context)) ++started;  // its load, still to come, is waited for like any
    opened_loading.clear();
    ++generation;
  }

  Result<Json> evaluate(const Json& target, std::string_view expression, milliseconds timeout = bidi::kBidiTimeout) {
    auto evaluated = call(
        "script.evaluate",
        {{"expression", expression}, {"target", target}, {"awaitPromise", true}, {"resultOwnership", "none"}}, timeout);
    if (!evaluated && shows_crash_page(target, evaluated.error())) return fail(ErrorKind::Protocol, kCrashed);
    VIMGPT_TRY(Json result, std::move(evaluated));
    if (result.value("type", "") == "exception") {
      return fail(ErrorKind::Protocol, result["exceptionDetails"].value("text", "the script threw"));
    }
    return bidi::plain(result.value("result", Json()));
  }

  Status perform(Json actions, const std::string& in = {}) {
    VIMGPT_TRY_VOID(
        call("input.performActions", {{"context", in.empty() ? current() : in}, {"actions", std::move(actions)}}));
    return ok();
  }

  static constexpr const char* kCrashed = "the page crashed (its content process died); load a page to go on";
  // A script refused in the top-level context as a parent process's while a web page was shown there: the content
  // process died under it, and Firefox shows its "tab crashed" page instead (an about: page the agent went to is
  // not a crash).
  bool shows_crash_page(const Json& target, const Error& error) {
    if (error.kind != ErrorKind::Protocol || error.message.find("parent process") == std::string::npos) return false;
    std::scoped_lock lock(mutex);
    if (target.value("context", "") != context || known_url.starts_with("about:")) return false;
    crashed = true;
    return true;
  }

  // When the network will have been quiet long enough, if no request starts: the network-quiet window after the last
  // change, and the load handlers' window after a load.
  bidi::Clock::time_point quiet_from() const {
    return std::max(network_changed + options.settle.network_quiet, load_ended + bidi::kLoadHandlersWindow);
  }

  // Until no request has been in flight for the network-quiet window (LeaveOpen: until none is in flight, the window
  // left to the caller), at most `cap`. Closing it, the page is asked for fetch and XHR calls whose requests have not
  // reached us yet; if it had some, they are waited for, and the network again.
  void wait_network_quiet(milliseconds cap, SettleWait wait = SettleWait::Close) {
    const auto deadline = bidi::Clock::now() + cap;
    wait_network_events_quiet(deadline, wait);
    const auto left = [&] { return std::chrono::ceil<milliseconds>(deadline - bidi::Clock::now()); };
    if (wait == SettleWait::Close && connection->alive() && wait_page_requests(left()))
      wait_network_events_quiet(deadline, wait);
  }
  void wait_network_events_quiet(bidi::Clock::time_point deadline, SettleWait wait) {
    std::unique_lock lock(mutex);
    while (bidi::Clock::now() < deadline && connection->alive()) {
      const bool idle = std::none_of(requests_in_flight.begin(), requests_in_flight.end(),
                                     [&](const auto& r) { return ours(r.second); });
      const auto quiet_at = wait == SettleWait::Close ? quiet_from() : bidi::Clock::now();
      if (idle && bidi::Clock::now() >= quiet_at) return;
      changed.wait_until(lock, idle ? std::min(quiet_at, deadline) : deadline);
    }
  }
  // bidi/frames.cpp: until the page's fetch and XHR calls have their responses, at most `cap`; whether it had any.
  bool wait_page_requests(milliseconds cap);

  // The screencast's loop (BidiScreencast), on its own thread until the sink is taken away.
  void stream_frames();

  // bidi/input.cpp: the context whose document holds the focus, where key actions must go.
  std::string key_context();

  // bidi_frames.cpp: the page-realm preload that records listeners, and where a child context's <iframe> is.
  void install_listener_recorder();
  struct Owner;
  Result<Owner> owner_of(std::string_view frame_id);

  bool navigating() const {
    std::scoped_lock lock(mutex);
    return loaded < started;
  }

  // Until the navigations started so far have ended, at most `cap`, then network-quiet (or only idle: LeaveOpen).
  void wait_loaded(milliseconds cap, SettleWait wait = SettleWait::Close) {
    {
      std::unique_lock lock(mutex);
      changed.wait_for(lock, cap, [&] { return loaded >= started || !connection->alive(); });
    }
    wait_network_quiet(options.settle.idle_cap, wait);
  }
};

}  // namespace vimgpt::browser
