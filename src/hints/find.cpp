// One hint pass over the page: the isolated-world script in the main frame (same-origin iframes and open
// shadow roots included), CDP listener probes for the doubtful candidates it reports, and the same script
// in each out-of-process frame, offset into the main viewport. Then Vimium's labels, in document order.
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <map>
#include <unordered_map>

#include "hints/frames.h"
#include "hints/hint_script.h"
#include "hints/hints.h"

namespace vimgpt::hints {

using browser::Json;

namespace detail {

std::optional<browser::ChildFrame> child_frame(browser::Tab& tab, std::string_view session_id) {
  for (auto& frame : tab.child_frames())
    if (frame.session_id == session_id) return frame;
  return std::nullopt;
}

Status preload_library(browser::Tab& tab) {
  static const std::string source = preload_source();
  return tab.preload("hint library", source, browser::ScriptWorld::Isolated);
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

}  // namespace detail

namespace {

std::atomic<std::uint64_t> next_pass{
    static_cast<std::uint64_t>(std::chrono::steady_clock::now().time_since_epoch().count() & 0xffffff) << 20};

struct Item {
  double order = 0;
  Hint hint;
};

// The library's reason codes are Reason's values (tests/unit/hints_test.cpp checks the two agree).
Reason reason_of(int code) {
  return code >= 0 && code <= static_cast<int>(Reason::Delegated) ? static_cast<Reason>(code) : Reason::Rule;
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

// Which of the elements at `paths` have a click-like listener. The page's main world is asked (listeners are only
// reported for objects of the world that added them): in one evaluate with DevTools' command-line getEventListeners,
// or, when a page global of that name hides it (and on Firefox), through the engine's own listener lookup. Any failure
// just means no extra hints: probing is a refinement, not a requirement.
std::vector<bool> probe_listeners(browser::Tab& tab, const browser::ChildFrame* frame, const Json& paths) {
  std::vector<bool> accepted(paths.size(), false);
  if (paths.empty()) return accepted;
  Json types = Json::array();
  for (const auto type : kClickListenerTypes) types.push_back(type);
  auto at_once = tab.evaluate_with_command_line_api(detail::main_world_listener_check(paths, types), frame);
  if (at_once && at_once->is_array() && at_once->size() == paths.size()) {
    for (std::size_t i = 0; i < paths.size(); ++i) accepted[i] = (*at_once)[i] == true;
    return accepted;
  }
  auto each = tab.listener_types(detail::main_world_lookup(paths), frame);
  if (!each) return accepted;
  for (std::size_t i = 0; i < accepted.size() && i < each->size(); ++i)
    accepted[i] = std::any_of((*each)[i].begin(), (*each)[i].end(), is_click_listener);
  return accepted;
}

// An ancestor a click on a doubtful candidate bubbles through, and its child the candidate is in (paths as
// main_world_lookup takes them).
struct Ancestor {
  Json path;
  Json child;
};
// How far up a candidate's listener is looked for: a row's cell, a card's title, a select's caret sit a few levels
// below the element that listens.
constexpr std::size_t kListenerLevels = 5;

// The candidate's ancestors, nearest first, up to kListenerLevels elements, never a document's <html> or <body>
// (where a framework's root listener for everything sits) nor a shadow root or a document itself.
std::vector<Ancestor> ancestors_of(const Json& path) {
  std::vector<Ancestor> out;
  if (!path.is_array()) return out;
  const std::vector<int> steps = path.get<std::vector<int>>();
  if (steps.size() < 2) return out;
  std::size_t child_end = steps.size();
  for (std::size_t end = steps.size() - 1; end > 0 && out.size() < kListenerLevels; --end) {
    if (steps[end - 1] < 0) continue;  // a shadow root's or a frame document's own step
    std::size_t in_document = 0;       // the ancestor's depth in its own document: 1 <html>, 2 <body>
    for (std::size_t k = end; k > 0 && steps[k - 1] != -2; --k) ++in_document;
    if (in_document <= 2) break;
    out.push_back({Json(std::vector<int>(steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(end))),
                   Json(std::vector<int>(steps.begin(), steps.begin() + static_cast<std::ptrdiff_t>(child_end)))});
    child_end = end;
  }
  return out;
}

// The doubtful candidates: the ones with a click listener of their own (`accepted`), and for the rest the nearest
// ancestor that has one (`picks`, for the library's adopt: the doubt's index, the ancestor's and child's paths, its
// order), in one probe of every path.
struct Probed {
  std::vector<bool> accepted;
  Json picks = Json::array();
};
Probed probe_doubts(browser::Tab& tab, const browser::ChildFrame* frame, const Json& doubts) {
  Json paths = Json::array();
  for (const auto& doubt : doubts) paths.push_back(doubt["p"]);
  std::vector<std::vector<std::pair<Ancestor, std::size_t>>> chains;
  std::map<std::string, std::size_t> known;
  for (const auto& doubt : doubts) {
    auto& chain = chains.emplace_back();
    for (auto& ancestor : ancestors_of(doubt["p"])) {
      const auto [it, added] = known.emplace(ancestor.path.dump(), paths.size());
      if (added) paths.push_back(ancestor.path);
      chain.emplace_back(std::move(ancestor), it->second);
    }
  }
  const auto listening = probe_listeners(tab, frame, paths);
  Probed probed;
  probed.accepted.assign(listening.begin(), listening.begin() + static_cast<std::ptrdiff_t>(doubts.size()));
  for (std::size_t i = 0; i < doubts.size(); ++i) {
    if (probed.accepted[i]) continue;
    for (const auto& [ancestor, at] : chains[i]) {
      if (!listening[at]) continue;
      probed.picks.push_back({doubts[i].value("i", 0), ancestor.path, ancestor.child, doubts[i].value("o", 0.0)});
      break;
    }
  }
  return probed;
}

// Runs the find script in one world and appends its hints (main-viewport coordinates) to `items`.
Status collect(browser::Tab& tab, const FindOptions& options, std::uint64_t pass,
               const std::optional<browser::ChildFrame>& frame, std::vector<Item>& items, double frame_rank,
               Json* viewport, std::vector<Rect>* redactions) {
  const bool vimium = options.rules == HintRules::Vimium;
  const bool listeners = options.listeners == ListenerProbe::Doubtful && !vimium;
  // The elements page scripts listen on, in one question to the engine for the whole document; where it cannot say,
  // the doubtful candidates the library reports are probed one by one (at most max_listener_probes).
  Json listening;
  if (listeners) {
    auto asked = tab.click_listening(frame ? &*frame : nullptr);
    if (asked && asked->is_array()) listening = std::move(*asked);
  }
  const Json args = {{"pass", pass},
                     {"maxDoubt", listeners && listening.is_null() ? options.max_listener_probes : 0},
                     {"listening", listening},
                     {"watch", options.watch && !frame},
                     {"vimium", vimium}};
  const detail::Evaluator evaluate = [&](const std::string& expression) {
    return frame ? tab.evaluate_in_frame(*frame, expression) : tab.evaluate(expression);
  };
  Result<Json> found = detail::call_library(evaluate, "find", args);
  if (!found) return found.failure();
  if (!found->is_object() || !(*found)["hints"].is_array())
    return fail(ErrorKind::Protocol, "the hint script returned no hint list");
  if (viewport) {
    *viewport = {
        {"width", (*found)["vw"]}, {"height", (*found)["vh"]}, {"content", (*found)["ch"]}, {"state", (*found)["st"]}};
  }
  if (redactions && (*found)["redact"].is_array()) {
    for (const auto& box : (*found)["redact"])
      redactions->push_back({box[0].get<double>(), box[1].get<double>(), box[2].get<double>(), box[3].get<double>()});
  }

  // Out-of-process frames report frame-local rects: move them into the main viewport and clip them to the
  // owner's box there.
  double dx = 0, dy = 0;
  double clip_left = -1e9, clip_top = -1e9, clip_right = 1e9, clip_bottom = 1e9;
  if (frame) {
    VIMGPT_TRY(browser::FrameBox box, tab.frame_box(frame->frame_id));
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
  if (!doubts.is_array() || doubts.empty()) return ok();
  const auto probed = probe_doubts(tab, frame ? &*frame : nullptr, doubts);
  for (std::size_t i = 0; i < doubts.size(); ++i)
    if (probed.accepted[i])
      if (auto item = place(doubts[i])) items.push_back(std::move(*item));
  if (probed.picks.empty()) return ok();
  // A failure here only means fewer hints, as a failed probe does.
  auto adopted = detail::call_library(evaluate, "adopt", {{"pass", pass}, {"picks", probed.picks}});
  if (adopted && adopted->is_object() && (*adopted)["hints"].is_array()) {
    for (const auto& record : (*adopted)["hints"])
      if (auto item = place(record)) items.push_back(std::move(*item));
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
  const auto labels = label_strings(items.size(), options.labels);
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
  if (viewport["state"].is_string()) map.set_state(viewport["state"].get<std::string>());
  if (viewport["content"].is_number()) map.set_content_height(viewport["content"].get<double>());
  return map;
}

}  // namespace vimgpt::hints
