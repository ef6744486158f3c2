// Private to src/launch: starting a helper program of the browser's (Xvfb, Firefox) as a child of ours.
#pragma once

#include <sys/types.h>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"

namespace vimgpt::launch {

struct ChildSpec {
  std::vector<std::string> argv;         // argv[0]: the program's path
  std::vector<std::string> environment;  // empty: ours
  std::vector<std::pair<int, int>> fds;  // a descriptor of ours → the number the child gets it as (3 and up)
  int stderr_fd = -1;                    // the child's stderr: this descriptor, or /dev/null
};

// This process's environment with `set` ("NAME=VALUE") in place of those variables, and `dropped` (names) left out.
std::vector<std::string> environment_with(const std::vector<std::string>& set,
                                          const std::vector<std::string>& dropped = {});

// Starts it in a process group of its own (so every helper it starts ends with it), killed when the thread that
// started it ends (PR_SET_PDEATHSIG), its stdin and stdout on /dev/null, holding no other descriptor of ours.
Result<pid_t> spawn_child(const ChildSpec& spec);

// Reads whole lines from `fd` until one satisfies `wanted` (a program announcing itself on a pipe): that line, without
// its newline. Timeout when none came in time, Io when the pipe closed first.
Result<std::string> read_line(int fd, const std::function<bool(std::string_view line)>& wanted,
                              std::chrono::milliseconds timeout);

// How long a browser whose connection closed may take to end before its error says only that the connection closed.
inline constexpr std::chrono::milliseconds kExitWait{1000};

// How a child of ours ended ("was killed by signal 9", "exited with status 1"), waiting up to `wait` for it to end;
// nothing while it runs. It is left unreaped, for end_child.
std::optional<std::string> exit_of(pid_t pid, std::chrono::milliseconds wait);

// Ends a child's process group: SIGTERM, then SIGKILL after `grace`; reaped, and the group collected.
void end_child(pid_t pid, int grace_ms = 2000);

// Kills what is left of the process group `pid` leads and, as long as we are its members' subreaper (the browser
// launches make us one), reaps them, so none is left, not even a zombie; gives up after `grace_ms`. Then reaps the
// other orphans that ended (reap_orphans).
void collect_group(pid_t pid, int grace_ms = 2000);

// fork(), the child tracked as one launch waits for itself (a browser, Xvfb: the leaders of their groups) from the
// moment it exists, so reap_orphans never takes it; collect_group lets it go.
pid_t fork_tracked();
// Reaps every child of ours that has ended and is not tracked: the orphans we adopted as their subreaper outside the
// groups collect_group empties (Chromium's crash handler runs in a session of its own, and ends with the browser).
// Without this each closed browser left two zombies behind, for as long as vimgpt ran (bench/soak/run).
void reap_orphans();

}  // namespace vimgpt::launch
