// What a person did while the page was theirs, as the model and the record are told it.
#include "agent/agent.h"

namespace vimgpt::agent {

std::string describe(const Takeover& takeover) {
  const auto seconds = std::chrono::duration_cast<std::chrono::seconds>(takeover.duration).count();
  std::string text = "the person had the page for " +
                     (seconds < 1 ? std::string("under a second") : std::to_string(seconds) + " s") + " (" +
                     (takeover.did.empty() ? std::string("nothing done on the page") : takeover.did) + ")";
  if (!takeover.answer.empty()) text += " and answered: \"" + takeover.answer + "\"";
  if (!takeover.url.empty()) {
    text += "; the page is now " + (takeover.title.empty() ? std::string() : "\"" + takeover.title + "\" ") + "(" +
            takeover.url + ")";
  }
  return text;
}

Json to_json(const Takeover& takeover) {
  Json json = {{"seconds", static_cast<double>(takeover.duration.count()) / 1000.0},
               {"did", takeover.did},
               {"url", takeover.url},
               {"title", takeover.title},
               {"description", describe(takeover)}};
  if (!takeover.answer.empty()) json["answer"] = takeover.answer;
  return json;
}

}  // namespace vimgpt::agent
