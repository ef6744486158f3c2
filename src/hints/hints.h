// Link hints: finding the clickable elements of a page (Vimium's rules and more), giving them Vimium's
// labels, drawing the labels (in the page, or onto the captured frame), and acting on a label the model
// names. Vimium reference: https://github.com/philc/vimium/blob/master/content_scripts/link_hints.js
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "browser/browser.h"
#include "common/result.h"

namespace vimgpt::hints {

// ---- Labels -------------------------------------------------------------------------------------------

// Vimium's default linkHintCharacters.
inline constexpr std::string_view kAlphabet = "sadfjklewcmpgh";

// Vimium's AlphabetHints.hintStrings: `count` lowercase labels, none a prefix of another, short ones
// spread through the list. Empty when count is 0 or the alphabet has fewer than two characters.
std::vector<std::string> label_strings(std::size_t count, std::string_view alphabet = kAlphabet);

// Letters: Vimium's labels. Numbers: 0, 1, 2, ... in the hints' order, the set-of-marks labels web agents trained
// on WebVoyager's screenshots read (GLM-V's web mode).
enum class LabelStyle { Letters, Numbers };
std::vector<std::string> label_strings(std::size_t count, LabelStyle style);

// What a model wrote for a label ("[AB]", " 'ab' ", "\"Ab\"") as the lowercase label it names.
std::string normalize_label(std::string_view reply);

// ---- The hint map -------------------------------------------------------------------------------------

struct Rect {
  double x = 0;  // viewport CSS pixels of the main frame
  double y = 0;
  double width = 0;
  double height = 0;
};

// Why an element got a hint: Vimium's own rules, or the ones we add on top. The hint library reports these
// values as numbers (src/hints/js/rules.js: RULE, CLASSNAME, ...), in this order.
enum class Reason {
  Rule,           // Vimium's clickable rules (tags, roles, onclick, contenteditable, jsaction, ng-click, ...)
  ClassName,      // class contains "button"/"btn", kept because no nearby hinted descendant covers it
  Scrollable,     // a scrollable div/ol/ul
  TabIndex,       // tabindex >= 0
  CursorPointer,  // styled cursor: pointer with its own text or image
  ClickListener,  // a click listener of its own, found in the page's world (the engine's listener lookup)
  // Beyond Vimium too: what a person would click that Vimium's rules leave out.
  Opens,      // says it opens something (aria-haspopup, aria-expanded, aria-pressed, a Bootstrap toggle), or a
              // read-only field that opens what fills it (a date picker)
  Delegated,  // a click listener on an ancestor acts for it: one of several alike children of the element that
              // listens (a row, a toolbar button: a handler delegated from their parent), or that element itself
};
std::string_view to_string(Reason reason);

// Whether a form field holds a value, for the model ("the search box is empty").
enum class FieldValue { NotAField, Empty, Filled };

struct Hint {
  std::string label;  // uppercase, as drawn
  Rect rect;          // the visible part of the element (Vimium's first client rect, cropped to the viewport)
  std::string tag;    // lowercase tag name
  std::string role;   // explicit role, else the implicit one ("link", "button", "textbox", ...), else "generic"
  std::string text;   // accessible name or visible text, whitespace collapsed, at most 80 characters
  std::string href;
  std::string input_type;  // form fields only
  std::string placeholder;
  std::string name;
  FieldValue value = FieldValue::NotAField;
  Reason reason = Reason::Rule;
  std::string frame_url;  // empty: the main frame's document (same-origin iframes included)

  // Where the element lives, for acting on it: the out-of-process frame's session (empty for the main
  // frame) and its index in that frame's per-pass element array.
  std::string frame_session;
  std::string frame_id;
  int index = 0;
};

// One hint as HintMap::to_json writes it.
browser::Json to_json(const Hint& hint);
// One hint as HintMap::to_text writes it, without the line's end.
std::string to_text(const Hint& hint, std::string_view page_url = {});
// A link's target as short as it can be and still say where it goes, beside the page at `page_url`: on the page's own
// origin its path, query and fragment ("/item/64?ref=top"), and to the page itself its fragment ("#reviews"); on
// another site that site, without scheme or "www." ("facebook.com", "127.0.0.1:81"); another scheme (mailto:), or no
// page given, the whole address. On a small site absolute same-origin targets were about 45% of a look's text.
std::string link_target(std::string_view href, std::string_view page_url);
// `query`'s words, split at whitespace, ASCII case folded (HintMap::search; words_in).
std::vector<std::string> search_words(std::string_view query);
// How many of `words` begin a word of `text` (ASCII case folded).
std::size_t words_in(const std::vector<std::string>& words, std::string_view text);

class HintMap {
 public:
  HintMap() = default;
  HintMap(std::uint64_t pass, std::vector<Hint> hints, double viewport_width = 0, double viewport_height = 0);

