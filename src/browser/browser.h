// One browser tab as a person uses it: navigate and wait until settled, screenshot, click, type, keys,
// scroll, history, scripts in an isolated world, dialogs, and following new tabs the page opens.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/encoded_image.h"
#include "common/result.h"
#include "launch/launch.h"

namespace vimgpt::browser {

using std::chrono::milliseconds;
using wire::Json;

struct Viewport {
  int width = 1080;  // the original vimGPT's window
  int height = 720;
  double device_scale_factor = 1.0;
};

using vimgpt::ImageFormat;  // common/encoded_image.h

// A part of the viewport, in CSS px from its top-left corner.
struct ViewportBox {
  double x = 0;
  double y = 0;
  double width = 0;
  double height = 0;
};

struct ScreenshotOptions {
  ImageFormat format = ImageFormat::Png;
  int quality = 80;    // JPEG and WebP only
  double scale = 1.0;  // Chromium scales at capture time: no decode and re-encode there
  // Only this part of the viewport, at `scale` (a closer look: Chromium renders it anew at that scale, Firefox's
  // capture is scaled up after).
  std::optional<ViewportBox> region;
};

// A frame as the browser encoded it: its format and size read from its header.
using Screenshot = EncodedImage;

// The tab streamed as it repaints: JPEG frames, only while someone watches.
struct ScreencastOptions {
  int quality = 60;  // JPEG
  int max_width = 1080;
  int max_height = 720;
};
// Gets each frame on the browser's event thread: it must not call the Tab (hand the frame to another thread).
using FrameSink = std::function<void(Screenshot frame)>;

struct Point {
  double x = 0;  // viewport CSS pixels
  double y = 0;
};

enum class Key {
  Enter,
  Escape,
  Tab,
  Backspace,
  Delete,
  Space,
  ArrowUp,
  ArrowDown,
  ArrowLeft,
  ArrowRight,
  PageUp,
  PageDown,
  Home,
  End
};
// Accepts the DOM key names ("Enter", "ArrowDown", "PageUp", ...), case-insensitively, plus "Esc", "Return".
Result<Key> parse_key(std::string_view name);
std::string_view to_string(Key key);

// A key as a person presses it, with the modifiers held: "Control+A", "Shift+Tab", "Meta+C", "Enter", "a", "F5".
// Modifier bits as Chromium's input events number them.
enum Modifier : unsigned { kAlt = 1, kControl = 2, kMeta = 4, kShift = 8 };
struct KeyPress {
  unsigned modifiers = 0;
  std::string key;      // KeyboardEvent.key: "a", "A" (with Shift), "Enter", "F5"
  std::string code;     // KeyboardEvent.code: "KeyA", "Enter", "F5"
  int virtual_key = 0;  // the Windows virtual key code Chromium runs default actions by
  std::string text;     // what the key types: nothing while Control, Alt or Meta is held
  std::string command;  // Meta+A/C/V/X/Z: the editing command macOS would run ("selectAll", "copy", ...)
};
// Named keys (parse_key's), letters, digits, punctuation and F1-F12, joined by "+" after any of Control (Ctrl),
// Shift, Alt (Option) and Meta (Cmd, Command). InvalidArgument says what is accepted.
Result<KeyPress> parse_keys(std::string_view combo);
std::string to_string(const KeyPress& keys);  // "Control+A"

enum class MouseButton { Left, Right, Middle };

// How text is typed. Keys: a key press per character (keydown, keypress, beforeinput, input, keyup), as a person
// types: what date and time fields, one-time-code boxes, editors, terminals and shortcuts listen for; a newline is
// Enter and a tab Tab. Insert: the whole text at once as one input event, as a paste or an input method puts it
// (nothing listening for keys sees it).
enum class Typing { Keys, Insert };

enum class ScrollDirection { Down, Up };

// The kinds of JavaScript dialog.
enum class DialogType { Alert, Confirm, Prompt, BeforeUnload };
std::string_view to_string(DialogType type);  // "alert", "confirm", "prompt", "beforeunload"

struct Dialog {
  DialogType type = DialogType::Alert;
  std::string message;
  std::string url;
  bool accepted = false;  // how it was closed
  bool as_told = false;   // by the answer Tab::answer_dialogs holds, not the default
  std::string text;       // a prompt's answer, when accepted
};

// How the page's confirm, prompt and leave-page dialogs are answered (Tab::answer_dialogs).
struct DialogAnswer {
  bool accept = false;
  std::string text;  // a prompt's answer (with accept; empty: the prompt's own default)
};

struct SettleOptions {
  milliseconds load_cap{10000};  // wait for the load event at most this long
  milliseconds idle_cap{3000};   // then for network-almost-idle at most this long
  // Network-almost-idle: no request in flight for this long. Requests a page makes after load start from
  // its load handlers, within a few ms: 50 ms catches them without costing every static page a tenth of
  // a second.
  milliseconds network_quiet{50};
  // An action that did not navigate, settled with LeaveOpen: the page's first reaction (a framework's render a
  // task or two later) is over once the DOM has had no mutation for this long; the rest of the DOM-quiet
  // window is the caller's (take_dom_window).
  milliseconds first_reaction{50};
};

// Decides whether a document may load (top-level or frame): the reason it may not, or nothing.
using NavigationFilter = std::function<std::optional<std::string>(const std::string& url)>;

// A user name and password for a site's HTTP authentication (Basic or Digest).
struct HttpCredentials {
  std::string username;
  std::string password;
};
// The credentials to answer a challenge from `url` with, or nothing.
using CredentialsLookup = std::function<std::optional<HttpCredentials>(const std::string& url)>;

// A site that asked for HTTP authentication, and what it got.
enum class AuthAnswer {
  NotGiven,  // no credentials for it: the page shows the site's refusal (401)
  Given,     // the lookup's credentials were sent
  Refused,   // they were sent and the site asked again: the page shows its refusal
};
struct AuthChallenge {
  std::string url;
  std::string realm;  // the name the site gives what it protects; may be empty
  AuthAnswer answer = AuthAnswer::NotGiven;
};

// How settle() ends its wait. Close: after a navigation's load event, nothing in flight for the network-quiet
// window (SettleOptions::network_quiet); without a navigation, no DOM mutation for `quiet`. LeaveOpen: the
// windows are the caller's to close, so it can work on the page meanwhile and then check that they held: a
// navigation's wait ends once nothing is in flight (network_state()), and without one, once the page's first
// reaction is over (SettleOptions::first_reaction; take_dom_window()).
enum class SettleWait { Close, LeaveOpen };

// A DOM-quiet window settle() left open: the page settled if nothing in it mutates before `closes`; if
// something does, settle(cap, quiet) waits for it.
struct DomWindow {
  std::chrono::steady_clock::time_point closes;
  milliseconds quiet{0};
  milliseconds cap{0};
};

// The page's requests, its out-of-process frames' included.
struct NetworkState {
  std::chrono::steady_clock::time_point changed;  // when a request last started or ended
  bool idle = false;                              // none is in flight
  bool quiet = false;                             // none has been for the whole network-quiet window
};

// Where an out-of-process frame shows its document: its owner <iframe>'s content box, in main-viewport CSS px.
struct FrameBox {
  double x = 0;
  double y = 0;
  double width = 0;
  double height = 0;
};

struct PageInfo {
  std::string url;
  std::string title;
};

// Where a preloaded script runs: vimgpt's isolated world, or the page's own.
enum class ScriptWorld { Isolated, Page };

// One of the tabs a Tab works across: its first page and the tabs its pages opened.
struct PageSummary {
  int number = 0;  // from 1, in the order the tabs opened
  std::string url;
  std::string title;
  bool current = false;  // the one the Tab works in
};

struct BlockedNavigation {
  std::string url;
  std::string reason;
};

// A download's state; InProgress also when the wait for it ended first.
enum class DownloadState { InProgress, Completed, Canceled };
std::string_view to_string(DownloadState state);  // "inProgress", "completed", "canceled"

struct Download {
  std::string url;
  std::string file;        // where it was saved (empty when it did not complete)
  std::int64_t bytes = 0;  // received so far
  DownloadState state = DownloadState::InProgress;
  // Saved where the user asked (--download-dir, --record); false: in the tab's scratch folder, for the agent to read
  // (a PDF) and delete.
  bool kept = true;
};

struct TabOptions {
  Viewport viewport;
  SettleOptions settle;
  // Empty: the browser's own, with a headless shell's "HeadlessChrome" said as the full browser says it ("Chrome").
  std::string user_agent;
  // Downloads are saved here under the name the site suggests (made unique); empty: downloads are refused.
  // Local browsers only: a remote browser's files would land on its own machine.
  std::string download_dir;
  // When set, every document request is held (Fetch domain) until the filter allows it, so a refused one
  // never leaves the browser, whether the model asked for it or a click or script caused it.
  NavigationFilter navigation_filter;
  // When set, a document's HTTP authentication challenge is answered from it, once (a second challenge for the same
  // request is the site refusing them); a site it has nothing for is refused as the browser alone would.
  CredentialsLookup http_credentials;
};

// A frame the page runs out of process (a cross-origin iframe), reached through a link of its own.
struct ChildFrame {
  std::string session_id;
  std::string frame_id;
  std::string url;
};

// One browser tab, whichever engine runs it: Chromium (src/browser/cdp) or Firefox (src/browser/bidi), as Puppeteer
// keeps one Page over its cdp/ and bidi/ halves. Hints, the agent, replay, MCP and the
// CLI see only this; what an engine cannot do is an Unsupported error that says so.
class Tab {
 public:
  // Launches a local browser (launch.engine: Chromium, or Firefox) and opens its first tab.
  static Result<std::unique_ptr<Tab>> launch(const launch::LaunchOptions& launch, const TabOptions& options = {});
  // Opens a tab on an existing connection, in a browser context of its own that closing the tab disposes of: a
  // Chromium's DevTools (remote, or a batch worker's), or a Firefox's WebDriver BiDi (a WebDriver session's, or a
  // batch worker's: a user context per tab on the one BiDi session, made by the first tab if there is none yet).
  static Result<std::unique_ptr<Tab>> open(const std::shared_ptr<wire::Connection>& connection,
                                           const TabOptions& options = {},
                                           launch::Engine engine = launch::Engine::Chromium);
  virtual ~Tab() = default;
  Tab(const Tab&) = delete;
  Tab& operator=(const Tab&) = delete;

