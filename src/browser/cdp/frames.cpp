// Out-of-process frames seen from the main viewport, and the page's main world where DevTools' own helpers
// answer what page scripts cannot (which listeners an element has).
#include <algorithm>
#include <future>

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

}  // namespace vimgpt::browser
