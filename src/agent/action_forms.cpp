// An action written out: as JSON (what a recording keeps, what the replay and the exports read back: parse_action
// takes it again) and in words (what the model and the person read of each step).
#include <cmath>
#include <string>

#include "agent/agent.h"

namespace vimgpt::agent {

namespace {

// An action's own point: [x, y] of the frame, or where the pointer rests.
Json point_json(const Action& action) {
  return action.at_pointer ? Json("pointer") : Json{action.x, action.y};
}

std::string point_text(double x, double y) {
  return "(" + std::to_string(static_cast<int>(x)) + ", " + std::to_string(static_cast<int>(y)) + ")";
}

// "(x, y)", or where the pointer rests.
std::string own_point(const Action& action) {
  return action.at_pointer ? "where the pointer rests" : point_text(action.x, action.y);
}

}  // namespace

Json to_json(const Action& action) {
  switch (action.kind) {
    case ActionKind::Done: return {{"done", action.answer}};
    case ActionKind::ClickType:
    case ActionKind::Type: {
      Json json = {{"type", action.text}};
      if (action.kind == ActionKind::ClickType) json["click"] = action.label;
      if (action.enter != Enter::Auto) json["enter"] = action.enter == Enter::Press;
      return json;
    }
    case ActionKind::Navigate: return {{"navigate", action.text}};
    case ActionKind::Click: return {{"click", action.label}};
    case ActionKind::Select: return {{"select", action.label}, {"option", action.text}};
    case ActionKind::Upload: return {{"upload", action.label}, {"file", action.text}};
    case ActionKind::SwitchTab: return {{"tab", action.tab}};
    case ActionKind::Page: return {{"page", action.page}};
    case ActionKind::CloseTab: return {{"close_tab", true}};
    case ActionKind::Ask: return {{"ask", action.text}};
    case ActionKind::Handoff: return {{"handoff", action.text}};
    case ActionKind::ClickAt: return {{"click_at", point_json(action)}};
    case ActionKind::Scroll: {
      Json json = {{"scroll", action.direction == browser::ScrollDirection::Up ? "up" : "down"}};
      if (action.in_point) json["in"] = {action.x, action.y};
      if (!action.in.empty()) json["in"] = action.in;
      return json;
    }
    case ActionKind::Back: return {{"back", true}};
    case ActionKind::Key: return {{"key", action.text}};
    case ActionKind::Wait: return {{"wait", action.seconds}};
    case ActionKind::Zoom: return {{"zoom", {action.x, action.y, action.to_x, action.to_y}}};
    case ActionKind::Dialog: {
      Json json = {{"dialog", action.accept ? "accept" : "dismiss"}};
      if (!action.text.empty()) json["dialog_text"] = action.text;
      return json;
    }
    case ActionKind::Hover:
    case ActionKind::DoubleClick:
    case ActionKind::TripleClick:
    case ActionKind::RightClick:
      return {{std::string(to_string(action.kind)), action.label.empty() ? point_json(action) : Json(action.label)}};
    case ActionKind::Drag:
      return {{"drag", action.label.empty() ? point_json(action) : Json(action.label)},
              {"to", action.to_label.empty() ? Json{action.to_x, action.to_y} : Json(action.to_label)}};
    case ActionKind::SelectText: {
      Json json = {{"select_text", action.text}};
      if (!action.in.empty()) json["in"] = action.in;
      return json;
    }
    case ActionKind::Actions: {
      Json list = Json::array();
      for (const auto& one : action.actions) list.push_back(to_json(one));
      return {{"actions", list}};
    }
  }
  return Json::object();
}

std::string describe(const Action& action) {
  switch (action.kind) {
    case ActionKind::Done: return "done";
    case ActionKind::ClickType: return "click " + action.label + " and type \"" + action.text + "\"";
    case ActionKind::Navigate: return "navigate to " + action.text;
    case ActionKind::Type: return "type \"" + action.text + "\"";
    case ActionKind::Click: return "click " + action.label;
    case ActionKind::Select: return "select \"" + action.text + "\" in " + action.label;
    case ActionKind::Upload: return "upload " + action.text + " with " + action.label;
    case ActionKind::SwitchTab: return "switch to tab " + std::to_string(action.tab);
    case ActionKind::Page: return "turn to page " + std::to_string(action.page) + " of the PDF";
    case ActionKind::CloseTab: return "close the tab";
    case ActionKind::Ask: return "ask \"" + action.text + "\"";
    case ActionKind::Handoff: return "hand the page to the person: \"" + action.text + "\"";
    case ActionKind::ClickAt: return std::string("click ") + (action.at_pointer ? "" : "at ") + own_point(action);
    case ActionKind::Scroll:
      return std::string(action.direction == browser::ScrollDirection::Up ? "scroll up" : "scroll down") +
             (action.in_point     ? " at " + own_point(action)
              : action.in.empty() ? ""
                                  : " in " + action.in);
    case ActionKind::Back: return "go back";
    case ActionKind::Key: return "press " + action.text;
    case ActionKind::Wait: return "wait " + std::to_string(action.seconds).substr(0, 4) + " s";
    case ActionKind::Zoom: {
      const auto at = [](double x, double y) {
        return "(" + std::to_string(std::lround(x)) + ", " + std::to_string(std::lround(y)) + ")";
      };
      return "look closer at " + at(action.x, action.y) + "-" + at(action.to_x, action.to_y);
    }
    case ActionKind::Hover:
    case ActionKind::DoubleClick:
    case ActionKind::TripleClick:
    case ActionKind::RightClick: {
      const std::string target = action.label.empty() ? own_point(action) : action.label;
      return std::string(action.kind == ActionKind::Hover         ? "hover over "
                         : action.kind == ActionKind::DoubleClick ? "double-click "
                         : action.kind == ActionKind::TripleClick ? "triple-click "
                                                                  : "right-click ") +
             target;
    }
    case ActionKind::Drag:
      return "drag " + (action.label.empty() ? own_point(action) : action.label) + " to " +
             (action.to_label.empty() ? point_text(action.to_x, action.to_y) : action.to_label);
    case ActionKind::SelectText:
      return "select \"" + action.text + "\"" + (action.in.empty() ? "" : " in " + action.in);
    case ActionKind::Actions: return std::to_string(action.actions.size()) + " actions";
    case ActionKind::Dialog:
      return std::string(action.accept ? "accept" : "dismiss") + " the page's next dialogs" +
             (action.text.empty() ? "" : ", answering \"" + action.text + "\"");
  }
  return "act";
}

}  // namespace vimgpt::agent
