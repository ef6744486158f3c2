#include "pdf/pdf.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <vector>

#include "common/file.h"

extern char** environ;

namespace vimgpt::pdf {
namespace {

using Clock = std::chrono::steady_clock;

struct Finished {
  int status = 0;      // the exit status (-1: killed for taking longer than its cap)
  std::string output;  // stdout
  std::string errors;  // stderr
};

std::string program_path(const char* name) {
  const char* path = std::getenv("PATH");
  std::string dirs = path != nullptr && *path != '\0' ? path : "/usr/bin:/bin";
  std::size_t start = 0;
  while (start <= dirs.size()) {
    const std::size_t end = std::min(dirs.find(':', start), dirs.size());
    std::string candidate = dirs.substr(start, end - start) + "/" + name;
    if (end > start && ::access(candidate.c_str(), X_OK) == 0) return candidate;
    start = end + 1;
  }
  return "";
}

// Runs a poppler program with `args`, its stdout and stderr read until it ends; killed when it takes longer than
// `cap` (a PDF built to make the converter spin must not hold the run).
Result<Finished> run(const char* name, const std::vector<std::string>& args, std::chrono::milliseconds cap) {
  const std::string program = program_path(name);
  if (program.empty()) {
    return fail(
        ErrorKind::Unsupported,
        std::string(name) + " is not installed: PDFs are read with poppler-utils (apt-get install poppler-utils)");
  }
  std::array<int, 2> out{-1, -1};
  std::array<int, 2> err{-1, -1};
  if (::pipe2(out.data(), O_CLOEXEC) != 0) return fail(ErrorKind::Io, "cannot make a pipe for " + program);
  if (::pipe2(err.data(), O_CLOEXEC) != 0) {
    ::close(out[0]);
    ::close(out[1]);
    return fail(ErrorKind::Io, "cannot make a pipe for " + program);
  }
  std::vector<std::string> argv_strings{program};
  argv_strings.insert(argv_strings.end(), args.begin(), args.end());
  std::vector<char*> argv;
  argv.reserve(argv_strings.size() + 1);
  for (auto& arg : argv_strings) argv.push_back(arg.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_adddup2(&actions, out[1], 1);
  posix_spawn_file_actions_adddup2(&actions, err[1], 2);
  pid_t pid = -1;
  const int spawned = ::posix_spawn(&pid, program.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  ::close(out[1]);
  ::close(err[1]);
  if (spawned != 0) {
    ::close(out[0]);
    ::close(err[0]);
    return fail(ErrorKind::Io, "cannot start " + program);
  }
  Finished finished;
  std::array<pollfd, 2> fds{{{out[0], POLLIN, 0}, {err[0], POLLIN, 0}}};
  std::array<std::string*, 2> into{&finished.output, &finished.errors};
  const auto deadline = Clock::now() + cap;
  int open = 2;
  bool killed = false;
  std::array<char, 65536> buffer{};
  while (open > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
    if (left <= 0) {
      ::kill(pid, SIGKILL);
      killed = true;
      break;
    }
    if (::poll(fds.data(), fds.size(), static_cast<int>(left)) < 0 && errno != EINTR) break;
    for (std::size_t i = 0; i < fds.size(); ++i) {
      if (fds[i].fd < 0 || fds[i].revents == 0) continue;
      const ssize_t got = ::read(fds[i].fd, buffer.data(), buffer.size());
      if (got > 0) {
        into[i]->append(buffer.data(), static_cast<std::size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        --open;
      }
    }
  }
  for (const auto& fd : fds) {
    if (fd.fd >= 0) ::close(fd.fd);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
  }
  if (killed) {
    return fail(ErrorKind::Timeout, std::string(name) + " took longer than " + std::to_string(cap.count() / 1000) +
                                        " s on the PDF and was stopped");
  }
  finished.status = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  return finished;
}

std::string first_line(const std::string& text) {
  const auto end = text.find('\n');
  return text.substr(0, end == std::string::npos ? text.size() : end);
}

Failure unreadable(const std::string& path, const Finished& finished) {
  const std::string why = first_line(finished.errors);
  return fail(ErrorKind::InvalidArgument,
              "poppler cannot read " + path + " as a PDF" + (why.empty() ? std::string() : ": " + why));
}

// A private folder of our own, removed with everything in it when this ends.
struct ScratchFolder {
  std::filesystem::path path;
  ScratchFolder() {
    std::string name = (std::filesystem::temp_directory_path() / "vimgpt-pdf-XXXXXX").string();
    if (::mkdtemp(name.data()) != nullptr) path = name;
  }
  ScratchFolder(const ScratchFolder&) = delete;
  ScratchFolder& operator=(const ScratchFolder&) = delete;
  ~ScratchFolder() {
    std::error_code ignored;
    if (!path.empty()) std::filesystem::remove_all(path, ignored);
  }
};

void replace_all(std::string& text, std::string_view from, std::string_view to) {
  for (auto at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

}  // namespace

bool available() {
  return !program_path("pdfinfo").empty() && !program_path("pdftohtml").empty();
}

bool is_pdf(const std::string& path) {
  std::ifstream file(path, std::ios::binary);
  std::array<char, 5> head{};
  return file.read(head.data(), head.size()) && std::string_view(head.data(), head.size()) == "%PDF-";
}

Result<Info> info(const std::string& path, std::chrono::milliseconds cap) {
  VIMGPT_TRY(Finished finished, run("pdfinfo", {"-enc", "UTF-8", path}, cap));
  if (finished.status != 0) return unreadable(path, finished);
  Info read;
  std::size_t start = 0;
  while (start < finished.output.size()) {
    const std::size_t end = std::min(finished.output.find('\n', start), finished.output.size());
    const std::string_view line(finished.output.data() + start, end - start);
    const auto colon = line.find(':');
    if (colon != std::string_view::npos) {
      const std::string_view key = line.substr(0, colon);
      std::string_view value = line.substr(colon + 1);
      while (!value.empty() && value.front() == ' ') value.remove_prefix(1);
      if (key == "Pages") read.pages = std::atoi(std::string(value).c_str());
      if (key == "Title") read.title = value;
    }
    start = end + 1;
  }
  if (read.pages <= 0) return fail(ErrorKind::InvalidArgument, "poppler found no pages in " + path);
  return read;
}

Result<std::string> to_html(const std::string& path, int first, int last, std::chrono::milliseconds cap) {
  if (first < 1 || last < first) {
    return fail(ErrorKind::InvalidArgument,
                "pages " + std::to_string(first) + "-" + std::to_string(last) + " are not a range of a PDF's pages");
  }
  ScratchFolder folder;
  if (folder.path.empty()) return fail(ErrorKind::Io, "cannot make a folder for the PDF's pages in the temp folder");
  // -c: each page as it looks (text placed over a picture of the rest); -s -noframes: one document; -dataurls: its
  // pictures inside it, so it needs no folder once made.
  VIMGPT_TRY(Finished finished, run("pdftohtml",
                                    {"-c", "-s", "-noframes", "-dataurls", "-q", "-f", std::to_string(first), "-l",
                                     std::to_string(last), path, (folder.path / "doc").string()},
                                    cap));
  if (finished.status != 0) return unreadable(path, finished);
  VIMGPT_TRY(std::string html, read_file(folder.path / "doc.html"));
  // Its links between pages name the file it was written to: the document is shown without one.
  replace_all(html, "href=\"doc.html#", "href=\"#");
  return html;
}

}  // namespace vimgpt::pdf