  [[nodiscard]] const std::vector<Hint>& hints() const { return hints_; }
  [[nodiscard]] std::size_t size() const { return hints_.size(); }
  [[nodiscard]] bool empty() const { return hints_.empty(); }
  // The pass that produced this map; acting on it after a newer pass is refused (the elements changed).
  [[nodiscard]] std::uint64_t pass() const { return pass_; }
  // The CSS viewport the rects are in (the page's innerWidth/innerHeight at the pass).
  [[nodiscard]] double viewport_width() const { return viewport_width_; }
  [[nodiscard]] double viewport_height() const { return viewport_height_; }
  // How far down the viewport the page's content reaches, in CSS px (below it is the page's background alone); the
  // viewport's height when the content fills it, 0 when the pass did not read it.
  [[nodiscard]] double content_height() const { return content_height_; }
  void set_content_height(double height) { content_height_ = height; }

  // The hint a model's reply names (normalize_label rules), or nullptr.
  [[nodiscard]] const Hint* find(std::string_view label) const;
  // The innermost hint whose rect holds the point (viewport CSS pixels): a button inside a clickable card is what a
  // point on it means. nullptr when none does.
  [[nodiscard]] const Hint* at(double x, double y) const;
  // Existing labels closest to `label` (edit distance, then alphabetical), at most `limit`, uppercase.
  [[nodiscard]] std::vector<std::string> near(std::string_view label, std::size_t limit = 5) const;

  // [{"label":"A","rect":{x,y,width,height},"tag","role","text","href", form fields: "type",
  //   "placeholder","name","empty"; "frame" when not the main frame; "reason" when not a Vimium rule}]
  [[nodiscard]] browser::Json to_json() const;
  // One line per hint for a hybrid prompt: `[A] link "Home" -> /index.html`, link targets written short beside the
  // page at `page_url` (link_target; empty: whole addresses), a list's alike targets left out; the first `limit`
  // hints (0: all).
  [[nodiscard]] std::string to_text(std::string_view page_url = {}, std::size_t limit = 0) const;
  // The hints whose role, type, name, placeholder, field name or link target hold words of `query` (where a word
  // of theirs begins, ASCII case folded): those holding every word when any does (only those showing every word,
  // not in their link target, when any does), else those holding the most first, words shown before words in the
  // link target; in label order among equals; at most `limit`.
  [[nodiscard]] std::vector<const Hint*> search(std::string_view query, std::size_t limit) const;

  // A fingerprint of what can change on the page while the labels stay the same (scroll positions of the page and
  // of labelled elements, field values, checked, expanded and open states): equal maps with equal states saw the
  // same page. Empty when the pass did not read it.
  [[nodiscard]] const std::string& state() const { return state_; }
  void set_state(std::string state) { state_ = std::move(state); }

  // Where fields holding a typed secret are on screen (see mark_secret_field): painted over in frames.
  [[nodiscard]] const std::vector<Rect>& redactions() const { return redactions_; }
  void set_redactions(std::vector<Rect> rects) { redactions_ = std::move(rects); }