  // Loads the URL and waits until it has settled: this navigation's load event, then network-almost-idle,
  // each capped. A failed load (refused connection, bad host) is an ErrorKind::Navigation error. LeaveOpen: once the
  // load event has come and nothing is in flight; the network-quiet window is the caller's (a capture is taken in it).
  virtual Status navigate(std::string_view url, SettleWait wait = SettleWait::Close) = 0;
  virtual Status go_back() = 0;
  virtual Status reload() = 0;

  // After an action: if a navigation started, wait for it like navigate(); otherwise wait until the DOM has
  // had no mutations for `quiet`, at most `cap`. SettleWait says which windows are left to the caller.
  virtual Status settle(milliseconds cap, milliseconds quiet = milliseconds{150},
                        SettleWait wait = SettleWait::Close) = 0;
  // The DOM-quiet window the last settle(..., LeaveOpen) left open, if any; taking it forgets it.
  virtual std::optional<DomWindow> take_dom_window() = 0;
  [[nodiscard]] virtual NetworkState network_state() const = 0;
  // Until the network-quiet window has passed, at most the settle idle cap.
  virtual void wait_network_quiet() = 0;

  virtual Status set_viewport(const Viewport& viewport) = 0;
  [[nodiscard]] virtual const Viewport& viewport() const = 0;

