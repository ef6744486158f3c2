// The run cache: one ordinary record folder per task, named by a digest of what makes it the same task.
#include <unistd.h>

#include <cstdlib>
#include <filesystem>

#include "common/text.h"
#include "replay/replay.h"

namespace vimgpt::replay {

namespace fs = std::filesystem;

std::string cache_key(const std::string& objective, const std::string& start_url, int viewport_width,
                      int viewport_height) {
  return content_digest(objective + "\n" + start_url + "\n" + std::to_string(viewport_width) + "x" +
                        std::to_string(viewport_height));
}

std::optional<Recording> cached_run(const std::string& cache_dir, const std::string& key) {
  auto recording = load((fs::path(cache_dir) / key).string());
  if (!recording) return std::nullopt;
  return std::move(*recording);
}

Result<std::string> staging_dir(const std::string& cache_dir) {
  std::error_code error;
  fs::create_directories(cache_dir, error);
  if (error) return fail(ErrorKind::Io, "--cache: cannot create " + cache_dir + ": " + error.message());
  std::string pattern = (fs::path(cache_dir) / ".run-XXXXXX").string();
  if (::mkdtemp(pattern.data()) == nullptr)
    return fail(ErrorKind::Io, "--cache: cannot create a folder in " + cache_dir);
  return pattern;
}

Status store(const std::string& cache_dir, const std::string& key, const std::string& record_dir) {
  std::error_code error;
  const fs::path cache = fs::weakly_canonical(cache_dir, error);
  const fs::path record = fs::weakly_canonical(record_dir, error);
  fs::path incoming = record;
  if (record.parent_path() != cache) {
    // A record folder of the user's (--record) stays theirs: the cache gets a copy.
    VIMGPT_TRY(std::string copy, staging_dir(cache_dir));
    fs::copy(record, copy, fs::copy_options::recursive | fs::copy_options::overwrite_existing, error);
    if (error) return fail(ErrorKind::Io, "--cache: cannot copy " + record_dir + ": " + error.message());
    incoming = copy;
  }
  // The old entry is moved aside before the new one takes its name, so a reader never sees half of either.
  const fs::path entry = cache / key;
  fs::path old;
  if (fs::exists(entry, error)) {
    VIMGPT_TRY(std::string aside, staging_dir(cache_dir));
    old = fs::path(aside) / "old";
    fs::rename(entry, old, error);
    if (error) return fail(ErrorKind::Io, "--cache: cannot replace " + entry.string() + ": " + error.message());
  }
  fs::rename(incoming, entry, error);
  if (error) return fail(ErrorKind::Io, "--cache: cannot store the run as " + entry.string() + ": " + error.message());
  if (!old.empty()) fs::remove_all(old.parent_path(), error);
  return ok();
}

}  // namespace vimgpt::replay
