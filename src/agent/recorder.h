// Private to src/agent: writes a run's record folder — steps.jsonl (flushed after every step), the frames as
// sent to the model, run.json, and report.html.
#pragma once

#include <cstdio>
#include <memory>
#include <string>

#include "agent/agent.h"

namespace vimgpt::agent {

class Recorder {
 public:
  static Result<std::unique_ptr<Recorder>> open(const std::string& dir, const AgentOptions& options);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  void add_step(const StepRecord& step, const hints::Capture& capture);
  void finish(const RunResult& result);
  [[nodiscard]] const std::string& dir() const { return dir_; }

 private:
  Recorder(std::string dir, std::FILE* steps, Json run);
  std::string dir_;
  std::FILE* steps_;
  Json run_;
};

}  // namespace vimgpt::agent
