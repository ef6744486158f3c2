// Firefox's profile template. A first start in an empty profile compiles Firefox's own chrome scripts into the
// profile's startup cache, registers its built-in add-ons and creates its databases: here (Firefox ESR 153.8, two
// cores, 2026-12-04) a start to an open BiDi session took 3.1 s and 5.0 CPU-seconds so, against 2.1 s and 3.5 in a copy
// of a profile that had started once (docs/benchmarks.md). The template is such a profile, made once per Firefox build
// and set of vimgpt's prefs: Firefox started in an empty folder, its BiDi session opened (Firefox answers session.new
// once the startup's last idle tasks have run), and closed (a clean quit writes the startup cache). It never loads a
// page, so nothing of one run reaches another. A launch without --user-data-dir copies it (about 40 ms for its 34 MB).
#include <array>
#include <cerrno>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>

#include "launch/child.h"
#include "launch/firefox_profile.h"

namespace vimgpt::launch {
namespace fs = std::filesystem;
namespace {

constexpr std::chrono::seconds kTemplateTimeout{60};
// A template made this long ago by another Firefox build is removed when this build makes its own.
constexpr auto kStaleTemplate = std::chrono::hours(24 * 30);

// $XDG_CACHE_HOME/vimgpt/firefox-profiles, else ~/.cache/vimgpt/firefox-profiles (the XDG Base Directory spec: a
// relative $XDG_CACHE_HOME is ignored).
std::optional<fs::path> templates_folder() {
  if (const char* xdg = std::getenv("XDG_CACHE_HOME"); xdg != nullptr && *xdg == '/')
    return fs::path(xdg) / "vimgpt" / "firefox-profiles";
  if (const char* home = std::getenv("HOME"); home != nullptr && *home == '/')
    return fs::path(home) / ".cache" / "vimgpt" / "firefox-profiles";
  return std::nullopt;
}

// "153.8.0-20261117185949": the version and build of the application.ini beside the binary a link leads to; empty for
// a Firefox without one (the template would not know when it is stale).
std::string firefox_build(const std::string& firefox) {
  std::error_code error;
  const fs::path binary = fs::canonical(firefox, error);
  if (error) return {};
  std::ifstream ini(binary.parent_path() / "application.ini");
  std::string line;
  std::string version;
  std::string build;
  while (std::getline(ini, line)) {
    if (line.starts_with("Version=")) version = line.substr(8);
    if (line.starts_with("BuildID=")) build = line.substr(8);
  }
  return version.empty() || build.empty() ? std::string() : version + "-" + build;
}

// vimgpt's prefs, named (FNV-1a, the same from build to build as std::hash need not be): a change to them makes a new
// template.
std::string prefs_digest() {
  std::uint32_t hash = 2166136261U;
  for (const unsigned char c : firefox_automation_prefs().dump()) {
    hash ^= c;
    hash *= 16777619U;
  }
  std::array<char, 9> text{};
  std::snprintf(text.data(), text.size(), "%08x", hash);
  return text.data();
}

// Makes the template at `where`, in a folder beside it renamed into place: a template is whole or absent, whoever else
// is making one at the same time (the first rename wins; the others' work is removed).
Status make_template(const std::string& firefox, const fs::path& where) {
  auto scratch = make_scratch_folder(where.parent_path() / ("." + where.filename().string() + "-XXXXXX"));
  if (!scratch) return scratch.failure();
  const fs::path profile = *scratch / "profile";
  std::error_code error;
  fs::create_directories(profile, error);
  fs::create_directories(*scratch / "tmp", error);
  auto prefs = write_prefs(profile, LaunchOptions{});
  auto transport = prefs ? start_firefox({firefox, profile, *scratch, true, nullptr,
                                          environment_with({"TMPDIR=" + (*scratch / "tmp").string()})})
                         : Result<std::unique_ptr<Transport>>(prefs.failure());
  if (!transport) {
    fs::remove_all(*scratch, error);
    return transport.failure();
  }
  // The wire's own connection: its commands time out, so a Firefox that never answers is given up on.
  wire::Connection connection(std::move(*transport));
  const bool started =
      connection.call("session.new", {{"capabilities", Json::object()}}, {}, kTemplateTimeout).has_value();
  if (started) connection.post("browser.close");  // Firefox quits as it answers: its end is the answer awaited
  const auto ended = started ? exit_of(connection.process_id(), kTemplateTimeout) : std::nullopt;
  Status made = ok();
  if (ended != "exited with status 0") {
    made = fail(ErrorKind::BrowserExited, "Firefox did not start and quit cleanly in a new profile (" +
                                              ended.value_or("no clean quit within a minute") + ")");
  } else {
    // Each launch writes its own user.js; the lock is the quit Firefox's.
    for (const char* name : {"user.js", "lock", ".parentlock"}) fs::remove(profile / name, error);
    fs::rename(profile, where, error);
  }
  connection.close();  // ends what is left of Firefox and removes the scratch folder
  return made;
}

void remove_stale_templates(const fs::path& folder, const fs::path& kept) {
  std::error_code error;
  const auto now = fs::file_time_type::clock::now();
  for (const auto& entry : fs::directory_iterator(folder, error)) {
    if (entry.path() == kept || entry.path().filename().string().starts_with(".")) continue;
    if (now - entry.last_write_time(error) > kStaleTemplate) fs::remove_all(entry.path(), error);
  }
}

}  // namespace

Result<fs::path> make_scratch_folder(const fs::path& pattern) {
  std::string name = pattern.string();
  if (::mkdtemp(name.data()) == nullptr) {
    return fail(ErrorKind::Io,
                "cannot create a folder for Firefox (" + pattern.parent_path().string() + "): " + std::strerror(errno));
  }
  return fs::path(name);
}

void copy_profile_template(const std::string& firefox, const fs::path& profile) {
  const auto folder = templates_folder();
  const std::string build = firefox_build(firefox);
  if (!folder || build.empty()) return;
  const fs::path where = *folder / (build + "-" + prefs_digest());
  // A template that could not be made is not tried at every launch: the reason stays beside it, and removing that
  // file tries again.
  const fs::path failed = where.string() + ".failed";
  std::error_code error;
  if (!fs::is_directory(where, error)) {
    if (fs::exists(failed, error)) return;
    fs::create_directories(*folder, error);
    if (auto made = make_template(firefox, where); !made && !fs::is_directory(where, error)) {
      std::ofstream(failed) << made.error().message << '\n';
      return;
    }
    remove_stale_templates(*folder, where);
  }
  fs::copy(where, profile, fs::copy_options::recursive, error);
  if (error) {  // part of a profile is none: Firefox starts in an empty one
    for (const auto& entry : fs::directory_iterator(profile, error)) fs::remove_all(entry.path(), error);
  }
}

}  // namespace vimgpt::launch