 private:
  std::uint64_t pass_ = 0;
  std::vector<Hint> hints_;
  std::vector<Rect> redactions_;
  std::string state_;
  double viewport_width_ = 0;
  double viewport_height_ = 0;
  double content_height_ = 0;
};

// ---- Finding and capturing ----------------------------------------------------------------------------

// Asking CDP for click listeners costs one round trip per element, so only doubtful candidates are
// probed, and at most `max_listener_probes` of them.
enum class ListenerProbe { Off, Doubtful };
// Which elements get labels: Vimium's set and what a person would click beyond it (Reason's CursorPointer onwards,
// and the roles Vimium does not list), or exactly Vimium's (--hints vimium).
enum class HintRules { Vimgpt, Vimium };
std::string_view to_string(HintRules rules);  // "vimgpt", "vimium"
Result<HintRules> parse_hint_rules(std::string_view name);
enum class CrossOriginFrames { Skip, Include };

struct FindOptions {
  HintRules rules = HintRules::Vimgpt;
  ListenerProbe listeners = ListenerProbe::Doubtful;  // Vimium's rules probe nothing
  int max_listener_probes = 32;
  CrossOriginFrames frames = CrossOriginFrames::Include;
  LabelStyle labels = LabelStyle::Letters;
  // Start watching the main document for changes in the same call (a capture taken in a quiet window).
  bool watch = false;
};

// Finds, labels and remembers (in the isolated world, per pass) the clickable elements in the viewport.
Result<HintMap> find_hints(browser::Tab& tab, const FindOptions& options = {});

enum class DrawMode {
  Overlay,     // markers drawn in the page (top layer, closed shadow root), removed after the capture
  Image,       // the page is untouched; labels are drawn onto the captured frame
  BothFrames,  // one capture, two images: clean and labelled (drawn as in Image)
  // Nothing drawn: the frame as the page shows it (--mode computer-use, where a provider's tool names points, not
  // labels). The hints are still found, so a point is recorded with the element under it.
  Unlabelled,
};
std::string_view to_string(DrawMode mode);
Result<DrawMode> parse_draw_mode(std::string_view name);

struct CaptureOptions {
  DrawMode mode = DrawMode::Overlay;
  FindOptions find;
  // Png or Jpeg. In Image modes the labelled frame is encoded again in the same format.
  browser::ScreenshotOptions screenshot;
  std::string font_path;  // empty: DejaVu Sans Bold from fonts-dejavu-core
  // Label size against Vimium's (11 px bold at 100%). 0: Vimium's in a frame at full scale; in a frame
  // scaled down, kScaledLabelSize / scale, so a label is 1.2 times as many pixels tall in a 768-wide frame as
  // in the original's 1080-wide one (a label resampled to scale reads worse than one drawn at its size: at
  // 1.2, tesseract reads at least as many as of the original's; tests/browser/legibility_test.cpp).
  double label_scale = 0;
  // The frame ends a little below where the page's content does (HintMap::content_height), when that is above the
  // viewport's bottom: a short page's background costs a model's image tokens and shows nothing. Anchored at the top,
  // so a point in the frame is where it was in the whole viewport's.
  bool crop_to_content = false;
  [[nodiscard]] double label_size() const;
};
inline constexpr double kScaledLabelSize = 1.2;

struct CaptureTimings {
  std::chrono::milliseconds find{0};        // finding and labelling the hints
  std::chrono::milliseconds screenshot{0};  // Chromium rendering and encoding the frame
  std::chrono::milliseconds draw{0};        // markers into the page and out again, or onto the frame
  std::chrono::milliseconds check{0};       // a capture in the quiet window: watching the page, waiting
                                            // for the window to close, asking whether the page changed
};

struct Capture {
  HintMap map;
  browser::Screenshot labelled;
  std::optional<browser::Screenshot> clean;  // BothFrames only
  CaptureTimings timings;                    // both passes' when retaken
  // Taken a second time: the first was taken in a quiet window and the page did not stay still.
  bool retaken = false;
};

// One hint pass: find, label, draw, screenshot. A page whose network-quiet or DOM-quiet window is still open
// (see browser::SettleWait::LeaveOpen) is captured at once; the capture is kept when no request started or
// ended and the document did not change before the windows closed, and taken again, once the page is quiet,
// otherwise.
Result<Capture> capture(browser::Tab& tab, const CaptureOptions& options = {});

// Draws the map's labels onto an encoded frame (PNG or JPEG) the way Vimium styles them, nudged apart so
// they do not cover each other, and encodes it again in the frame's format (JPEG at `jpeg_quality`). The
// scale comes from the frame's width over the map's viewport width.
Result<browser::Screenshot> draw_labels(const browser::Screenshot& frame, const HintMap& map,
                                        std::string_view font_path = {}, int jpeg_quality = 80, double label_scale = 1);

// Paints `rects` (viewport CSS px) solid black on an encoded PNG or JPEG frame and encodes it again.
Result<browser::Screenshot> redact(const browser::Screenshot& frame, const std::vector<Rect>& rects,
                                   double viewport_width, int jpeg_quality = 80);

// Marks the focused field (called before a secret is typed into it): from then on every capture paints its
// box over, so the value never reaches the model or a recording even when the page shows it.
Status mark_secret_field(browser::Tab& tab);

// Markers in the page (Overlay mode), for callers that take their own screenshot.
Status show_overlay(browser::Tab& tab, const HintMap& map, double label_scale = 1);
Status remove_overlay(browser::Tab& tab);

// ---- Acting on a label --------------------------------------------------------------------------------

enum class Effect {
  Clicked,         // trusted mouse click at `point`
  Focused,         // a text field or contenteditable: clicked, focused, caret at the end
  OptionsListed,   // a drop-down: a <select> focused, or an ARIA one clicked open; its options listed
  OptionSelected,  // select_option chose an option
  FilesChosen,     // upload_files answered a file chooser
};
std::string_view to_string(Effect effect);

struct SelectOption {
  std::string text;
  std::string value;
  bool selected = false;
  bool disabled = false;
};

struct ActionOutcome {
  Hint hint;
  Effect effect = Effect::Clicked;
  browser::Point point;               // where the click landed (main viewport CSS px)
  bool scrolled = false;              // the element had to be scrolled into view first
  std::vector<SelectOption> options;  // OptionsListed, OptionSelected
  std::string selected;               // OptionSelected: the chosen option's text
};

// Clicks the element `label` names (a model's reply, normalize_label rules) with trusted mouse events at a
// visible, unoccluded point, scrolling it into view first if needed. Unknown label: ErrorKind::NotFound
// naming the labels near it. Element gone since the pass: ErrorKind::NotFound asking for a new capture.
Result<ActionOutcome> click_label(browser::Tab& tab, const HintMap& map, std::string_view label);
// Chooses an option of a drop-down as typing its name into it would: the option whose text is exactly
// `option_text`, else the one equal to it ignoring case (or its value), else the only one that starts with
// it, else the only one that contains it. A <select> gets the option and its input and change events; an
// ARIA listbox or combobox (not one typed into) is clicked open if needed and the option clicked. No match,
// or several: NotFound listing the options.
Result<ActionOutcome> select_option(browser::Tab& tab, const HintMap& map, std::string_view label,
                                    std::string_view option_text);
// The same for the drop-down that has the focus (a {"type": ...} after clicking it).
Result<ActionOutcome> select_focused_option(browser::Tab& tab, std::string_view option_text);

enum class FocusKind {
  None,    // nothing to type into has the focus
  Text,    // a text field, a contenteditable element, or a frame whose document has the focus
  Choice,  // a drop-down (see select_option)
};
struct FocusedField {
  FocusKind kind = FocusKind::None;
  // The other visible, enabled, empty text-like inputs (text, email, password, tel, number, search, url) of
  // the focused field's form, by their label, aria-label, placeholder or name: Enter would submit them empty.
  std::vector<std::string> empty_fields;
};

// ---- Typing as a person types (typing.cpp) --------------------------------------------------------------

// Where typed keys go, read just before they are typed (what has the focus, and for a date-like field the keys that
// type `text` into it): from then on the document is watched, until finish_typing.
struct KeysTarget {
  FocusedField field;      // None: nothing has the focus, and the keys go to the page itself
  std::string input_type;  // a date-like input's type (date, time, datetime-local, month, week); else empty
  // A date-like input: the keys that type the text into it, segment by segment in the order its locale shows them,
  // and the value (ISO) they make. Empty when the text names no date or time of the field's kind.
  browser::Json segments;
  std::string date_value;
  browser::Json path;     // the focused element, for asking the page's own world who listens for its keys
  bool in_frame = false;  // the focus is in a cross-origin frame, whose document the page's world cannot read
  // That frame, found and watched in its own world; none when no frame could be told to hold the focus, and then
  // what the keys did there is not known.
  std::optional<browser::ChildFrame> frame;
  bool read_only = false;  // the focused element is a read-only or disabled field
};
Result<KeysTarget> start_typing(browser::Tab& tab, std::string_view text);

// The cross-origin frame whose document holds the focus and passes it to no frame of its own, if one does.
std::optional<browser::ChildFrame> focused_frame(browser::Tab& tab);

enum class TypedHow {
  Keys,      // a key press per character
  Segments,  // a date-like field: its segments' keys (KeysTarget::segments)
  AtOnce,    // one input event: nothing on the page listens for keys there, so nothing could tell the difference
};
// Types `text` where `target` says the keys go, as a person types it (keydown, keypress, beforeinput, input, keyup a
// character), except where provably the same at once (a long text into a field whose page listens for no key or
// input event on it, its ancestors, the document or the window).
Result<TypedHow> type_keys(browser::Tab& tab, const KeysTarget& target, std::string_view text);

// What the keys did, read after they (and any Enter) were typed.
struct TypingEffect {
  bool value_changed = false;  // the focused field's value or editable text
  bool page_changed = false;   // anything else in the document, or the page navigated
  bool focus_moved = false;    // the focus left the element typed into (a code box moving to the next)
  std::string date_value;      // a date-like input: its value now (ISO; empty when incomplete)
  bool set_by_script = false;  // a date-like input the keys did not fill: its value was set as a script sets it
};
// `generation` is tab.page_generation() from before the keys: a page that navigated meanwhile has changed.
Result<TypingEffect> finish_typing(browser::Tab& tab, const KeysTarget& target, std::uint64_t generation);

// The text the viewport shows (--observe text), one line per block, at most `max_chars` characters; a cut
// text ends with a line saying so. Field values are never included, so typed secrets cannot leak through it.
Result<std::string> visible_text(browser::Tab& tab, std::size_t max_chars);

// ---- Gestures beyond a click (gestures.cpp) -------------------------------------------------------------

struct PointedAt {
  Hint hint;
  browser::Point point;  // main-viewport CSS px: a visible point nothing covers
  bool scrolled = false;
};
// Where a person would point at the element `label` names, scrolled into view when needed (NotFound as
// click_label's).
Result<PointedAt> point_at(browser::Tab& tab, const HintMap& map, std::string_view label);
// The element clicked with `button`, `clicks` times (2: a double click), as a person would; no drop-down
// handling (that is click_label's).
Result<PointedAt> click_label_with(browser::Tab& tab, const HintMap& map, std::string_view label,
                                   browser::MouseButton button, int clicks);
// The pointer moves onto the element and rests there: hover menus and tooltips open.
Result<PointedAt> hover_label(browser::Tab& tab, const HintMap& map, std::string_view label);

struct ScrollOutcome {
  Hint hint;               // scroll_label's element
  std::string what;        // what scrolled, in words: its role and name, "the page"
  browser::Point point;    // where the wheel turned (main-viewport CSS px)
  double moved = 0;        // CSS px the element's content moved (negative: up)
  bool measurable = true;  // false for a cross-origin frame, whose position cannot be read from here
};
// The wheel turned over the element `label` names, by most of its height: a list, a panel or a frame scrolls as
// it would for a person. InvalidArgument when it does not scroll, or is already at its end.
Result<ScrollOutcome> scroll_label(browser::Tab& tab, const HintMap& map, std::string_view label,
                                   browser::ScrollDirection direction);
// The wheel turned at `point` (main-viewport CSS px), as a person's mouse there: the innermost element under it that
// can scroll that way scrolls, else the one holding it, else the page. Says which moved and by how much;
// InvalidArgument when nothing could.
Result<ScrollOutcome> scroll_at(browser::Tab& tab, browser::Point point, browser::ScrollDirection direction);

struct WordsSelected {
  std::string selected;  // what the page has selected now
  bool by_drag = true;   // false: the drag did not land on the words exactly, and the selection was put on them
};
// Selects the words as a person drags across them (mouse down before the first character, up after the last:
// mouse and selectionchange events fire), in the element `label` names or, with an empty label, anywhere in
// the page. NotFound when the words are not on the page.
Result<WordsSelected> select_words(browser::Tab& tab, const HintMap& map, std::string_view words,
                                   std::string_view label = {});

// Whether the element a hint names is still on the page, and still the one under its point (nothing opened
// over it): false when it is gone, covered or out of view.
Result<bool> still_in_view(browser::Tab& tab, const HintMap& map, const Hint& hint);

// Clicks the element `label` names so that it opens a file chooser (an <input type=file>, its <label>, a
// button that opens one) and answers it with `files`. NotFound when no chooser opens within `cap`.
Result<ActionOutcome> upload_files(browser::Tab& tab, const HintMap& map, std::string_view label,
                                   const std::vector<std::string>& files, std::chrono::milliseconds cap);

}  // namespace vimgpt::hints
