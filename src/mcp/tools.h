// Private to src/mcp: the tools, on one browser tab kept for the session.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <variant>

#include "common/fence.h"
#include "mcp/mcp.h"

namespace vimgpt::mcp {

// A tool's arguments did not fit its schema: a JSON-RPC invalid-params error, not a tool result.
struct BadArguments {
  std::string message;
};

struct BrowseTask {
  std::string objective;
  std::string start_url;  // empty: the current page
  std::optional<int> max_steps;
  std::optional<JsonSchema> output_schema;  // the answer must fit it
  std::string mode;                         // "labels", "computer-use"; empty: the server's --mode
};

class Tools {
 public:
  explicit Tools(const ServerOptions& options);
  ~Tools();

  // tools/list's answer: name, title, description, inputSchema and annotations of each tool.
  [[nodiscard]] const Json& list() const;
  // tools/call: a tool result ({content, isError}), or BadArguments. `progress` is the client's progress
  // token (null when it sent none).
  std::variant<Json, BadArguments> call(const std::string& name, const Json& arguments, const Json& progress,
                                        const Notify& notify);
  // Ends the running call early (browse stops before its next step).
  void cancel() { cancelled_ = true; }
  // Server::end: the recording's last step and its end, once; then the browser is closed.
  void end();

 private:
  Result<browser::Tab*> tab();
  // The page as the client sees it; with `only_if_changed`, a line that says so instead when it is the page the
  // client was last shown (its address, labels, what they hold and its picture alike).
  Json look(const std::string& prefix = {}, bool failed = false, bool only_if_changed = false);
  // `observe`: the call's own `look` argument, or nothing for --observe-after's choice.
  Json act(const agent::Action& action, std::optional<bool> observe);
  void forget_seen();  // the page moved on where the client did not see it
  Json browse(const BrowseTask& task, const Json& progress, const Notify& notify);
  Json tabs();
  Json find(const std::string& query);
  void finish_recording();

  const ServerOptions& options_;
  agent::AgentOptions acting_;  // options_.agent, with the cancel flag
  std::unique_ptr<browser::Tab> tab_;
  std::unique_ptr<agent::Overseer> watch_;  // the live view's tile (options_.watch), while the tab is open
  std::unique_ptr<agent::Actor> actor_;
  std::optional<hints::Capture> seen_;  // the labels the client saw last
  struct Shown {
    std::size_t text = 0;  // page_text_identity
    std::string frame;     // the labelled frame's bytes
  };
  std::optional<Shown> shown_;  // what the client was last shown whole
  // What a page wrote (its address, title, labels and words) comes between this session's fence lines.
  DataFence fence_ = DataFence::drawn();
  // --record: each acting call a step of DIR/session (browse runs go to DIR/browse-N), taken on `page` (as it
  // was before the action), with the signature of the element it named; the session ends with a done step
  // holding the last page's text digest, so `vimgpt replay DIR/session` can do it all again.
  // The live view, when open, is shown the same step.
  void record(const agent::Action& action, const agent::ActResult& acted, const hints::Capture& seen,
              const browser::PageInfo& page, const std::string& page_digest = {});
  // Before an acting call: the person's pause, when they asked for one. What to tell the client instead of acting
  // (the page is not the one it saw), or nothing.
  std::optional<std::string> person_turn();

  std::unique_ptr<agent::Recorder> recorder_;
  bool recording() const { return !options_.agent.record_dir.empty(); }
  int recorded_ = 0;
  std::atomic<bool> cancelled_{false};
  int browse_runs_ = 0;
};

}  // namespace vimgpt::mcp
