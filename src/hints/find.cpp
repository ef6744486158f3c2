// One hint pass over the page: the isolated-world script in the main frame (same-origin iframes and open
// shadow roots included), CDP listener probes for the doubtful candidates it reports, and the same script
// in each out-of-process frame, offset into the main viewport. Then Vimium's labels, in document order.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <future>
#include <unordered_map>

#include "hints/frames.h"
#include "hints/hint_script.h"
#include "hints/hints.h"

namespace vimgpt::hints {

using cdp::Json;

namespace detail {

std::optional<browser::ChildFrame> child_frame(browser::Tab& tab, std::string_view session_id) {
  for (auto& frame : tab.child_frames())
    if (frame.session_id == session_id) return frame;
  return std::nullopt;
}

Status preload_library(browser::Tab& tab) {
  static const std::string source = preload_source();
  return tab.preload("hint library", source);
}

Evaluator evaluator_for(browser::Tab& tab, const Hint& hint) {
  return [&tab, &hint](const std::string& expression) -> Result<Json> {
    if (hint.frame_session.empty()) return tab.evaluate(expression);
    auto frame = child_frame(tab, hint.frame_session);
    if (!frame)
      return fail(ErrorKind::NotFound,
                  "the frame of hint " + hint.label + " (" + hint.frame_url + ") is gone; capture the hints again");
    return tab.evaluate_in_frame(*frame, expression);
  };
}

namespace {

Result<FrameBox> owner_box(browser::Tab& tab, std::string_view frame_id, const std::string& session) {
  auto& connection = tab.connection();
  VIMGPT_TRY(Json owner, connection.call("DOM.getFrameOwner", {{"frameId", frame_id}}, session));
  const int backend = owner.value("backendNodeId", 0);
  VIMGPT_TRY(Json box, connection.call("DOM.getBoxModel", {{"backendNodeId", backend}}, session));
  const Json& quad = box["model"]["content"];
  if (!quad.is_array() || quad.size() < 8) return fail(ErrorKind::Protocol, "DOM.getBoxModel: no content quad");
  FrameBox out;
  out.x = quad[0].get<double>();
  out.y = quad[1].get<double>();
  out.width = quad[2].get<double>() - out.x;
  out.height = quad[5].get<double>() - out.y;
  out.owner_backend_node = backend;
  out.owner_session = session;
  return out;
}

}  // namespace

Result<FrameBox> frame_box(browser::Tab& tab, std::string_view frame_id) {
  auto direct = owner_box(tab, frame_id, tab.session_id());
  if (direct) {
    direct->owner_session.clear();
    return direct;
  }
  // A frame nested in another out-of-process frame: its owner lives in that frame's DOM.
  for (const auto& parent : tab.child_frames()) {
    if (parent.frame_id == frame_id) continue;
    auto inner = owner_box(tab, frame_id, parent.session_id);
    if (!inner) continue;
    VIMGPT_TRY(FrameBox outer, frame_box(tab, parent.frame_id));
    inner->x += outer.x;
    inner->y += outer.y;
    return inner;
  }
  return direct.failure();
}

Status scroll_into_view(browser::Tab& tab, const FrameBox& box) {
  VIMGPT_TRY(Json scrolled,
             tab.connection().call("DOM.scrollIntoViewIfNeeded", {{"backendNodeId", box.owner_backend_node}},
                                   box.owner_session.empty() ? tab.session_id() : box.owner_session));
  (void)scrolled;
  return ok();
}

}  // namespace detail

namespace {

std::atomic<std::uint64_t> next_pass{
    static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count() & 0xffffff) << 20};

struct Item {
  double order = 0;
  Hint hint;
};

Reason reason_of(int code) {
  switch (code) {
    case 1: return Reason::ClassName;
    case 2: return Reason::Scrollable;
    case 3: return Reason::TabIndex;
    case 4: return Reason::CursorPointer;
    case 5: return Reason::ClickListener;
    default: return Reason::Rule;
  }
}

std::string text_of(const Json& record, const char* key) {
  auto it = record.find(key);
  return it != record.end() && it->is_string() ? it->get<std::string>() : std::string();
}

Hint hint_from_record(const Json& record) {
  Hint hint;
  hint.rect = {record.value("x", 0.0), record.value("y", 0.0), record.value("w", 0.0), record.value("h", 0.0)};
  hint.tag = text_of(record, "tag");
  hint.role = text_of(record, "role");
  hint.text = text_of(record, "text");
  hint.href = text_of(record, "href");
  if (record.contains("type")) {
    hint.input_type = text_of(record, "type");
    hint.placeholder = text_of(record, "ph");
    hint.name = text_of(record, "name");
    hint.value = record.value("empty", true) ? FieldValue::Empty : FieldValue::Filled;
  }
  hint.reason = reason_of(record.value("r", 0));
  hint.index = record.value("i", 0);
  return hint;
}

constexpr std::array<std::string_view, 7> kClickListenerTypes = {"click",     "mousedown", "mouseup", "pointerdown",
                                                                 "pointerup", "auxclick",  "dblclick"};

bool is_click_listener(std::string_view type) {
  return std::find(kClickListenerTypes.begin(), kClickListenerTypes.end(), type) != kClickListenerTypes.end();
}

// The probe in one main-world evaluate, with DevTools' command-line getEventListeners; nullopt when that
// cannot answer (a page global of the same name hides it).
std::optional<std::vector<bool>> probe_in_one_call(cdp::Connection& connection, const std::string& session,
                                                   const Json& paths) {
  Json types = Json::array();
  for (const auto type : kClickListenerTypes) types.push_back(type);
  auto answer = connection.call("Runtime.evaluate",
                                {{"expression", detail::main_world_listener_check(paths, types)},
                                 {"includeCommandLineAPI", true},
                                 {"returnByValue", true},
                                 {"silent", true}},
                                session);
  if (!answer) return std::nullopt;
  const Json& value = (*answer)["result"]["value"];
  if (!value.is_array() || value.size() != paths.size()) return std::nullopt;
  std::vector<bool> accepted;
  accepted.reserve(value.size());
  for (const auto& one : value) accepted.push_back(one == true);
  return accepted;
}

// The probe element by element: the elements as remote objects, then DOMDebugger.getEventListeners on each.
std::vector<bool> probe_one_by_one(cdp::Connection& connection, const std::string& session, const Json& paths) {
  std::vector<bool> accepted(paths.size(), false);
  constexpr const char* kGroup = "vimgpt-hints-probe";
  auto array = connection.call("Runtime.evaluate",
                               {{"expression", detail::main_world_lookup(paths)},
                                {"objectGroup", kGroup},
                                {"returnByValue", false},
                                {"silent", true}},
                               session);
  if (array && (*array)["result"].contains("objectId")) {
    auto properties = connection.call(
        "Runtime.getProperties",
        {{"objectId", (*array)["result"]["objectId"]}, {"ownProperties", true}, {"generatePreview", false}}, session);
    std::vector<std::pair<std::size_t, std::string>> elements;
    if (properties) {
      for (const auto& property : (*properties)["result"]) {
        const std::string name = property.value("name", "");
        if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
        const std::size_t at = std::stoul(name);
        if (at >= accepted.size() || !property.contains("value") || !property["value"].contains("objectId")) continue;
        elements.emplace_back(at, property["value"]["objectId"].get<std::string>());
      }
    }
    // One command per element; in flight together they cost about one round trip instead of one each.
    std::vector<std::future<bool>> answers;
    answers.reserve(elements.size());
    for (const auto& [at, object] : elements) {
      answers.push_back(std::async(std::launch::async, [&connection, &session, object = object] {
        auto listeners =
            connection.call("DOMDebugger.getEventListeners", {{"objectId", object}, {"depth", 0}}, session);
        if (!listeners) return false;
        for (const auto& listener : (*listeners)["listeners"])
          if (is_click_listener(listener.value("type", ""))) return true;
        return false;
      }));
    }
    for (std::size_t i = 0; i < answers.size(); ++i) accepted[elements[i].first] = answers[i].get();
  }
  (void)connection.call("Runtime.releaseObjectGroup", {{"objectGroup", kGroup}}, session);
  return accepted;
}

// Which doubtful candidates have a click-like listener of their own. The page's main world is asked
// (listeners are only reported for objects of the world that added them). Any failure just means no extra
// hints: probing is a refinement, not a requirement.
std::vector<bool> probe_listeners(browser::Tab& tab, const std::string& session, const Json& doubts) {
  if (doubts.empty()) return {};
  Json paths = Json::array();
  for (const auto& doubt : doubts) paths.push_back(doubt["p"]);
  if (auto accepted = probe_in_one_call(tab.connection(), session, paths)) return std::move(*accepted);
  return probe_one_by_one(tab.connection(), session, paths);
}

// Runs the find script in one world and appends its hints (main-viewport coordinates) to `items`.
Status collect(browser::Tab& tab, const FindOptions& options, std::uint64_t pass,
               const std::optional<browser::ChildFrame>& frame, std::vector<Item>& items, double frame_rank,
               Json* viewport, std::vector<Rect>* redactions) {
  const Json args = {{"pass", pass},
                     {"maxDoubt", options.listeners == ListenerProbe::Doubtful ? options.max_listener_probes : 0}};
  Result<Json> found = detail::call_library(
      [&](const std::string& expression) {
        return frame ? tab.evaluate_in_frame(*frame, expression) : tab.evaluate(expression);
      },
      "find", args);
  if (!found) return found.failure();
  if (!found->is_object() || !(*found)["hints"].is_array())
    return fail(ErrorKind::Protocol, "the hint script returned no hint list");
  if (viewport) *viewport = {{"width", (*found)["vw"]}, {"height", (*found)["vh"]}};
  if (redactions && (*found)["redact"].is_array()) {
    for (const auto& box : (*found)["redact"])
      redactions->push_back({box[0].get<double>(), box[1].get<double>(), box[2].get<double>(), box[3].get<double>()});
  }

  // Out-of-process frames report frame-local rects: move them into the main viewport and clip them to the
  // owner's box there.
  double dx = 0, dy = 0;
  double clip_left = -1e9, clip_top = -1e9, clip_right = 1e9, clip_bottom = 1e9;
  if (frame) {
    VIMGPT_TRY(detail::FrameBox box, detail::frame_box(tab, frame->frame_id));
    dx = box.x;
    dy = box.y;
    clip_left = box.x;
    clip_top = box.y;
    clip_right = box.x + box.width;
    clip_bottom = box.y + box.height;
  }
  auto place = [&](const Json& record) -> std::optional<Item> {
    Item item{record.value("o", 0.0) + frame_rank, hint_from_record(record)};
    Rect& r = item.hint.rect;
    if (frame) {
      const double left = std::max(r.x + dx, clip_left), top = std::max(r.y + dy, clip_top);
      const double right = std::min(r.x + r.width + dx, clip_right);
      const double bottom = std::min(r.y + r.height + dy, clip_bottom);
      if (right - left < 3 || bottom - top < 3) return std::nullopt;
      r = {left, top, right - left, bottom - top};
      item.hint.frame_session = frame->session_id;
      item.hint.frame_id = frame->frame_id;
      item.hint.frame_url = frame->url;
    }
    return item;
  };
  for (const auto& record : (*found)["hints"])
    if (auto item = place(record)) items.push_back(std::move(*item));
  const Json& doubts = (*found)["doubts"];
  if (doubts.is_array() && !doubts.empty()) {
    const auto accepted = probe_listeners(tab, frame ? frame->session_id : tab.session_id(), doubts);
    for (std::size_t i = 0; i < doubts.size(); ++i)
      if (accepted[i])
        if (auto item = place(doubts[i])) items.push_back(std::move(*item));
  }
  return ok();
}

}  // namespace

