// Private to src/launch: a virtual X display of our own (Debian's Xvfb), for a headed browser on a machine without a
// display (--xvfb).
#pragma once

#include <sys/types.h>

#include <memory>
#include <string>

#include "common/result.h"

namespace vimgpt::launch {

class VirtualDisplay {
 public:
  // Starts Xvfb on a display number it picks itself (-displayfd), ready once this returns. NotFound when Xvfb is not
  // installed, Io when it does not start.
  static Result<std::unique_ptr<VirtualDisplay>> start(int width, int height);
  // Ends and reaps Xvfb.
  ~VirtualDisplay();
  VirtualDisplay(const VirtualDisplay&) = delete;
  VirtualDisplay& operator=(const VirtualDisplay&) = delete;

  // What DISPLAY is set to for the browser: ":N".
  [[nodiscard]] const std::string& name() const { return name_; }

 private:
  VirtualDisplay(pid_t pid, std::string name) : pid_(pid), name_(std::move(name)) {}
  pid_t pid_;
  std::string name_;
};

}  // namespace vimgpt::launch
