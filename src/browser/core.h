// Private to src/browser: what both engines share, written once. Included by the engines (browser/cdp, browser/bidi)
// and the surface's own files, never by another module.
#pragma once

#include <array>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "browser/browser.h"

namespace vimgpt::browser {

// How long a single DevTools command may take before the browser is considered stuck.
inline constexpr milliseconds kCommandTimeout{15000};
// The isolated world of evaluate() and preload(): Chromium keeps one world per name and frame.
inline constexpr const char* kWorldName = "vimgpt";

// What every engine does the same way, through the page itself: scroll by most of a screen (the page, or the
// scrollable element in the middle of the viewport).
Status scroll_by_script(Tab& tab, ScrollDirection direction);
// A failed load's error as the engine names it (Chromium's net::ERR_…, Firefox's NS_ERROR_…), with the common ones'
// reason in plain words after the name, for the person reading it and for the model reading it in its history.
std::string with_reason(const std::string& error);
// That a viewport can be set: InvalidArgument otherwise.
Status valid_viewport(const Viewport& viewport);
// That a screenshot's scale is in (0, 4]: InvalidArgument otherwise.
// A screenshot's scale in (0, 4], and its region (when it has one) at least 1x1 CSS px.
Status valid_screenshot(const ScreenshotOptions& options);
// That a point lies inside the viewport: InvalidArgument saying where it is otherwise.
Status inside(Point point, const Viewport& viewport);
// What settle() runs in the isolated world after an action with no navigation, on every engine: a promise that is
// true once the DOM has had no mutation for `quiet`, false when `cap` comes first (a page that keeps changing) or
// the document is hidden (a navigation put it away: a document in the back-forward cache is frozen and never answers).
std::string dom_quiet_script(milliseconds quiet, milliseconds cap);
// One UTF-8 code point at a time, as keys are pressed.
std::vector<std::string> code_points(std::string_view text);
// Each character of `text` as the key a person presses for it on a US layout (Shift noted for capitals and
// shifted marks, never pressed on its own: a box that moves on keyup must not see it); a character that layout has
// no key for is typed with its own text, a newline is Enter, a tab Tab, a carriage return nothing.
std::vector<KeyPress> keys_for_text(std::string_view text);
// A named key as a person presses it: its KeyboardEvent key and code, virtual key code and text.
KeyPress key_press(Key key);
// The modifier keys, in the order they go down.
struct ModifierKey {
  unsigned bit;
  std::string_view name;  // KeyboardEvent.key
  std::string_view code;
  int virtual_key;
};
inline constexpr std::array<ModifierKey, 4> kModifiers{{
    {kControl, "Control", "ControlLeft", 17},
    {kShift, "Shift", "ShiftLeft", 16},
    {kAlt, "Alt", "AltLeft", 18},
    {kMeta, "Meta", "MetaLeft", 91},
}};
// A member of a browser's message, or an empty object when there is none: what a browser sends is read without
// trusting its shape (nlohmann's const operator[] on a missing key is undefined behaviour, an abort in a debug build).
inline const Json& member(const Json& object, const char* key) {
  static const Json kNone = Json::object();
  if (!object.is_object()) return kNone;
  const auto found = object.find(key);
  return found != object.end() ? *found : kNone;
}
// switch_page to a number no tab has, and close_page on the only tab, in the same words on every engine.
Failure no_such_tab(int number, std::size_t open);
Failure only_tab_open();

// What every engine keeps about its tab in the same shape: the link, the options, and the bookkeeping its event
// handler writes under `mutex` (on the connection's reader thread) and EngineTab's calls read. Each engine's state
// (CdpTab::Impl, BidiTab::State) adds its own protocol's.
struct TabCore {
  TabCore() = default;
  TabCore(const TabCore&) = delete;
  TabCore& operator=(const TabCore&) = delete;
  virtual ~TabCore();  // removes the scratch download folder
  std::shared_ptr<wire::Connection> connection;
  TabOptions options;

  mutable std::mutex mutex;
  std::vector<Dialog> dialogs;
  std::optional<DialogAnswer> dialog_answer;  // answer_dialogs()
  std::vector<BlockedNavigation> blocked;
  std::vector<AuthChallenge> auth_challenges;
  std::set<std::string> auth_answered;  // requests whose challenge got credentials
  std::string known_url;                // the main frame's, from its navigation events (last_url())
  std::uint64_t generation = 0;         // documents committed and tabs moved to (page_generation())
  bool crashed = false;                 // the page's renderer or content process died
  std::optional<DomWindow> dom_window;  // left open by the last settle(..., LeaveOpen) without a navigation

  // Where the browser saves downloads: options.download_dir (made when missing), or without one a private folder of
  // the tab's own, made on first use and removed with the tab, whose files the agent reads (a PDF) and deletes
  // (Download::kept false).
  Result<std::string> download_folder();
  std::string scratch_downloads;

  // Sends options.viewport to the browser.
  virtual Status apply_viewport() = 0;

  // Under `mutex`: a dialog the page opened, noted for take_dialogs with the answer it gets (alerts accepted; the
  // others as dialog_answer says, else leave-page questions accepted and confirm and prompt declined). A prompt
  // accepted with no text of its own gets `default_text`.
  const Dialog& answer_dialog(DialogType type, std::string message, std::string url, std::string default_text);

  // Under `mutex`: a document's HTTP authentication challenge (`request` the protocol's id for it), noted for
  // take_auth_challenges; the credentials to answer it with, or nothing to refuse it.
  std::optional<HttpCredentials> answer_auth(const std::string& request, const std::string& url, std::string realm);
};

// The Tab calls whose bodies are the same on every engine, written once (Playwright's core over its delegates); an
// engine derives from this and overrides the rest (tab_overrides.inc).
class EngineTab : public Tab {
 public:
  Status set_viewport(const Viewport& viewport) final;
  [[nodiscard]] const Viewport& viewport() const final;
  std::optional<DomWindow> take_dom_window() final;
  [[nodiscard]] std::uint64_t page_generation() const final;
  [[nodiscard]] std::string last_url() const final;
  std::vector<BlockedNavigation> take_blocked() final;
  std::vector<Dialog> take_dialogs() final;
  void answer_dialogs(std::optional<DialogAnswer> answer) final;
  std::vector<AuthChallenge> take_auth_challenges() final;
  [[nodiscard]] bool crashed() const final;
  [[nodiscard]] bool alive() const final;
  [[nodiscard]] std::string closed_reason() const final;
  [[nodiscard]] int browser_pid() const final;

  // For diagnostics.h: the wire under the tab, and the id its protocol knows the page by.
  wire::Connection& connection();
  [[nodiscard]] virtual std::string session_id() const = 0;

 protected:
  // `core` is the engine's state, owned by the engine and alive as long as it.
  explicit EngineTab(TabCore& core) : core_(core) {}

 private:
  TabCore& core_;
};

}  // namespace vimgpt::browser
