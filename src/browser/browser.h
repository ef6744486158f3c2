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

#include "cdp/cdp.h"
#include "common/encoded_image.h"
#include "common/result.h"

namespace vimgpt::browser {

using cdp::Json;
using std::chrono::milliseconds;

struct Viewport {
  int width = 1080;  // the original vimGPT's window
  int height = 720;
  double device_scale_factor = 1.0;
};

using vimgpt::ImageFormat;  // common/encoded_image.h

struct ScreenshotOptions {
  ImageFormat format = ImageFormat::Png;
  int quality = 80;    // JPEG and WebP only
  double scale = 1.0;  // Chromium scales at capture time (clip.scale): no decode and re-encode here
};

// A frame as Chromium encoded it: its format and size read from its header.
using Screenshot = EncodedImage;

// The tab streamed as it repaints (Page.startScreencast): JPEG frames, only while someone watches.
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
// Modifier bits as DevTools numbers them (Input.dispatchKeyEvent's `modifiers`).
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

enum class ScrollDirection { Down, Up };

// Chromium's kinds of JavaScript dialog (Page.DialogType).
enum class DialogType { Alert, Confirm, Prompt, BeforeUnload };
std::string_view to_string(DialogType type);  // "alert", "confirm", "prompt", "beforeunload"

struct Dialog {
  DialogType type = DialogType::Alert;
  std::string message;
  std::string url;
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

// A download's state (Browser.downloadProgress); InProgress also when the wait for it ended first.
enum class DownloadState { InProgress, Completed, Canceled };
std::string_view to_string(DownloadState state);  // "inProgress", "completed", "canceled"

struct Download {
  std::string url;
  std::string file;        // where it was saved (empty when it did not complete)
  std::int64_t bytes = 0;  // received so far
  DownloadState state = DownloadState::InProgress;
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
};

// A frame the page runs out of process (a cross-origin iframe), reached through its own flattened session.
struct ChildFrame {
  std::string session_id;
  std::string frame_id;
  std::string url;
};

class Tab {
 public:
  // Launches a local Chromium and opens its first tab.
  static Result<std::unique_ptr<Tab>> launch(const cdp::LaunchOptions& launch, const TabOptions& options = {});
  // Opens a tab on an existing connection (a remote browser).
  static Result<std::unique_ptr<Tab>> open(const std::shared_ptr<cdp::Connection>& connection,
                                           const TabOptions& options = {});
  struct Impl;
  ~Tab();
  Tab(const Tab&) = delete;
  Tab& operator=(const Tab&) = delete;

  // Loads the URL and waits until it has settled: this navigation's load event, then network-almost-idle,
  // each capped. A failed load (refused connection, bad host) is an ErrorKind::Navigation error.
  Status navigate(std::string_view url);
  Status go_back();
  Status reload();

  // After an action: if a navigation started, wait for it like navigate(); otherwise wait until the DOM has
  // had no mutations for `quiet`, at most `cap`. SettleWait says which windows are left to the caller.
  Status settle(milliseconds cap, milliseconds quiet = milliseconds{150}, SettleWait wait = SettleWait::Close);
  // The DOM-quiet window the last settle(..., LeaveOpen) left open, if any; taking it forgets it.
  std::optional<DomWindow> take_dom_window();
  [[nodiscard]] NetworkState network_state() const;
  // Until the network-quiet window has passed, at most the settle idle cap.
  void wait_network_quiet();

  Status set_viewport(const Viewport& viewport);
  [[nodiscard]] const Viewport& viewport() const;

  Result<Screenshot> screenshot(const ScreenshotOptions& options = {});

  // Streams the tab to `sink`: a frame after each change on screen, none while nothing changes. It follows the Tab
  // to the tabs it moves to and to a relaunched browser, until stop_screencast(); a new sink replaces the old. Both
  // are safe to call from any thread (a watcher arrives whenever it likes); nothing is sent to a dead browser.
  void start_screencast(FrameSink sink, const ScreencastOptions& options = {});
  void stop_screencast();

  // Trusted input: real Input.dispatch* events, event.isTrusted is true in the page.
  // `clicks` 2 is a double click (two clicks, the second with clickCount 2: dblclick fires); the right button
  // opens the page's own context menu (contextmenu fires).
  Status click(Point point, MouseButton button = MouseButton::Left, int clicks = 1);
  // The pointer moves there and rests (mouseover, mouseenter, mousemove: hover menus open).
  Status move_mouse(Point point);
  // The wheel turned over `point` by (dx, dy) CSS px: whatever scrolls under it scrolls, as for a person.
  Status wheel(Point point, double dx, double dy);
  // Press at `from`, move in `steps` to `to`, release: mouse-event drags (sortable lists, sliders, canvas
  // drawing). When the page starts an HTML5 drag (dragstart not prevented), it goes on as one: dragenter,
  // dragover along the way and drop at `to`, with the data the page put on the drag (Input.setInterceptDrags).
  // Returns whether it was an HTML5 drag.
  Result<bool> drag(Point from, Point to, int steps = 10);
  Status type_text(std::string_view text);
  Status press_key(Key key);
  // The modifiers go down, the key is pressed and released, the modifiers come up, as a person's fingers do.
  Status press(const KeyPress& keys);
  Status scroll(ScrollDirection direction);
  // How many documents the main frame has committed, and tabs the Tab moved to: an action that changes it
  // navigated.
  [[nodiscard]] std::uint64_t page_generation() const;