  virtual Result<Screenshot> screenshot(const ScreenshotOptions& options = {}) = 0;

  // Streams the tab to `sink`: a frame after each change on screen, none while nothing changes. It follows the Tab
  // to the tabs it moves to and to a relaunched browser, until stop_screencast(); a new sink replaces the old. Both
  // are safe to call from any thread (a watcher arrives whenever it likes); nothing is sent to a dead browser.
  virtual void start_screencast(FrameSink sink, const ScreencastOptions& options = {}) = 0;
  virtual void stop_screencast() = 0;

  // Trusted input: the browser's own input events, event.isTrusted is true in the page.
  // `clicks` 2 is a double click (two clicks, the second with clickCount 2: dblclick fires); the right button
  // opens the page's own context menu (contextmenu fires).
  virtual Status click(Point point, MouseButton button = MouseButton::Left, int clicks = 1) = 0;
  // The pointer moves there and rests (mouseover, mouseenter, mousemove: hover menus open).
  virtual Status move_mouse(Point point) = 0;
  // The wheel turned over `point` by (dx, dy) CSS px: whatever scrolls under it scrolls, as for a person.
  virtual Status wheel(Point point, double dx, double dy) = 0;
  // Press at `from`, move in `steps` to `to`, release: mouse-event drags (sortable lists, sliders, canvas
  // drawing). When the page starts an HTML5 drag (dragstart not prevented), it goes on as one: dragenter,
  // dragover along the way and drop at `to`, with the data the page put on the drag.
  // Returns whether it was an HTML5 drag.
  virtual Result<bool> drag(Point from, Point to, int steps = 10) = 0;
  virtual Status type_text(std::string_view text, Typing how = Typing::Keys) = 0;
  virtual Status press_key(Key key) = 0;
  // The modifiers go down, the key is pressed and released, the modifiers come up, as a person's fingers do.
  virtual Status press(const KeyPress& keys) = 0;
  virtual Status scroll(ScrollDirection direction) = 0;
  // How many documents the main frame has committed, and tabs the Tab moved to: an action that changes it
  // navigated.
  [[nodiscard]] virtual std::uint64_t page_generation() const = 0;

