// The upload folder (--upload-dir): which files an {"upload"} action may name, and the one a name means, never a
// file outside it.
#include <algorithm>
#include <filesystem>

#include "agent/agent.h"

namespace vimgpt::agent {

std::vector<std::string> upload_choices(const std::string& dir) {
  namespace fs = std::filesystem;
  std::vector<std::string> names;
  std::error_code error;
  if (dir.empty()) return names;
  for (const auto& entry : fs::directory_iterator(dir, error)) {
    if (entry.is_regular_file(error)) names.push_back(entry.path().filename().string());
  }
  std::sort(names.begin(), names.end());
  return names;
}

Result<std::string> upload_path(const std::string& dir, const std::string& name) {
  namespace fs = std::filesystem;
  if (dir.empty()) {
    return fail(ErrorKind::Refused, "uploads are off: the user did not start vimgpt with --upload-dir");
  }
  std::error_code error;
  const fs::path root = fs::canonical(dir, error);
  if (error) return fail(ErrorKind::NotFound, "the upload folder " + dir + " cannot be read: " + error.message());
  const fs::path wanted = fs::weakly_canonical(root / fs::path(name), error);
  const auto [end, rest] = std::mismatch(root.begin(), root.end(), wanted.begin(), wanted.end());
  if (error || name.empty() || fs::path(name).is_absolute() || end != root.end() || rest == wanted.end()) {
    return fail(ErrorKind::Refused, "\"" + name + "\" is not in the upload folder; name one of the files offered");
  }
  if (!fs::is_regular_file(wanted, error)) {
    std::string offered;
    for (const auto& file : upload_choices(dir)) offered += (offered.empty() ? "" : ", ") + file;
    return fail(ErrorKind::NotFound, "there is no file \"" + name +
                                         "\" to upload; the files offered: " + (offered.empty() ? "none" : offered));
  }
  return wanted.string();
}

}  // namespace vimgpt::agent