Result<HintMap> find_hints(browser::Tab& tab, const FindOptions& options) {
  VIMGPT_TRY_VOID(detail::preload_library(tab));
  const std::uint64_t pass = next_pass.fetch_add(1);
  std::vector<Item> items;
  Json viewport;
  std::vector<Rect> redactions;
  VIMGPT_TRY_VOID(collect(tab, options, pass, std::nullopt, items, 0, &viewport, &redactions));
  if (options.frames == CrossOriginFrames::Include) {
    double rank = 1e9;  // frames after the main document, in the order Chromium attached them
    for (const auto& frame : tab.child_frames()) {
      // A frame that has gone or cannot be measured (hidden, detached meanwhile) simply has no hints.
      (void)collect(tab, options, pass, frame, items, rank, nullptr, nullptr);
      rank += 1e9;
    }
  }
  std::stable_sort(items.begin(), items.end(), [](const Item& a, const Item& b) { return a.order < b.order; });
  const auto labels = label_strings(items.size());
  std::vector<Hint> hints;
  hints.reserve(items.size());
  for (std::size_t i = 0; i < items.size(); ++i) {
    Hint hint = std::move(items[i].hint);
    hint.label = labels[i];
    for (auto& c : hint.label) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    hints.push_back(std::move(hint));
  }
  HintMap map(pass, std::move(hints), viewport.value("width", 0.0), viewport.value("height", 0.0));
  map.set_redactions(std::move(redactions));
  return map;
}

}  // namespace vimgpt::hints
