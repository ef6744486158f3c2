// The library example of docs/development.md, built in CI so it stays true.
#include "agent/agent.h"
#include "browser/browser.h"

#include <cstdio>

int main() {
  vimgpt::vision::ClientOptions model;
  model.base_url = "http://127.0.0.1:11434/v1";  // any OpenAI-compatible server
  model.model = "llava";
  auto client = vimgpt::vision::Client::create(model);
  auto tab = vimgpt::browser::Tab::launch({});
  if (!client || !tab) return 1;
  vimgpt::agent::AgentOptions options;
  options.objective = "find the opening hours";
  options.start_url = "https://example.com";
  vimgpt::agent::Agent agent(options, **tab,
                             std::make_unique<vimgpt::agent::ModelPlanner>(**client, vimgpt::agent::PlannerSettings{}));
  auto result = agent.run([](const vimgpt::agent::StepRecord& step) { std::printf("%s\n", step.result.c_str()); });
  std::printf("%s\n", result.answer.dump().c_str());
  return vimgpt::agent::exit_code(result.outcome);
}