  // Clicks `point` as a person opening a file dialog would (an <input type=file>, its label, a button that
  // opens one) and answers the dialog with `files` (paths on this machine) instead of showing it. NotFound
  // when no file chooser opens within `cap`; InvalidArgument for several files where the input takes one.
  virtual Status click_to_choose_files(Point point, const std::vector<std::string>& files, milliseconds cap) = 0;

  // The open tabs, in the order they opened (a link with target=_blank or window.open adds one, and the Tab
  // moves to it), each with its address and title as the browser has them now.
  virtual Result<std::vector<PageSummary>> pages() = 0;
  // How many tabs are open (the new ones followed first), without asking each for its address and title.
  virtual std::size_t page_count() = 0;
  // Works in tab `number` (as pages() numbers them) from now on.
  virtual Status switch_page(int number) = 0;
  // Closes the tab worked in and goes back to the one worked in before it. Refused for the last tab.
  virtual Status close_page() = 0;

  virtual Result<PageInfo> page_info() = 0;  // the page's address and title, in one question to the browser
  Result<std::string> url();
  Result<std::string> title();
  // The main frame's address as the browser last reported it (for an error page, the address that failed),
  // without asking: it is there after the browser has died.
  [[nodiscard]] virtual std::string last_url() const = 0;

  // Evaluates an expression in this tab's isolated world (page scripts cannot see or change its globals),
  // awaiting a promise and returning the value as JSON. A thrown exception is an ErrorKind::Protocol error.
  virtual Result<Json> evaluate(std::string_view expression) = 0;
  // The same, in the main world of the page.
  virtual Result<Json> evaluate_in_page(std::string_view expression) = 0;
  // The same in the isolated world of an out-of-process child frame.
  virtual Result<Json> evaluate_in_frame(const ChildFrame& frame, std::string_view expression) = 0;
  // The same in that frame's own world (what a ScriptWorld::Page preload left there).
  virtual Result<Json> evaluate_in_frame_page(const ChildFrame& frame, std::string_view expression) = 0;
  // Runs `source` in every document the tab loads from now on, in every frame, once: in that isolated world (as the
  // document is created in the full Chromium, when the world is first used in chromium-headless-shell, so after
  // anything the first evaluate installed: a script that defines a library keeps one it finds), or in the page's own
  // world (ScriptWorld::Page: what must see the page's globals, such as autoconsent).
  // Registered once per `name`; the current documents are left as they are.
  virtual Status preload(std::string_view name, const std::string& source, ScriptWorld world) = 0;
  [[nodiscard]] virtual std::vector<ChildFrame> child_frames() const = 0;
  // Where the out-of-process frame `frame_id` sits in the main viewport (through nested ones too).
  virtual Result<FrameBox> frame_box(std::string_view frame_id) = 0;
  // Scrolls that frame's owner <iframe> into the main viewport.
  virtual Status scroll_frame_into_view(std::string_view frame_id) = 0;

