// Trusted input on Firefox: input.performActions, a pointer, a wheel and a keyboard as WebDriver describes them
// (https://w3c.github.io/webdriver/#actions).
#include <cmath>

#include "browser/bidi/state.h"
#include "common/base64.h"
#include "common/pixels.h"

namespace vimgpt::browser {

using bidi::kSandbox;

namespace {
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

Json pointer(Json actions) {
  return {{"type", "pointer"}, {"id", "mouse"}, {"parameters", {{"pointerType", "mouse"}}}, {"actions", actions}};
}

// At the pixel holding the point: Firefox gives the page whole-pixel coordinates, rounded (a point on an element's
// middle line, x.5, would land below it).
Json move_to(Point point) {
  return {{"type", "pointerMove"}, {"x", std::floor(point.x)}, {"y", std::floor(point.y)}, {"origin", "viewport"}};
}

int button_number(MouseButton button) {
  return button == MouseButton::Right ? 2 : button == MouseButton::Middle ? 1 : 0;
}

}  // namespace

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

namespace {

// Headless Firefox on Linux has no drag service (EventUtils.js: "the drag service may be never instantiated"): a drag
// the page starts (a dragstart it does not prevent) never reaches a drop. The isolated world keeps the data the page
// gave the drag and, when no drop came, ends the drag where the pointer let go as a browser would: dragenter and
// dragover there, drop if the page accepted it (prevented the dragover), dragend on the source. Those events are the
// page's own kind (untrusted); a drag run on mouse events needs none of this.
constexpr std::string_view kWatchDrag =
    "(() => { const d = globalThis.__vimgptDrag = {started: false, dropped: false, data: {}, source: null};"
    " d.onstart = (e) => { if (e.defaultPrevented) return; d.started = true; d.source = e.target;"
    " for (const type of e.dataTransfer.types) d.data[type] = e.dataTransfer.getData(type); };"
    " d.ondrop = () => { d.dropped = true; };"
    " addEventListener('dragstart', d.onstart); addEventListener('drop', d.ondrop, {capture: true}); return true; })()";

std::string end_drag(Point at) {
  const std::string x = std::to_string(at.x), y = std::to_string(at.y);
  return "(() => { const d = globalThis.__vimgptDrag; if (!d) return false; globalThis.__vimgptDrag = undefined;"
         " removeEventListener('dragstart', d.onstart); removeEventListener('drop', d.ondrop, {capture: true});"
         " if (!d.started) return false; if (d.dropped) return true;"
         " const data = new DataTransfer(); for (const [type, value] of Object.entries(d.data)) data.setData(type, "
         "value);"
         " const init = {bubbles: true, cancelable: true, composed: true, clientX: " +
         x + ", clientY: " + y +
         ", dataTransfer: data};"
         " const target = document.elementFromPoint(" +
         x + ", " + y +
         ");"
         " let accepted = false;"
         " if (target) { target.dispatchEvent(new DragEvent('dragenter', init));"
         " accepted = !target.dispatchEvent(new DragEvent('dragover', init));"
         " if (accepted) target.dispatchEvent(new DragEvent('drop', init)); }"
         " if (d.source && d.source.isConnected) d.source.dispatchEvent(new DragEvent('dragend', {...init, cancelable: "
         "false}));"
         " return accepted; })()";
}

}  // namespace

Result<bool> BidiTab::drag(Point from, Point to, int steps) {
  VIMGPT_TRY_VOID(inside(from, s_->options.viewport));
  VIMGPT_TRY_VOID(inside(to, s_->options.viewport));
  VIMGPT_TRY(Json watching, evaluate(kWatchDrag));
  (void)watching;
  Json moves = Json::array({move_to(from), {{"type", "pointerDown"}, {"button", 0}}});
  const int count = std::max(steps, 1);
  for (int i = 1; i <= count; ++i) {
    const double t = static_cast<double>(i) / count;
    moves.push_back(move_to({from.x + (to.x - from.x) * t, from.y + (to.y - from.y) * t}));
  }
  moves.push_back({{"type", "pointerUp"}, {"button", 0}});
  VIMGPT_TRY_VOID(s_->perform(Json::array({pointer(moves)})));
  VIMGPT_TRY(Json dropped, evaluate(end_drag(to)));
  return dropped == true;
}

// Firefox dispatches a key action in the document of the context it is given: keys for a field in a frame of another
// process (a cross-origin frame) given the page's context reach its <iframe> element there and go nowhere (seen on
// Firefox ESR 153: the field stayed empty). So keys go to the context whose document holds the focus, found by
// following the focused <iframe> down, whose contentWindow BiDi serializes as its context.
// A context whose document cannot be asked (an error page, a crashed one) keeps the keys.
std::string BidiTab::State::key_context() {
  constexpr std::string_view kFocusedFrame =
      "(() => { const e = document.activeElement;"
      " return e && (e.localName === 'iframe' || e.localName === 'frame') ? e.contentWindow : null; })()";
  std::string at = current();
  for (int depth = 0; depth < 16; ++depth) {  // frames nest a few deep; a cycle cannot, but a bound costs nothing
    auto answer = call("script.evaluate", {{"expression", kFocusedFrame},
                                           {"target", {{"context", at}, {"sandbox", kSandbox}}},
                                           {"awaitPromise", false},
                                           {"resultOwnership", "none"}});
    if (!answer) return at;
    const Json& window = (*answer)["result"];
    if (window.value("type", "") != "window") return at;
    const std::string inner = window["value"].value("context", "");
    if (inner.empty()) return at;
    at = inner;
  }
  return at;
}

// WebDriver BiDi has no insertText: both ways of typing are key presses, in one input.performActions.
Status BidiTab::type_text(std::string_view text, Typing /*how*/) {
  Json keys = Json::array();
  for (const auto& point : code_points(text)) {
    if (point == "\r") continue;  // of a CRLF: the newline is the Enter
    const std::string value = point == "\n" ? key_value("Enter") : point == "\t" ? key_value("Tab") : point;
    keys.push_back({{"type", "keyDown"}, {"value", value}});
    keys.push_back({{"type", "keyUp"}, {"value", value}});
  }
  const std::string focused = s_->key_context();
  return s_->perform(Json::array({{{"type", "key"}, {"id", "keyboard"}, {"actions", keys}}}), focused);
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
    up.insert(up.begin(), Json{{"type", "keyUp"}, {"value", key_value(name)}});  // a braced list would insert two
  }
  Json actions = down;
  actions.push_back({{"type", "keyDown"}, {"value", key_value(keys.key)}});
  actions.push_back({{"type", "keyUp"}, {"value", key_value(keys.key)}});
  for (auto& one : up) actions.push_back(std::move(one));
  const std::string focused = s_->key_context();
  return s_->perform(Json::array({{{"type", "key"}, {"id", "keyboard"}, {"actions", actions}}}), focused);
}

