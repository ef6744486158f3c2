// What an installed vimgpt carries beside the binary, through the real binary: --version naming the commit it was
// built from, and the completions and man page written from its own command line (cmake/install.cmake installs what
// `vimgpt completions bash|zsh|fish|man` prints).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <sstream>

#include "support/cli_runner.h"

namespace vimgpt {
namespace {

namespace fs = std::filesystem;
using test::run_vimgpt;

struct Shell {
  int status = -1;
  std::string out;  // standard output and error
};

// Runs a shell command line (for git, cmake and the shells being completed in); its output and exit status.
Shell sh(const std::string& command) {
  Shell result;
  FILE* pipe = ::popen((command + " 2>&1").c_str(), "r");
  if (pipe == nullptr) return result;
  char buffer[4096];
  while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) result.out.append(buffer, n);
  const int status = ::pclose(pipe);
  result.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return result;
}

std::string quoted(const std::string& text) {
  std::string out = "'";
  for (const char c : text) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

std::string trimmed(std::string text) {
  while (!text.empty() && (text.back() == '\n' || text.back() == ' ')) text.pop_back();
  return text;
}

fs::path scratch(const std::string& name) {
  const fs::path dir = fs::temp_directory_path() / ("vimgpt-install-test-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  fs::create_directories(dir);
  return dir;
}

TEST(Version, NamesTheCommitTheBinaryWasBuiltFrom) {
  const auto run = run_vimgpt({"--version"});
  ASSERT_EQ(run.exit_code, 0) << run.err;
  // The build ran git describe in the source tree; run it again: the tree has not changed since (the tests run
  // right after the build).
  const auto describe = sh("git -C " + quoted(VIMGPT_SOURCE_DIR) + " describe --tags --always --dirty");
  std::smatch match;
  const std::string out = trimmed(run.out);
  ASSERT_TRUE(std::regex_match(out, match, std::regex(R"(vimgpt (\d+\.\d+\.\d+)(?: \((.+)\))?)"))) << out;
  if (describe.status == 0) {
    EXPECT_EQ(match[2].str(), trimmed(describe.out)) << out;
  } else {
    EXPECT_FALSE(match[2].matched) << "not a git checkout, yet --version names a commit: " << out;
  }
}

// cmake/build_info.cmake, as the build runs it, in repositories of the test's own making: it follows new commits and
// changes to tracked files, and names nothing outside a checkout (a release tarball).
TEST(Version, TheBuildFollowsCommitsAndChangesAndNamesNothingOutsideGit) {
  const fs::path repo = scratch("repo");
  const fs::path out = repo.parent_path() / (repo.filename().string() + "-build_info.cpp");
  const std::string script = std::string(VIMGPT_SOURCE_DIR) + "/cmake/build_info.cmake";
  const auto build_info = [&] {
    const auto ran =
        sh("cmake -DSOURCE_DIR=" + quoted(repo.string()) + " -DOUT=" + quoted(out.string()) + " -P " + quoted(script));
    EXPECT_EQ(ran.status, 0) << ran.out;
    std::ifstream in(out);
    std::stringstream text;
    text << in.rdbuf();
    std::smatch match;
    const std::string source = text.str();
    return std::regex_search(source, match, std::regex(R"re(return "([^"]*)";)re")) ? match[1].str() : "(no return)";
  };
  EXPECT_EQ(build_info(), "");  // not a repository

  const std::string git = "git -C " + quoted(repo.string()) + " -c user.name=t -c user.email=t@t ";
  ASSERT_EQ(sh(git + "init -q").status, 0);
  std::ofstream(repo / "a.txt") << "one\n";
  ASSERT_EQ(sh(git + "add a.txt").status, 0);
  ASSERT_EQ(sh(git + "commit -q -m one").status, 0);
  const std::string first = trimmed(sh(git + "rev-parse --short HEAD").out);
  EXPECT_EQ(build_info(), first);

  std::ofstream(repo / "a.txt") << "two\n";
  EXPECT_EQ(build_info(), first + "-dirty");
  ASSERT_EQ(sh(git + "commit -q -am two").status, 0);
  const std::string second = trimmed(sh(git + "rev-parse --short HEAD").out);
  EXPECT_NE(second, first);
  EXPECT_EQ(build_info(), second);
  ASSERT_EQ(sh(git + "tag v9.9.9").status, 0);
  EXPECT_EQ(build_info(), "v9.9.9");

  // A tarball unpacked inside another checkout is not that checkout's commit.
  fs::create_directories(repo / "unpacked");
  const auto inner = sh("cmake -DSOURCE_DIR=" + quoted((repo / "unpacked").string()) +
                        " -DOUT=" + quoted(out.string()) + " -P " + quoted(script));
  EXPECT_EQ(inner.status, 0) << inner.out;
  std::ifstream in(out);
  std::stringstream text;
  text << in.rdbuf();
  EXPECT_NE(text.str().find("return \"\";"), std::string::npos) << text.str();
  fs::remove_all(repo);
  fs::remove(out);
}

// The subcommands `vimgpt --help` lists (CLI11's help: a section heading ending in ':' and then indented names),
// independently of the generator.
std::vector<std::string> subcommands_in_help(const std::string& help) {
  std::vector<std::string> names;
  bool in_commands = false;
  std::istringstream lines(help);
  for (std::string line; std::getline(lines, line);) {
    if (line.empty()) continue;
    if (line.front() != ' ') {
      in_commands = line.starts_with("Subcommands:") || line.starts_with("Browser session verbs");
      continue;
    }
    if (!in_commands) continue;
    std::istringstream words(line);
    std::string name;
    words >> name;
    names.push_back(name);
  }
  return names;
}

std::vector<std::string> long_flags_in_help(const std::string& help) {
  std::vector<std::string> flags;
  std::istringstream lines(help);
  for (std::string line; std::getline(lines, line);) {
    // A flag's line starts with its names, "-o,--output" or "--headed"; the descriptions' mentions of others are
    // not its own.
    std::istringstream words(line);
    std::string names;
    words >> names;
    if (!names.starts_with("-")) continue;
    std::istringstream parts(names);
    for (std::string name; std::getline(parts, name, ',');) {
      if (name.starts_with("--")) flags.push_back(name);
    }
  }
  return flags;
}

std::string completions(const std::string& what) {
  const auto run = run_vimgpt({"completions", what});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  return run.out;
}

TEST(Completions, EveryShellNamesEveryCommandAndEachCommandsFlags) {
  const auto help = run_vimgpt({"--help"});
  ASSERT_EQ(help.exit_code, 0);
  const auto commands = subcommands_in_help(help.out);
  ASSERT_GT(commands.size(), 20U) << help.out;  // run, shot, ..., and the session verbs
  EXPECT_EQ(std::count(commands.begin(), commands.end(), "completions"), 0) << "the generator is hidden";
  const std::string bash = completions("bash");
  const std::string zsh = completions("zsh");
  const std::string fish = completions("fish");
  for (const auto& command : commands) {
    EXPECT_NE(bash.find("['vimgpt " + command + "']="), std::string::npos) << command;
    EXPECT_NE(zsh.find("'" + command + ":"), std::string::npos) << command;
    EXPECT_NE(fish.find("__vimgpt_at ''\" -a '" + command + "'"), std::string::npos) << command;
    const auto own = run_vimgpt({command, "--help"});
    ASSERT_EQ(own.exit_code, 0) << command;
    const auto flags = long_flags_in_help(own.out);
    EXPECT_FALSE(flags.empty()) << command;
    // bash: the command's line of flags holds each; fish: a -l line under the command's condition.
    const auto line_start = bash.find("['vimgpt " + command + "']=", bash.find("local -A flags"));
    std::string line = bash.substr(line_start, bash.find('\n', line_start) - line_start);
    std::replace(line.begin(), line.end(), '\'', ' ');  // the list is quoted: its last flag ends in a quote
    // fish: the command's own lines (a flag with a short name too reads -s 'h' -l 'help').
    std::string fish_lines;
    std::istringstream fish_in(fish);
    for (std::string fish_line; std::getline(fish_in, fish_line);) {
      if (fish_line.find("__vimgpt_at '" + command + "'\"") != std::string::npos) fish_lines += fish_line + "\n";
    }
    for (const auto& flag : flags) {
      EXPECT_NE((line + " ").find(" " + flag + " "), std::string::npos) << command << " " << flag << "\n" << line;
      EXPECT_NE(fish_lines.find(" -l '" + flag.substr(2) + "'"), std::string::npos) << command << " " << flag;
    }
  }
  // The nested ones: queue push, session start, ...
  for (const auto& nested : {std::string("queue"), std::string("session")}) {
    const auto own = run_vimgpt({nested, "--help"});
    for (const auto& sub : subcommands_in_help(own.out)) {
      EXPECT_NE(bash.find("['vimgpt " + nested + " " + sub + "']="), std::string::npos) << nested << " " << sub;
      EXPECT_NE(fish.find("__vimgpt_at '" + nested + "'\" -a '" + sub + "'"), std::string::npos)
          << nested << " " << sub;
    }
  }
  EXPECT_NE(run_vimgpt({"completions", "tcsh"}).err.find("give bash, zsh or fish"), std::string::npos);
}

// What a person gets at the prompt: the bash script sourced into bash, asked as bash asks a completion function.
TEST(Completions, BashCompletesCommandsFlagsAndLeavesValuesToFiles) {
  const fs::path dir = scratch("bash");
  std::ofstream(dir / "vimgpt.bash") << completions("bash");
  const auto complete = [&](const std::string& words, int cword) {
    const auto ran =
        sh("bash -c " + quoted("source " + quoted((dir / "vimgpt.bash").string()) + "; COMP_WORDS=(" + words +
                               "); COMP_CWORD=" + std::to_string(cword) + "; _vimgpt; echo \"${COMPREPLY[*]}\""));
    EXPECT_EQ(ran.status, 0) << ran.out;
    return trimmed(ran.out);
  };
  EXPECT_EQ(complete("vimgpt sh", 1), "shot");
  EXPECT_EQ(complete("vimgpt shot --vie", 2), "--viewport");
  EXPECT_EQ(complete("vimgpt queue p", 2), "push");
  EXPECT_EQ(complete("vimgpt queue push --q", 3), "--queue");
  EXPECT_EQ(complete("vimgpt --model sh", 2), "");                            // a value: left to bash's default (files)
  EXPECT_EQ(complete("vimgpt --start-url shot --max-st", 3), "--max-steps");  // "shot" was --start-url's value
  EXPECT_EQ(complete("vimgpt session start -- --al", 4), "");                 // goes to vimgpt mcp, untouched
  fs::remove_all(dir);
}

TEST(Completions, ZshAndFishReadTheirScripts) {
  for (const auto& [shell, check] : {std::pair{"zsh", "zsh -n"}, std::pair{"fish", "fish --no-execute"}}) {
    if (sh(std::string("command -v ") + shell).status != 0) {
      std::cout << shell << " is not installed: its script's syntax is not checked\n";
      continue;
    }
    const fs::path dir = scratch(shell);
    std::ofstream(dir / "script") << completions(shell);
    const auto ran = sh(std::string(check) + " " + quoted((dir / "script").string()));
    EXPECT_EQ(ran.status, 0) << shell << ": " << ran.out;
    fs::remove_all(dir);
  }
}

TEST(ManPage, CoversEveryCommandAndFormatsWithoutWarnings) {
  const std::string page = completions("man");
  EXPECT_TRUE(page.find(".TH VIMGPT 1") != std::string::npos) << page.substr(0, 300);
  const auto help = run_vimgpt({"--help"});
  for (const auto& command : subcommands_in_help(help.out)) {
    EXPECT_NE(page.find(".SS \"" + command + "\""), std::string::npos) << command;
  }
  for (const auto& flag : long_flags_in_help(help.out)) {
    std::string roff;
    for (const char c : flag) roff += c == '-' ? std::string("\\-") : std::string(1, c);
    EXPECT_NE(page.find("\\fB" + roff + "\\fR"), std::string::npos) << flag;
  }
  EXPECT_NE(page.find(".SH EXIT STATUS\n0 done"), std::string::npos);
  if (sh("command -v groff").status != 0) GTEST_SKIP() << "groff is not installed: the page is not formatted";
  const fs::path dir = scratch("man");
  std::ofstream(dir / "vimgpt.1") << page;
  // What lintian's manpage check runs: every warning groff has, as an error here.
  const auto formatted =
      sh("LC_ALL=C.UTF-8 MANROFFSEQ='' MANWIDTH=80 groff -man -Tutf8 -ww -z " + quoted((dir / "vimgpt.1").string()));
  EXPECT_EQ(formatted.status, 0);
  EXPECT_EQ(formatted.out, "");
  fs::remove_all(dir);
}

}  // namespace
}  // namespace vimgpt
