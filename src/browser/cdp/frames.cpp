// Out-of-process frames seen from the main viewport, and the page's main world where DevTools' own helpers
// answer what page scripts cannot (which listeners an element has, which elements respond to clicks).
#include <algorithm>
#include <future>
#include <map>
#include <tuple>

#include "browser/cdp/state.h"

namespace vimgpt::browser {
namespace {

struct Owner {
  FrameBox box;
  int backend_node = 0;
  std::string session;  // the session whose DOM holds the owner <iframe>
};

Result<Owner> owner_in(wire::Connection& connection, std::string_view frame_id, const std::string& session) {
  VIMGPT_TRY(Json owner, connection.call("DOM.getFrameOwner", {{"frameId", frame_id}}, session));
  const int backend = owner.value("backendNodeId", 0);
  VIMGPT_TRY(Json box, connection.call("DOM.getBoxModel", {{"backendNodeId", backend}}, session));
  const Json& quad = box["model"]["content"];
  if (!quad.is_array() || quad.size() < 8) return fail(ErrorKind::Protocol, "DOM.getBoxModel: no content quad");
  Owner out;
  out.box.x = quad[0].get<double>();
  out.box.y = quad[1].get<double>();
  out.box.width = quad[2].get<double>() - out.box.x;
  out.box.height = quad[5].get<double>() - out.box.y;
  out.backend_node = backend;
  out.session = session;
  return out;
}

// The owner in the main frame's DOM, or (a frame nested in another out-of-process frame) in that frame's,
// moved into the main viewport.
Result<Owner> owner_of(Tab& tab, wire::Connection& connection, const std::string& main_session,
                       std::string_view frame_id) {
  auto direct = owner_in(connection, frame_id, main_session);
  if (direct) return direct;
  for (const auto& parent : tab.child_frames()) {
    if (parent.frame_id == frame_id) continue;
    auto inner = owner_in(connection, frame_id, parent.session_id);
    if (!inner) continue;
    VIMGPT_TRY(Owner outer, owner_of(tab, connection, main_session, parent.frame_id));
    inner->box.x += outer.box.x;
    inner->box.y += outer.box.y;
    return inner;
  }
  return direct.failure();
}

}  // namespace

Result<FrameBox> CdpTab::frame_box(std::string_view frame_id) {
  VIMGPT_TRY(Owner owner, owner_of(*this, *impl_->connection, session_id(), frame_id));
  return owner.box;
}

Status CdpTab::scroll_frame_into_view(std::string_view frame_id) {
  VIMGPT_TRY(Owner owner, owner_of(*this, *impl_->connection, session_id(), frame_id));
  VIMGPT_TRY_VOID(
      impl_->connection->call("DOM.scrollIntoViewIfNeeded", {{"backendNodeId", owner.backend_node}}, owner.session));
  return ok();
}

Result<Json> CdpTab::evaluate_with_command_line_api(std::string_view expression, const ChildFrame* frame) {
  VIMGPT_TRY(
      Json answer,
      impl_->connection->call(
          "Runtime.evaluate",
          {{"expression", expression}, {"includeCommandLineAPI", true}, {"returnByValue", true}, {"silent", true}},
          frame != nullptr ? frame->session_id : session_id()));
  if (answer.contains("exceptionDetails"))
    return fail(ErrorKind::Protocol, "the expression threw in the page's main world");
  return answer["result"].value("value", Json());
}

Result<std::vector<std::vector<std::string>>> CdpTab::listener_types(std::string_view elements,
                                                                     const ChildFrame* frame) {
  auto& connection = *impl_->connection;
  const std::string session = frame != nullptr ? frame->session_id : session_id();
  constexpr const char* kGroup = "vimgpt-listener-types";
  VIMGPT_TRY(
      Json array,
      connection.call("Runtime.evaluate",
                      {{"expression", elements}, {"objectGroup", kGroup}, {"returnByValue", false}, {"silent", true}},
                      session));
  std::vector<std::vector<std::string>> types;
  if (!array["result"].contains("objectId")) return fail(ErrorKind::Protocol, "the expression gave no array");
  auto release = [&] { (void)connection.call("Runtime.releaseObjectGroup", {{"objectGroup", kGroup}}, session); };
  auto properties = connection.call(
      "Runtime.getProperties",
      {{"objectId", array["result"]["objectId"]}, {"ownProperties", true}, {"generatePreview", false}}, session);
  if (!properties) {
    release();
    return properties.failure();
  }
  std::vector<std::pair<std::size_t, std::string>> objects;
  for (const auto& property : (*properties)["result"]) {
    const std::string name = property.value("name", "");
    if (name.empty() || !std::all_of(name.begin(), name.end(), ::isdigit)) continue;
    const std::size_t at = std::stoul(name);
    if (types.size() <= at) types.resize(at + 1);
    if (property.contains("value") && property["value"].contains("objectId"))
      objects.emplace_back(at, property["value"]["objectId"].get<std::string>());
  }
  // One command per element; in flight together they cost about one round trip instead of one each.
  std::vector<std::future<std::vector<std::string>>> answers;
  answers.reserve(objects.size());
  for (const auto& [at, object] : objects) {
    answers.push_back(std::async(std::launch::async, [&connection, &session, object = object] {
      std::vector<std::string> found;
      auto listeners = connection.call("DOMDebugger.getEventListeners", {{"objectId", object}, {"depth", 0}}, session);
      if (listeners)
        for (const auto& listener : (*listeners)["listeners"]) found.push_back(listener.value("type", ""));
      return found;
    }));
  }
  for (std::size_t i = 0; i < answers.size(); ++i) types[objects[i].first] = answers[i].get();
  release();
  return types;
}

namespace {

// A RareBooleanData's or RareIntegerData's node indexes (and values), as a DOMSnapshot writes them.
std::vector<int> rare_indexes(const Json& rare) {
  const Json& index = member(rare, "index");
  return index.is_array() ? index.get<std::vector<int>>() : std::vector<int>{};
}

// The paths (the hint library's pathOf) of the nodes of a DOMSnapshot that respond to clicks: each a document's
// element indexes from its root, -1 into an open shadow root, -2 into a same-process frame's document. Nodes the
// library cannot reach are left out: in a closed shadow root, pseudo-elements.
Json clickable_paths(const Json& snapshot) {
  struct Document {
    std::vector<int> parent;
    std::vector<int> type;
    std::vector<bool> pseudo;
    std::vector<bool> closed;   // a closed shadow root
    std::vector<int> position;  // an element's index among its parent's element children
  };
  std::vector<Document> documents;
  std::map<int, std::pair<int, int>> owner;  // a frame's document: its owner's document and node
  const Json& all = member(snapshot, "documents");
  if (!all.is_array()) return Json::array();
  const Json& strings = member(snapshot, "strings");
  for (std::size_t d = 0; d < all.size(); ++d) {
    const Json& nodes = member(all[d], "nodes");
    Document doc;
    if (member(nodes, "parentIndex").is_array()) doc.parent = nodes["parentIndex"].get<std::vector<int>>();
    if (member(nodes, "nodeType").is_array()) doc.type = nodes["nodeType"].get<std::vector<int>>();
    if (doc.type.size() != doc.parent.size()) return Json::array();
    const std::size_t n = doc.parent.size();
    doc.pseudo.assign(n, false);
    doc.closed.assign(n, false);
    doc.position.assign(n, -1);
    for (const int i : rare_indexes(member(nodes, "pseudoType")))
      if (i >= 0 && static_cast<std::size_t>(i) < n) doc.pseudo[i] = true;
    const Json& roots = member(nodes, "shadowRootType");
    const std::vector<int> root_nodes = rare_indexes(roots);
    const Json& root_kinds = member(roots, "value");
    for (std::size_t k = 0; k < root_nodes.size() && k < root_kinds.size(); ++k) {
      const int kind = root_kinds[k].is_number_integer() ? root_kinds[k].get<int>() : -1;
      const bool closed = kind >= 0 && static_cast<std::size_t>(kind) < strings.size() && strings[kind] == "closed";
      if (root_nodes[k] >= 0 && static_cast<std::size_t>(root_nodes[k]) < n) doc.closed[root_nodes[k]] = closed;
    }
    std::vector<int> counted(n, 0);
    for (std::size_t i = 0; i < n; ++i) {
      const int p = doc.parent[i];
      if (doc.type[i] == 1 && !doc.pseudo[i] && p >= 0 && static_cast<std::size_t>(p) < n)
        doc.position[i] = counted[p]++;
    }
    const Json& frames = member(nodes, "contentDocumentIndex");
    const std::vector<int> owners = rare_indexes(frames);
    const Json& framed = member(frames, "value");
    for (std::size_t k = 0; k < owners.size() && k < framed.size(); ++k)
      if (framed[k].is_number_integer()) owner[framed[k].get<int>()] = {static_cast<int>(d), owners[k]};
    documents.push_back(std::move(doc));
  }
  Json paths = Json::array();
  for (std::size_t d = 0; d < all.size(); ++d) {
    for (const int clickable : rare_indexes(member(member(all[d], "nodes"), "isClickable"))) {
      std::vector<int> steps;  // from the element up
      int doc = static_cast<int>(d);
      int node = clickable;
      bool reached = false;
      for (int guard = 0; guard < 4096 && !reached; ++guard) {
        const Document& here = documents[doc];
        if (node < 0 || static_cast<std::size_t>(node) >= here.parent.size() || here.position[node] < 0) break;
        const int parent = here.parent[node];
        steps.push_back(here.position[node]);
        if (here.type[parent] == 11) {  // a shadow root: on to its host
          if (here.closed[parent]) break;
          steps.push_back(-1);
          node = here.parent[parent];
        } else if (here.type[parent] == 9) {  // a document: the top one, or a frame's, on to its owner
          if (doc == 0) {
            reached = true;
          } else if (const auto found = owner.find(doc); found != owner.end()) {
            steps.push_back(-2);
            std::tie(doc, node) = found->second;
          } else {
            break;
          }
        } else {
          node = parent;
        }
      }
      if (reached) paths.push_back(Json(std::vector<int>(steps.rbegin(), steps.rend())));
    }
  }
  return paths;
}

}  // namespace

// DOMSnapshot.captureSnapshot says of each node whether it responds to mouse clicks: a click, mousedown or mouseup
// listener (a script's, an onclick property) and what clicks by itself (a link), in one command for the document and
// its same-process frames (https://chromedevtools.github.io/devtools-protocol/tot/DOMSnapshot/, NodeTreeSnapshot's
// isClickable; read 2026-12-07). No computed styles are asked for: the snapshot is the DOM's shape alone.
Result<Json> CdpTab::click_listening(const ChildFrame* frame) {
  VIMGPT_TRY(Json snapshot, impl_->connection->call("DOMSnapshot.captureSnapshot", {{"computedStyles", Json::array()}},
                                                    frame != nullptr ? frame->session_id : session_id()));
  return clickable_paths(snapshot);
}

}  // namespace vimgpt::browser
