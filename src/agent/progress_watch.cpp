// The loop detector: an act that comes back, and actions that stopped changing the page.
#include "agent/progress_watch.h"

namespace vimgpt::agent {

std::size_t ProgressWatch::digest(const std::string& url, const hints::HintMap& map) {
  return std::hash<std::string>()(url + "#" + map.to_text() + "#" + map.state());
}

bool ProgressWatch::unchanged_since_last_action(const std::string& url, const hints::HintMap& map) const {
  return !window_.empty() && window_.back().page == digest(url, map);
}

ProgressWatch::Verdict ProgressWatch::note(const Action& action, const std::string& url, const hints::HintMap& map) {
  const std::size_t page = digest(url, map);
  const std::string act = to_json(action).dump();
  ++step_;
  // What the last action did: the page it left behind is this one. Waiting for a slow page, or looking closer at
  // it, is not an action that failed to change it.
  if (!window_.empty() && window_.back().page == page) {
    if (!window_.back().waited) ++unchanged_;
  } else {
    unchanged_ = 0;
  }
  std::vector<int> earlier;  // the steps that took this action on this page
  for (const Seen& seen : window_)
    if (seen.page == page && seen.act == act) earlier.push_back(seen.step);
  window_.push_back({act, page, step_, action.kind == ActionKind::Wait || action.kind == ActionKind::Zoom});
  if (window_.size() > kWindow) window_.pop_front();

  Verdict verdict;
  const auto where = [&] {
    const bool in_a_row = earlier.back() == step_ - 1 && earlier.front() == step_ - static_cast<int>(earlier.size());
    if (in_a_row) return std::string("in a row on this unchanged page");
    return "on this same page in the last " + std::to_string(step_ - earlier.front() + 1) + " steps (steps " +
           list(earlier) + " and now): the run is going round in a loop";
  };
  if (earlier.size() + 1 >= kRepeatsToStop) {
    verdict.stuck = describe(action) + " taken " + std::to_string(earlier.size() + 1) + " times " + where();
  } else if (unchanged_ >= kUnchangedToStop) {
    verdict.stuck = "the last " + std::to_string(unchanged_) + " actions changed nothing on the page";
  } else if (earlier.size() + 1 == kRepeatsToWarn) {
    verdict.warning = "Warning: this is the third time this action was taken " + where() +
                      ". It is not working: try something different, or the run will end";
  } else if (unchanged_ == kUnchangedToWarn) {
    verdict.warning = "Warning: the last " + std::to_string(unchanged_) +
                      " actions changed nothing on the page (its address, its elements, what they hold and where "
                      "it is scrolled are as they were). Try something different, or the run will end";
  }
  return verdict;
}

std::string ProgressWatch::list(const std::vector<int>& steps) {
  std::string text;
  for (int step : steps) text += (text.empty() ? "" : ", ") + std::to_string(step);
  return text;
}

}  // namespace vimgpt::agent