  // Evaluates in the page's main world (of the main frame, or of an out-of-process child frame) with
  // the browser's command-line API in scope (getEventListeners sees the listeners page scripts added).
  virtual Result<Json> evaluate_with_command_line_api(std::string_view expression,
                                                      const ChildFrame* frame = nullptr) = 0;
  // For each element of the array `elements` evaluates to in that main world: the event types it has
  // listeners for (empty for an entry that is not an element).
  virtual Result<std::vector<std::vector<std::string>>> listener_types(std::string_view elements,
                                                                       const ChildFrame* frame = nullptr) = 0;
  // The elements of the document (the main frame's with its same-process frames, or an out-of-process child frame's)
  // that the page's scripts gave a click listener of their own (click, mousedown or mouseup; an onclick property), in
  // one question for the whole document, as a JSON array of the paths the hint library reads (element indexes, -1
  // into an open shadow root, -2 into a frame's document).
  virtual Result<Json> click_listening(const ChildFrame* frame = nullptr) = 0;

  // Navigations the filter refused since the last call.
  virtual std::vector<BlockedNavigation> take_blocked() = 0;
  // After a refused navigation Chromium shows its error page; this returns to the page before it.
  virtual Status leave_error_page() = 0;

  // Dialogs opened since the last call, each closed at once so the page could go on: as answer_dialogs says, or by
  // default alerts and leave-page questions accepted, confirm and prompt declined.
  virtual std::vector<Dialog> take_dialogs() = 0;
  // How confirm, prompt and leave-page dialogs opened from now on are answered; nothing: the default again.
  virtual void answer_dialogs(std::optional<DialogAnswer> answer) = 0;

  // Documents that asked for HTTP authentication since the last call, and what they got.
  virtual std::vector<AuthChallenge> take_auth_challenges() = 0;

  // Downloads that began since the last call, once each has ended or `cap` has passed.
  virtual std::vector<Download> take_downloads(milliseconds cap) = 0;

  // The renderer of the page died: the browser shows its error page until the tab
  // loads something again (reload() or navigate()).
  [[nodiscard]] virtual bool crashed() const = 0;

  // Starts a local Chromium that has died again, with the same command line (so a --user-data-dir profile
  // and its logins survive; a temporary profile starts empty), on a blank page. Unsupported for a tab in
  // a remote browser.
  virtual Status relaunch() = 0;

  [[nodiscard]] virtual bool alive() const = 0;
  // Why the browser's connection ended ("the browser exited with code 1", ...); empty while it is alive.
  [[nodiscard]] virtual std::string closed_reason() const = 0;
  // The local Chromium's process id (0 for a remote browser).
  [[nodiscard]] virtual int browser_pid() const = 0;
  // Ends the browser (local) or closes the tab (remote).
  virtual void close() = 0;

 protected:
  Tab() = default;
};

}  // namespace vimgpt::browser
