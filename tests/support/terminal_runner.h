// Runs the real vimgpt binary in a folder of the test's choosing, with an environment of its choosing: with standard
// error on a pseudo-terminal (what a person at a terminal sees), or on a file (a log).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

namespace vimgpt::test {

struct FolderRun {
  int exit_code = -1;
  std::string out;  // standard output (a file in both cases: machine output is read as a program reads it)
  std::string err;  // standard error: what the terminal received, byte for byte, or the file's text
};

enum class StandardError { Terminal, File };

// vimgpt `args` in `folder` with exactly `environment` ("NAME=VALUE"); standard input reads nothing. On a terminal,
// the pseudo-terminal is raw, so what is read is what vimgpt wrote (no "\n" turned into "\r\n").
FolderRun run_vimgpt_in(const std::vector<std::string>& args, const std::filesystem::path& folder,
                        const std::vector<std::string>& environment, StandardError err);

}  // namespace vimgpt::test