// BiDi captures at the viewport's size only: a scaled frame (the agent's, at the model's width) is scaled here, from a
// capture fine enough (JPEG at 90 or better) that its second encoding loses nothing a model or a person would see.
Result<Screenshot> BidiTab::screenshot(const ScreenshotOptions& options) {
  if (options.format != ImageFormat::Jpeg && options.format != ImageFormat::Png) {
    return fail(ErrorKind::Unsupported, "Firefox captures PNG or JPEG only");
  }
  VIMGPT_TRY_VOID(valid_screenshot(options));
  const bool scaled = options.scale != 1.0;
  const int quality = std::clamp(scaled ? std::max(options.quality, 90) : options.quality, 1, 100);
  Json format = {{"type", options.format == ImageFormat::Jpeg ? "image/jpeg" : "image/png"}};
  if (options.format == ImageFormat::Jpeg) format["quality"] = quality / 100.0;
  Json params = {{"context", s_->current()}, {"origin", "viewport"}, {"format", format}};
  if (const auto& box = options.region) {
    params["clip"] = {{"type", "box"}, {"x", box->x}, {"y", box->y}, {"width", box->width}, {"height", box->height}};
  }
  VIMGPT_TRY(Json shot, s_->call("browsingContext.captureScreenshot", std::move(params)));
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

Status BidiTab::scroll(ScrollDirection direction) {
  return scroll_by_script(*this, direction);
}

Result<PageInfo> BidiTab::page_info() {
  s_->follow_new_tabs();
  VIMGPT_TRY(Json info, evaluate("({url: location.href, title: document.title})"));
  return PageInfo{info.value("url", ""), info.value("title", "")};
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

Result<Json> BidiTab::evaluate_in_frame_page(const ChildFrame& frame, std::string_view expression) {
  return s_->evaluate({{"context", frame.frame_id}}, expression);
}

Status BidiTab::preload(std::string_view name, const std::string& source, ScriptWorld world) {
  if (!s_->preloaded.insert(std::string(name)).second) return ok();
  // In the isolated world, run by an indirect eval, so the library's top-level declarations are the realm's globals,
  // as on Chromium; in the page's world as the function's body, where the page's content security policy may forbid
  // eval (such a script keeps to itself anyway).
  Json script;
  if (world == ScriptWorld::Isolated) {
    script = {{"functionDeclaration", "() => { (0, eval)(" + Json(source).dump() + "); }"}, {"sandbox", kSandbox}};
  } else {
    script = {{"functionDeclaration", "() => {\n" + source + "\n}"}};
  }
  VIMGPT_TRY_VOID(s_->call("script.addPreloadScript", s_->in_user_context(std::move(script))));
  return ok();
}

}  // namespace vimgpt::browser
