// What both engines do the same way, written once: the helpers they call into, and (EngineTab) the calls whose
// bodies were the same in each.
#include <cstdlib>
#include <filesystem>
#include <string>
#include <utility>

#include "browser/core.h"
#include "browser/diagnostics.h"

namespace vimgpt::browser {

std::string_view to_string(DialogType type) {
  switch (type) {
    case DialogType::Alert: return "alert";
    case DialogType::Confirm: return "confirm";
    case DialogType::Prompt: return "prompt";
    case DialogType::BeforeUnload: return "beforeunload";
  }
  return "alert";
}

std::string_view to_string(DownloadState state) {
  switch (state) {
    case DownloadState::InProgress: return "inProgress";
    case DownloadState::Completed: return "completed";
    case DownloadState::Canceled: return "canceled";
  }
  return "inProgress";
}

Status valid_screenshot(const ScreenshotOptions& options) {
  if (options.scale <= 0 || options.scale > 4) {
    return fail(ErrorKind::InvalidArgument, "screenshot scale must be in (0, 4]");
  }
  if (options.region && (options.region->width < 1 || options.region->height < 1)) {
    return fail(ErrorKind::InvalidArgument, "a screenshot's region must be at least 1x1 CSS px");
  }
  return ok();
}

Status valid_viewport(const Viewport& viewport) {
  if (viewport.width <= 0 || viewport.height <= 0 || viewport.device_scale_factor <= 0) {
    return fail(ErrorKind::InvalidArgument, "the viewport must be at least 1x1 with a positive scale");
  }
  return ok();
}

Status inside(Point point, const Viewport& v) {
  if (point.x < 0 || point.y < 0 || point.x >= v.width || point.y >= v.height) {
    return fail(ErrorKind::InvalidArgument, "the point (" + std::to_string(int(point.x)) + ", " +
                                                std::to_string(int(point.y)) + ") is outside the " +
                                                std::to_string(v.width) + "x" + std::to_string(v.height) + " viewport");
  }
  return ok();
}

Status scroll_by_script(Tab& tab, ScrollDirection direction) {
  // Scroll the page by most of a screen; when the page itself does not move (an app that scrolls an inner
  // container), scroll the largest scrollable element under the middle of the viewport instead.
  const std::string sign = direction == ScrollDirection::Down ? "1" : "-1";
  const std::string script =
      "(() => { const dy = " + sign +
      " * Math.round(innerHeight * 0.8); const before = scrollY;"
      "  scrollBy({top: dy, behavior: 'instant'});"
      "  if (scrollY !== before) return true;"
      "  for (let el = document.elementFromPoint(innerWidth / 2, innerHeight / 2); el; el = el.parentElement) {"
      "    const s = getComputedStyle(el);"
      "    if (/(auto|scroll)/.test(s.overflowY) && el.scrollHeight > el.clientHeight) {"
      "      const top = el.scrollTop; el.scrollBy({top: dy, behavior: 'instant'}); return el.scrollTop !== top; }"
      "  }"
      "  return false; })()";
  VIMGPT_TRY(Json moved, tab.evaluate(script));
  if (!moved.is_boolean() || !moved.get<bool>()) {
    return fail(ErrorKind::InvalidArgument,
                std::string("the page cannot scroll further ") + (direction == ScrollDirection::Down ? "down" : "up"));
  }
  return ok();
}

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
         "  addEventListener('pagehide', hidden);"
         "  function hidden() { done(false); }"
         "  function done(quiet) {"
         "    observer.disconnect(); clearTimeout(timer); clearTimeout(cap); removeEventListener('pagehide', hidden);"
         "    resolve(quiet); }"
         "})";
}

Failure no_such_tab(int number, std::size_t open) {
  return fail(ErrorKind::NotFound, "there is no tab " + std::to_string(number) + ": " + std::to_string(open) +
                                       (open == 1 ? " tab is" : " tabs are") + " open, numbered from 1");
}

Failure only_tab_open() {
  return fail(ErrorKind::InvalidArgument, "this is the only open tab: it cannot be closed (navigate instead)");
}

Status EngineTab::set_viewport(const Viewport& viewport) {
  VIMGPT_TRY_VOID(valid_viewport(viewport));
  core_.options.viewport = viewport;
  return core_.apply_viewport();
}

const Viewport& EngineTab::viewport() const {
  return core_.options.viewport;
}

