// Server-side latency for loopback test servers: simulates a slow network or a slow provider.
#pragma once

#include <chrono>

namespace vimgpt::test {

void simulate_latency(std::chrono::milliseconds delay);

}  // namespace vimgpt::test
