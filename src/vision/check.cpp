// --verify's request: a second look at a finished run, by a model asked only whether the answer holds. It sees what
// the agent saw last (the frame the answer was given on), the steps it took and what came of each, never the agent's
// reasoning, so that it judges the evidence rather than the story.
#include "common/fence.h"
#include "common/text.h"
#include "vision/provider.h"
#include "vision/vision.h"

namespace vimgpt::vision {
namespace {

constexpr std::string_view kCheckSystem =
    "You check the work of a web-browsing agent. You are given the user's task, the answer the agent gave, the steps "
    "it took with what came of each, and a screenshot of the page it answered on. Decide whether the answer is "
    "correct and complete for the task, judging only by this evidence: an answer the screenshot or the steps do not "
    "support fails, and so does a task left unfinished (a form not submitted, an item not added). Reply with one "
    "JSON object and nothing else: {\"pass\": true or false, \"reason\": \"one sentence: what supports the answer, "
    "or what is wrong or missing\"}.";

constexpr std::size_t kStepsShown = 30;  // the last steps: a long run's early ones say little about its answer

}  // namespace

Prompt check_prompt(const AnswerCheck& check) {
  std::string steps;
  const std::size_t first = check.steps.size() > kStepsShown ? check.steps.size() - kStepsShown : 0;
  for (std::size_t i = first; i < check.steps.size(); ++i) {
    const HistoryEntry& step = check.steps[i];
    steps += std::to_string(i + 1) + ". " + (step.action.is_null() ? std::string("(no action)") : step.action.dump()) +
             (step.url.empty() ? "" : " on " + step.url) + " -> " +
             (step.error.empty() ? (step.result.empty() ? std::string("ok") : step.result) : "failed: " + step.error) +
             "\n";
  }
  if (steps.empty()) steps = "(none: it answered on the first page)\n";
  const std::string answer = check.answer.is_string() ? check.answer.get<std::string>() : check.answer.dump();
  std::string rule;
  // What came of each step names what the page showed (its links' and fields' words): page data.
  if (!check.data_fence.empty()) {
    const DataFence fence(check.data_fence);
    rule = "\n\n" + fence.rule();
    steps = fence.wrap(steps) + "\n";
  }
  return {std::string(kCheckSystem),
          {"Task: " + check.objective + rule + "\n\nSteps taken:\n" + steps + "\nThe page it answered on: " +
           (check.url.empty() ? std::string("(unknown)") : check.url) + " (the screenshot)\n\nIts answer: " + answer}};
}

Result<CheckVerdict> read_check(std::string_view reply) {
  const Json verdict = Json::parse(detail::outermost_braces(reply), nullptr, false);
  if (!verdict.is_object() || !verdict.contains("pass") || !verdict["pass"].is_boolean()) {
    return fail(ErrorKind::Parse, "the check's reply is not {\"pass\": true|false, \"reason\": \"...\"}: " +
                                      std::string(reply.substr(0, 500)));
  }
  CheckVerdict read;
  read.passed = verdict["pass"].get<bool>();
  const Json& reason = verdict.contains("reason") ? verdict["reason"] : Json();
  read.reason = reason.is_string() ? std::string(trim(reason.get<std::string>())) : std::string();
  if (read.reason.empty()) read.reason = read.passed ? "the check passed it" : "the check gave no reason";
  return read;
}

}  // namespace vimgpt::vision
