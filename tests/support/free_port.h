// A loopback port free at the time of asking, for servers that take their port from their configuration (a
// Selenium Grid, redis-server, Slurm's daemons) rather than reporting the one the kernel gave them: one the kernel
// hands a bound socket, released.
#pragma once

#include "support/refused_port.h"

namespace vimgpt::test {

inline int free_loopback_port() {
  return RefusedPort().port();
}

}  // namespace vimgpt::test
