// Private to src/agent: the loop detector the step loop asks before each action (loop.cpp).
#pragma once

#include <deque>
#include <string>
#include <vector>

#include "agent/agent.h"

namespace vimgpt::agent {

// Loop detection over the last steps: each step's action and a digest of the page it was taken on (the address, the
// labels with what they name, and the state the labels do not show: scroll positions, field values, checked and
// open states). On one page the labels name the same elements, so the same action on the same digest is the same
// act. It sees an act come back, back to back or not (A-B-A-B between two pages), and actions that stopped changing
// the page (a scroll at the bottom, clicks on what does nothing); it tells the model in plain words the first time,
// and ends the run when it goes on.
class ProgressWatch {
 public:
  struct Verdict {
    std::string warning;  // for the model, after what the action did
    std::string stuck;    // not empty: the run ends before the action
  };

  // The action about to be taken on this page: a warning for the model, or why the run ends before it.
  Verdict note(const Action& action, const std::string& url, const hints::HintMap& map);
  // Whether this page is the one the last noted action was taken on: that action changed nothing it shows.
  [[nodiscard]] bool unchanged_since_last_action(const std::string& url, const hints::HintMap& map) const;

 private:
  static constexpr std::size_t kWindow = 12;
  static constexpr std::size_t kRepeatsToWarn = 3;
  static constexpr std::size_t kRepeatsToStop = 4;
  static constexpr int kUnchangedToWarn = 4;
  static constexpr int kUnchangedToStop = 6;

  struct Seen {
    std::string act;
    std::size_t page = 0;
    int step = 0;
    bool waited = false;
  };

  static std::string list(const std::vector<int>& steps);
  static std::size_t digest(const std::string& url, const hints::HintMap& map);

  std::deque<Seen> window_;
  int step_ = 0;       // actions noted
  int unchanged_ = 0;  // actions in a row after which the page was as before
};

}  // namespace vimgpt::agent
