// Private to src/agent: carrying out one action on the tab as a person would (a click at a visible point, typing
// with the Enter a person would press, a drop-down's option, a file chooser answered), and noting what the page
// did after it (its settling, refused navigations, dialogs, downloads, a crash).
#pragma once

#include <condition_variable>
#include <mutex>
#include <optional>
#include <string>

#include "agent/agent.h"

namespace vimgpt::agent {

// What an action did, for the model and the record.
struct ActResult {
  bool ok = true;
  std::string message;
  std::optional<hints::Rect> target;  // the element acted on, circled in the report
};

class Actor {
 public:
  Actor(browser::Tab& tab, const AgentOptions& options);

  // Every action but done and ask, which are the loop's.
  ActResult act(const Action& action, const hints::Capture& capture);
  // After an action: wait until the page settles (navigate and back waited already), then add to `acted` what
  // the browser reported meanwhile.
  void after(const Action& action, ActResult& acted);

 private:
  ActResult click(const hints::HintMap& map, const std::string& label, hints::Effect* effect = nullptr);
  ActResult select(const hints::HintMap& map, const std::string& label, const std::string& option);
  ActResult type_into_focus(const std::string& text, Enter enter);
  void report_downloads(ActResult& acted);
  [[nodiscard]] bool interrupted() const;

  browser::Tab& tab_;
  const AgentOptions& options_;
  std::mutex wait_mutex_;
  std::condition_variable wait_cv_;
};

}  // namespace vimgpt::agent