std::optional<DomWindow> EngineTab::take_dom_window() {
  std::scoped_lock lock(core_.mutex);
  return std::exchange(core_.dom_window, std::nullopt);
}

std::uint64_t EngineTab::page_generation() const {
  std::scoped_lock lock(core_.mutex);
  return core_.generation;
}

std::string EngineTab::last_url() const {
  std::scoped_lock lock(core_.mutex);
  return core_.known_url;
}

std::vector<BlockedNavigation> EngineTab::take_blocked() {
  std::scoped_lock lock(core_.mutex);
  return std::exchange(core_.blocked, {});
}

std::vector<Dialog> EngineTab::take_dialogs() {
  std::scoped_lock lock(core_.mutex);
  return std::exchange(core_.dialogs, {});
}

void EngineTab::answer_dialogs(std::optional<DialogAnswer> answer) {
  std::scoped_lock lock(core_.mutex);
  core_.dialog_answer = std::move(answer);
}

TabCore::~TabCore() {
  std::error_code ignored;
  if (!scratch_downloads.empty()) std::filesystem::remove_all(scratch_downloads, ignored);
}

Result<std::string> TabCore::download_folder() {
  if (!options.download_dir.empty()) {
    std::error_code error;
    std::filesystem::create_directories(options.download_dir, error);
    if (error)
      return fail(ErrorKind::Io, "cannot create the download folder " + options.download_dir + ": " + error.message());
    return options.download_dir;
  }
  if (scratch_downloads.empty()) {
    std::string name = (std::filesystem::temp_directory_path() / "vimgpt-downloads-XXXXXX").string();
    if (::mkdtemp(name.data()) == nullptr)
      return fail(ErrorKind::Io, "cannot make a download folder in the temp folder");
    scratch_downloads = name;
  }
  return scratch_downloads;
}

const Dialog& TabCore::answer_dialog(DialogType type, std::string message, std::string url, std::string default_text) {
  Dialog dialog;
  dialog.type = type;
  dialog.message = std::move(message);
  dialog.url = std::move(url);
  if (type == DialogType::Alert) {
    dialog.accepted = true;
  } else if (dialog_answer) {
    dialog.as_told = true;
    dialog.accepted = dialog_answer->accept;
  } else {
    dialog.accepted = type == DialogType::BeforeUnload;  // the page and a navigation go on; questions are declined
  }
  if (type == DialogType::Prompt && dialog.accepted) {
    dialog.text = dialog_answer && !dialog_answer->text.empty() ? dialog_answer->text : std::move(default_text);
  }
  dialogs.push_back(std::move(dialog));
  return dialogs.back();
}

std::vector<AuthChallenge> EngineTab::take_auth_challenges() {
  std::scoped_lock lock(core_.mutex);
  return std::exchange(core_.auth_challenges, {});
}

std::optional<HttpCredentials> TabCore::answer_auth(const std::string& request, const std::string& url,
                                                    std::string realm) {
  AuthChallenge challenge{url, std::move(realm), AuthAnswer::NotGiven};
  std::optional<HttpCredentials> credentials;
  if (auth_answered.contains(request)) {
    // Asked again after the credentials: the site refused them (answering again would go round for good).
    for (auto& noted : auth_challenges) {
      if (noted.url == url && noted.answer == AuthAnswer::Given) {
        noted.answer = AuthAnswer::Refused;
        return std::nullopt;
      }
    }
    challenge.answer = AuthAnswer::Refused;
  } else if (options.http_credentials && (credentials = options.http_credentials(url))) {
    challenge.answer = AuthAnswer::Given;
    auth_answered.insert(request);
  }
  auth_challenges.push_back(std::move(challenge));
  return credentials;
}

bool EngineTab::crashed() const {
  std::scoped_lock lock(core_.mutex);
  return core_.crashed;
}

bool EngineTab::alive() const {
  return core_.connection && core_.connection->alive();
}

std::string EngineTab::closed_reason() const {
  return core_.connection ? core_.connection->closed_reason() : "the browser was closed";
}

int EngineTab::browser_pid() const {
  return core_.connection ? core_.connection->process_id() : 0;
}

wire::Connection& EngineTab::connection() {
  return *core_.connection;
}

wire::Connection& connection_of(Tab& tab) {
  return dynamic_cast<EngineTab&>(tab).connection();
}

std::string session_of(const Tab& tab) {
  return dynamic_cast<const EngineTab&>(tab).session_id();
}

}  // namespace vimgpt::browser
