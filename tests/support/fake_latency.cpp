#include "support/fake_latency.h"

#include <thread>

namespace vimgpt::test {

void simulate_latency(std::chrono::milliseconds delay) {
  std::this_thread::sleep_for(delay);
}

}  // namespace vimgpt::test