  // Clicks `point` as a person opening a file dialog would (an <input type=file>, its label, a button that
  // opens one) and answers the dialog with `files` (paths on this machine) instead of showing it. NotFound
  // when no file chooser opens within `cap`; InvalidArgument for several files where the input takes one.
  Status click_to_choose_files(Point point, const std::vector<std::string>& files, milliseconds cap);

  // The open tabs, in the order they opened (a link with target=_blank or window.open adds one, and the Tab
  // moves to it). Asking costs a round trip only when there is more than one.
  Result<std::vector<PageSummary>> pages();
  // Works in tab `number` (as pages() numbers them) from now on.
  Status switch_page(int number);
  // Closes the tab worked in and goes back to the one worked in before it. Refused for the last tab.
  Status close_page();

  Result<std::string> url();
  Result<std::string> title();
  Result<PageInfo> page_info();  // both, in one question to the browser
  // The main frame's address as the browser last reported it (for an error page, the address that failed),
  // without asking: it is there after the browser has died.
  [[nodiscard]] std::string last_url() const;

  // Evaluates an expression in this tab's isolated world (page scripts cannot see or change its globals),
  // awaiting a promise and returning the value as JSON. A thrown exception is an ErrorKind::Protocol error.
  Result<Json> evaluate(std::string_view expression);
  // The same, in the main world of the page.
  Result<Json> evaluate_in_page(std::string_view expression);
  // The same in the isolated world of an out-of-process child frame.
  Result<Json> evaluate_in_frame(const ChildFrame& frame, std::string_view expression);
  // Runs `source` in that isolated world of every document the tab loads from now on, in every frame, once:
  // as the document is created in the full Chromium, when the world is first used in chromium-headless-shell
  // (so after anything the first evaluate installed: a script that defines a library keeps one it finds).
  // Registered once per `name`; the current documents are left as they are.
  Status preload(std::string_view name, const std::string& source);
  [[nodiscard]] std::vector<ChildFrame> child_frames() const;
  // Where the out-of-process frame `frame_id` sits in the main viewport (through nested ones too).
  Result<FrameBox> frame_box(std::string_view frame_id);
  // Scrolls that frame's owner <iframe> into the main viewport.
  Status scroll_frame_into_view(std::string_view frame_id);

  // Evaluates in the page's main world (of the main frame, or of an out-of-process child frame) with
  // DevTools' command-line API in scope (getEventListeners sees the listeners page scripts added).
  Result<Json> evaluate_with_command_line_api(std::string_view expression, const ChildFrame* frame = nullptr);
  // For each element of the array `elements` evaluates to in that main world: the event types it has
  // listeners for (empty for an entry that is not an element).
  Result<std::vector<std::vector<std::string>>> listener_types(std::string_view elements,
                                                               const ChildFrame* frame = nullptr);

  // Navigations the filter refused since the last call.
  std::vector<BlockedNavigation> take_blocked();
  // After a refused navigation Chromium shows its error page; this returns to the page before it.
  Status leave_error_page();

  // Dialogs opened since the last call; each was dismissed (alert accepted) so the page could go on.
  std::vector<Dialog> take_dialogs();

  // Downloads that began since the last call, once each has ended or `cap` has passed.
  std::vector<Download> take_downloads(milliseconds cap);

  // The renderer of the page died (Inspector.targetCrashed): Chromium shows its error page until the tab
  // loads something again (reload() or navigate()).
  [[nodiscard]] bool crashed() const;

  // Starts a local Chromium that has died again, with the same command line (so a --user-data-dir profile
  // and its logins survive; a temporary profile starts empty), on a blank page. Unsupported for a tab in
  // a remote browser.
  Status relaunch();

  // For tests and diagnostics that speak DevTools themselves (a crash to inject, an event to watch); the
  // modules use the calls above, and lint keeps DevTools methods out of them.
  cdp::Connection& connection();
  [[nodiscard]] std::string session_id() const;
  [[nodiscard]] bool alive() const;
  // Why the browser's connection ended ("the browser exited with code 1", ...); empty while it is alive.
  [[nodiscard]] std::string closed_reason() const;
  // The local Chromium's process id (0 for a remote browser).
  [[nodiscard]] int browser_pid() const;
  // Ends the browser (local) or closes the tab (remote).
  void close();

 private:
  explicit Tab(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace vimgpt::browser
