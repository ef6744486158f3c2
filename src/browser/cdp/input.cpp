// What a person does to a tab: look at it (screenshot), click, point, drag, type, scroll; and scripts. Keys are
// pressed in keys.cpp.
#include <algorithm>
#include <cmath>

#include "browser/cdp/state.h"
#include "common/base64.h"
#include "common/encoded_image.h"

namespace vimgpt::browser {

Result<Screenshot> CdpTab::screenshot(const ScreenshotOptions& options) {
  VIMGPT_TRY_VOID(impl_->follow_new_tabs());
  VIMGPT_TRY_VOID(valid_screenshot(options));
  // optimizeForSpeed: Chromium's fastest encoder settings; the frame is re-encoded or sent as is anyway.
  Json params = {{"format", to_string(options.format)}, {"captureBeyondViewport", false}, {"optimizeForSpeed", true}};
  if (options.format != ImageFormat::Png) params["quality"] = std::clamp(options.quality, 1, 100);
  if (options.scale != 1.0 || options.region) {
    // clip is in page coordinates: start it where the visual viewport is scrolled to.
    VIMGPT_TRY(Json metrics, impl_->call("Page.getLayoutMetrics"));
    const auto& visual = metrics["cssVisualViewport"];
    const ViewportBox whole{0, 0, visual.value("clientWidth", double(impl_->options.viewport.width)),
                            visual.value("clientHeight", double(impl_->options.viewport.height))};
    const ViewportBox box = options.region.value_or(whole);
    params["clip"] = {{"x", visual.value("pageX", 0.0) + box.x},
                      {"y", visual.value("pageY", 0.0) + box.y},
                      {"width", box.width},
                      {"height", box.height},
                      {"scale", options.scale}};
  }
  {
    std::scoped_lock lock(impl_->mutex);
    impl_->screenshot_pending = true;
  }
  auto result = impl_->call("Page.captureScreenshot", std::move(params));
  {
    std::scoped_lock lock(impl_->mutex);
    impl_->screenshot_pending = false;
  }
  if (!result) return result.failure();
  VIMGPT_TRY(std::string bytes, base64_decode(result->value("data", "")));
  auto shot = inspect_image(std::move(bytes));
  if (!shot) return fail(ErrorKind::Protocol, "Chromium returned a screenshot that is not a readable image");
  return shot;
}

namespace {

std::string_view button_name(MouseButton button) {
  switch (button) {
    case MouseButton::Left: return "left";
    case MouseButton::Right: return "right";
    case MouseButton::Middle: return "middle";
  }
  return "left";
}

int button_bit(MouseButton button) {
  return button == MouseButton::Left ? 1 : button == MouseButton::Right ? 2 : 4;
}

Json mouse(const char* type, Point point, int buttons = 0, MouseButton button = MouseButton::Left, int clicks = 0) {
  Json event = {{"type", type}, {"x", point.x}, {"y", point.y}, {"buttons", buttons}};
  if (clicks > 0) {
    event["button"] = button_name(button);
    event["clickCount"] = clicks;
  } else if (buttons != 0) {
    event["button"] = button_name(button);
  }
  return event;
}

}  // namespace

Status CdpTab::click(Point point, MouseButton button, int clicks) {
  VIMGPT_TRY_VOID(impl_->prepare_action());
  VIMGPT_TRY_VOID(inside(point, impl_->options.viewport));
  // Move and presses are posted and only the last release is waited for: a session runs its commands in order,
  // so that answer means all of them reached the page, for one round trip instead of several.
  if (impl_->has_crashed()) return Impl::crash_failure();
  auto& connection = *impl_->connection;
  const std::string& session = impl_->session_id;
  connection.post("Input.dispatchMouseEvent", mouse("mouseMoved", point), session);
  const int bit = button_bit(button);
  for (int count = 1; count <= std::max(clicks, 1); ++count) {
    connection.post("Input.dispatchMouseEvent", mouse("mousePressed", point, bit, button, count), session);
    if (count < clicks)
      connection.post("Input.dispatchMouseEvent", mouse("mouseReleased", point, 0, button, count), session);
  }
  VIMGPT_TRY_VOID(
      impl_->call("Input.dispatchMouseEvent", mouse("mouseReleased", point, 0, button, std::max(clicks, 1))));
  return ok();
}

Status CdpTab::move_mouse(Point point) {
  VIMGPT_TRY_VOID(impl_->prepare_action());
  VIMGPT_TRY_VOID(inside(point, impl_->options.viewport));
  VIMGPT_TRY_VOID(impl_->call("Input.dispatchMouseEvent", mouse("mouseMoved", point)));
  return ok();
}

Status CdpTab::wheel(Point point, double dx, double dy) {
  VIMGPT_TRY_VOID(impl_->prepare_action());
  VIMGPT_TRY_VOID(inside(point, impl_->options.viewport));
  impl_->connection->post("Input.dispatchMouseEvent", mouse("mouseMoved", point), impl_->session_id);
  Json turn = mouse("mouseWheel", point);
  turn["deltaX"] = dx;
  turn["deltaY"] = dy;
  VIMGPT_TRY_VOID(impl_->call("Input.dispatchMouseEvent", std::move(turn)));
  return ok();
}

Result<bool> CdpTab::drag(Point from, Point to, int steps) {
  VIMGPT_TRY_VOID(impl_->prepare_action());
  VIMGPT_TRY_VOID(inside(from, impl_->options.viewport));
  VIMGPT_TRY_VOID(inside(to, impl_->options.viewport));
  steps = std::clamp(steps, 1, 100);
  const auto along = [&](int step) {
    const double t = static_cast<double>(step) / steps;
    return Point{from.x + (to.x - from.x) * t, from.y + (to.y - from.y) * t};
  };
  // Whether the page starts an HTML5 drag is known only once the pointer moves with the button down: the
  // isolated world notes a dragstart that was not prevented, and Chromium, told to intercept drags, reports the
  // drag's data instead of running an OS drag loop (which a headless browser has no pointer for).
  VIMGPT_TRY(Json watching, evaluate("(() => { const d = globalThis.__vimgptDrag = {event: null};"
                                     " d.listener = (e) => { d.event = e; };"
                                     " addEventListener('dragstart', d.listener, {capture: true}); return true; })()"));
  (void)watching;
  // Chromium starts a drag once the pointer has moved a few pixels with the button down: the first move goes
  // at least 10 px, or all the way.
  const double length = std::hypot(to.x - from.x, to.y - from.y);
  Point first = along(1);
  if (length > 0 && std::hypot(first.x - from.x, first.y - from.y) < 10) {
    const double t = std::min(1.0, 10 / length);
    first = Point{from.x + (to.x - from.x) * t, from.y + (to.y - from.y) * t};
  }
  const std::string session = impl_->session_id;
  wire::EventQueue intercepted(*impl_->connection, [session](const wire::Event& event) {
    return event.session_id == session && event.method == "Input.dragIntercepted";
  });
  VIMGPT_TRY_VOID(impl_->call("Input.setInterceptDrags", {{"enabled", true}}));
  const auto restore = [this] {
    [[maybe_unused]] auto off = impl_->call("Input.setInterceptDrags", {{"enabled", false}});
  };
  auto& connection = *impl_->connection;
  connection.post("Input.dispatchMouseEvent", mouse("mouseMoved", from), session);
  connection.post("Input.dispatchMouseEvent", mouse("mousePressed", from, 1, MouseButton::Left, 1), session);
  if (auto moved = impl_->call("Input.dispatchMouseEvent", mouse("mouseMoved", first, 1)); !moved) {
    restore();
    return moved.failure();
  }
  auto started = evaluate(
      "(() => { const d = globalThis.__vimgptDrag; if (!d) return false;"
      " removeEventListener('dragstart', d.listener, {capture: true});"
      " globalThis.__vimgptDrag = undefined; return !!d.event && !d.event.defaultPrevented; })()");
  std::optional<Json> data;
  if (started && *started == true) {
    auto event = intercepted.wait([](const wire::Event&) { return true; }, milliseconds{2000});
    if (event) data = event->params.value("data", Json::object());
  }
  restore();
  if (!data) {
    // A drag the page runs on mouse events: move in steps with the button down, release at the end. Each move
    // is waited for: moves sent together are coalesced into one event, and a drawing would lose its path.
    for (int step = 2; step <= steps; ++step) {
      VIMGPT_TRY_VOID(impl_->call("Input.dispatchMouseEvent", mouse("mouseMoved", along(step), 1)));
    }
    VIMGPT_TRY_VOID(impl_->call("Input.dispatchMouseEvent", mouse("mouseReleased", to, 0, MouseButton::Left, 1)));
    return false;
  }
  const auto drag_event = [&](const char* type, Point point) {
    return Json{{"type", type}, {"x", point.x}, {"y", point.y}, {"data", *data}};
  };
  VIMGPT_TRY_VOID(impl_->call("Input.dispatchDragEvent", drag_event("dragEnter", first)));
  for (int step = 2; step <= steps; ++step) {
    VIMGPT_TRY_VOID(impl_->call("Input.dispatchDragEvent", drag_event("dragOver", along(step))));
  }
  VIMGPT_TRY_VOID(impl_->call("Input.dispatchDragEvent", drag_event("drop", to)));
  // The button comes up after the drop, as a person's does; the page saw the drag end with dragend.
  VIMGPT_TRY_VOID(impl_->call("Input.dispatchMouseEvent", mouse("mouseReleased", to, 0, MouseButton::Left, 1)));
  return true;
}

Status CdpTab::click_to_choose_files(Point point, const std::vector<std::string>& files, milliseconds cap) {
  VIMGPT_TRY_VOID(impl_->prepare_action());
  const std::string session = impl_->session_id;
  wire::EventQueue choosers(*impl_->connection, [session](const wire::Event& event) {
    return event.session_id == session && event.method == "Page.fileChooserOpened";
  });
  // While intercepted, a file dialog the page opens is reported here instead of shown.
  VIMGPT_TRY_VOID(impl_->call("Page.setInterceptFileChooserDialog", {{"enabled", true}}));
  auto clicked = click(point);
  Result<wire::Event> opened =
      clicked ? choosers.wait([](const wire::Event&) { return true; }, cap) : clicked.failure();
  [[maybe_unused]] auto restored = impl_->call("Page.setInterceptFileChooserDialog", {{"enabled", false}});
  if (!opened) {
    if (opened.error().kind != ErrorKind::Timeout) return opened.failure();
    return fail(ErrorKind::NotFound,
                "clicking there opened no file chooser: give the label of a file input, or of "
                "the button that opens one");
  }
  if (opened->params.value("mode", "") == "selectSingle" && files.size() > 1) {
    return fail(ErrorKind::InvalidArgument, "this file input takes one file, not " + std::to_string(files.size()));
  }
  VIMGPT_TRY_VOID(impl_->call("DOM.setFileInputFiles",
                              {{"files", files}, {"backendNodeId", opened->params.value("backendNodeId", 0)}}));
  return ok();
}

Status CdpTab::scroll(ScrollDirection direction) {
  VIMGPT_TRY_VOID(impl_->prepare_action());
  return scroll_by_script(*this, direction);
}

Result<PageInfo> CdpTab::page_info() {
  VIMGPT_TRY_VOID(impl_->follow_new_tabs());
  VIMGPT_TRY(Json info, impl_->connection->call("Target.getTargetInfo", {{"targetId", impl_->target_id}}));
  return PageInfo{info["targetInfo"].value("url", ""), info["targetInfo"].value("title", "")};
}

// Scripts ---------------------------------------------------------------------------------------------------

Result<Json> CdpTab::Impl::evaluate_with(std::string_view session, std::optional<int> context,
                                         std::string_view expression) {
  if (session == session_id && has_crashed()) return crash_failure();
  Json params = {{"expression", expression}, {"returnByValue", true}, {"awaitPromise", true}};
  if (context) params["contextId"] = *context;
  VIMGPT_TRY(Json result, connection->call("Runtime.evaluate", std::move(params), session, kCommandTimeout));
  if (const auto details = result.find("exceptionDetails"); details != result.end()) {
    std::string text = details->value("text", "script error");
    if (const auto exception = details->find("exception"); exception != details->end()) {
      text = exception->value("description", text);
    }
    return fail(ErrorKind::Protocol, "script failed: " + text);
  }
  return result["result"].value("value", Json());
}

// The world every hint script runs in, in `frame` of `session` (the page's, or an out-of-process frame's).
Result<int> CdpTab::Impl::create_world(std::string_view session, const std::string& frame) {
  if (session == session_id && has_crashed()) return crash_failure();
  VIMGPT_TRY(Json world,
             connection->call("Page.createIsolatedWorld",
                              {{"frameId", frame}, {"worldName", kWorldName}, {"grantUniveralAccess", true}}, session,
                              kCommandTimeout));
  return world.value("executionContextId", 0);
}

Result<int> CdpTab::Impl::isolated_world() {
  std::string frame;
  {
    std::scoped_lock lock(mutex);
    if (isolated_context != 0) return isolated_context;
    frame = main_frame_id;
  }
  VIMGPT_TRY(int context, create_world(session_id, frame));
  std::scoped_lock lock(mutex);
  isolated_context = context;
  return context;
}

bool CdpTab::Impl::is_stale_world(const Result<Json>& result) {
  if (result || result.error().kind != ErrorKind::Protocol) return false;
  const std::string& message = result.error().message;
  return message.find("Cannot find context") != std::string::npos ||
         message.find("context was destroyed") != std::string::npos ||
         message.find("Inspected target navigated") != std::string::npos;
}

Result<Json> CdpTab::Impl::evaluate_isolated(std::string_view expression) {
  VIMGPT_TRY(int context, isolated_world());
  auto result = evaluate_with(session_id, context, expression);
  if (is_stale_world(result)) {
    std::scoped_lock lock(mutex);
    isolated_context = 0;
  }
  return result;
}

Result<Json> CdpTab::evaluate(std::string_view expression) {
  VIMGPT_TRY_VOID(impl_->follow_new_tabs());
  auto result = impl_->evaluate_isolated(expression);
  return Impl::is_stale_world(result) ? impl_->evaluate_isolated(expression) : result;  // once more, in the new world
}

Result<Json> CdpTab::evaluate_in_page(std::string_view expression) {
  VIMGPT_TRY_VOID(impl_->follow_new_tabs());
  return impl_->evaluate_with(impl_->session_id, std::nullopt, expression);
}

Status CdpTab::preload(std::string_view name, const std::string& source, ScriptWorld world) {
  Json script = {{"source", source}};
  if (world == ScriptWorld::Isolated) script["worldName"] = kWorldName;
  std::vector<std::string> sessions;
  {
    std::scoped_lock lock(impl_->mutex);
    if (!impl_->preloads.emplace(name, script).second) return ok();
    sessions.push_back(impl_->session_id);
    for (const auto& frame : impl_->child_frames) sessions.push_back(frame.session_id);
  }
  for (const auto& session : sessions) {
    if (session != impl_->session_id) VIMGPT_TRY_VOID(impl_->connection->call("Page.enable", Json::object(), session));
    VIMGPT_TRY(Json added, impl_->connection->call("Page.addScriptToEvaluateOnNewDocument", script, session));
    (void)added;
  }
  return ok();
}

Result<int> CdpTab::Impl::frame_world(const ChildFrame& frame) {
  {
    std::scoped_lock lock(mutex);
    if (auto it = child_contexts.find(frame.session_id); it != child_contexts.end()) return it->second;
  }
  VIMGPT_TRY(int context, create_world(frame.session_id, frame.frame_id));
  std::scoped_lock lock(mutex);
  child_contexts[frame.session_id] = context;
  return context;
}

// The frame's session outlives its documents: when the frame navigates, its world goes and is made again.
Result<Json> CdpTab::evaluate_in_frame(const ChildFrame& frame, std::string_view expression) {
  const auto run = [&]() -> Result<Json> {
    VIMGPT_TRY(int context, impl_->frame_world(frame));
    return impl_->evaluate_with(frame.session_id, context, expression);
  };
  auto result = run();
  if (!Impl::is_stale_world(result)) return result;
  {
    std::scoped_lock lock(impl_->mutex);
    impl_->child_contexts.erase(frame.session_id);
  }
  return run();
}

Result<Json> CdpTab::evaluate_in_frame_page(const ChildFrame& frame, std::string_view expression) {
  return impl_->evaluate_with(frame.session_id, std::nullopt, expression);
}

Status CdpTab::press_key(Key key) {
  return press(key_press(key));
}

namespace {

Json key_event(const char* type, std::string_view key, std::string_view code, int virtual_key, unsigned modifiers) {
  return Json{{"type", type},
              {"key", key},
              {"code", code},
              {"windowsVirtualKeyCode", virtual_key},
              {"nativeVirtualKeyCode", virtual_key},
              {"modifiers", modifiers}};
}

}  // namespace

Status CdpTab::type_text(std::string_view text, Typing how) {
  VIMGPT_TRY_VOID(impl_->prepare_action());
  if (how == Typing::Insert) {
    VIMGPT_TRY_VOID(impl_->call("Input.insertText", {{"text", text}}));
    return ok();
  }
  const auto keys = keys_for_text(text);
  if (keys.empty()) return ok();
  // Every press but the last is posted without waiting for its answer: the renderer takes input events in the order
  // they came, so when the last one is answered all were handled (a round trip a key would cost a 200-character text
  // most of a second).
  for (std::size_t i = 0; i < keys.size(); ++i) {
    const KeyPress& k = keys[i];
    Json down = key_event(k.text.empty() ? "rawKeyDown" : "keyDown", k.key, k.code, k.virtual_key, k.modifiers);
    if (!k.text.empty()) down["text"] = down["unmodifiedText"] = k.text;
    Json up = key_event("keyUp", k.key, k.code, k.virtual_key, k.modifiers);
    impl_->connection->post("Input.dispatchKeyEvent", std::move(down), impl_->session_id);
    if (i + 1 < keys.size()) {
      impl_->connection->post("Input.dispatchKeyEvent", std::move(up), impl_->session_id);
    } else {
      VIMGPT_TRY_VOID(impl_->call("Input.dispatchKeyEvent", std::move(up)));
    }
  }
  return ok();
}

Status CdpTab::press(const KeyPress& keys) {
  VIMGPT_TRY_VOID(impl_->prepare_action());
  const auto event = key_event;
  unsigned held = 0;
  for (const auto& m : kModifiers) {
    if ((keys.modifiers & m.bit) == 0) continue;
    held |= m.bit;
    VIMGPT_TRY_VOID(impl_->call("Input.dispatchKeyEvent", event("rawKeyDown", m.name, m.code, m.virtual_key, held)));
  }
  Json down = event(keys.text.empty() ? "rawKeyDown" : "keyDown", keys.key, keys.code, keys.virtual_key, held);
  if (!keys.text.empty()) down["text"] = keys.text;
  if (!keys.command.empty()) down["commands"] = Json::array({keys.command});
  VIMGPT_TRY_VOID(impl_->call("Input.dispatchKeyEvent", down));
  VIMGPT_TRY_VOID(impl_->call("Input.dispatchKeyEvent", event("keyUp", keys.key, keys.code, keys.virtual_key, held)));
  for (auto m = kModifiers.rbegin(); m != kModifiers.rend(); ++m) {
    if ((held & m->bit) == 0) continue;
    held &= ~m->bit;
    VIMGPT_TRY_VOID(impl_->call("Input.dispatchKeyEvent", event("keyUp", m->name, m->code, m->virtual_key, held)));
  }
  return ok();
}

}  // namespace vimgpt::browser
