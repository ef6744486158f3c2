// Which browser an engine's name means: the one place that chooses (the CLI's --engine, a batch worker's own browser,
// Tab::launch all come here).
#include "launch/launch.h"

namespace vimgpt::launch {

Result<Engine> parse_engine(std::string_view name) {
  if (name == "chromium" || name == "chrome") return Engine::Chromium;
  if (name == "firefox") return Engine::Firefox;
  return fail(ErrorKind::InvalidArgument, "--engine takes chromium or firefox, not \"" + std::string(name) + "\"");
}

std::string_view to_string(Engine engine) {
  return engine == Engine::Firefox ? "firefox" : "chromium";
}

Result<std::unique_ptr<Transport>> launch_browser(const LaunchOptions& options) {
  return options.engine == Engine::Firefox ? launch_firefox(options) : launch_chromium(options);
}

}  // namespace vimgpt::launch
