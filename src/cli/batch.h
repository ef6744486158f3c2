// Private to src/cli: the pieces of `vimgpt batch` that need no browser (task files, results files,
// answer matching), apart so they can be tested on their own.
#pragma once

#include <istream>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace vimgpt::cli {

struct BatchTask {
  std::string id;
  std::string objective;
  std::string start_url;              // empty: --start-url
  std::optional<int> max_steps;       // empty: --max-steps
  std::optional<std::string> answer;  // the expected answer, for `match`
  nlohmann::json output_schema;       // the JSON Schema its answer must fit; null: --output-schema
  nlohmann::json line;                // the task as its line gives it (what `vimgpt queue push` sends)
};

// JSON Lines, one task a line; blank lines and lines starting with # are skipped. A malformed line, a
// missing id or objective, an id used twice or an output_schema that is not a schema vimgpt can check is an
// InvalidArgument naming the line.
Result<std::vector<BatchTask>> parse_tasks(std::istream& in);

// Ids that already have a result line in a results file (a missing file has none; a torn last line from a
// crash is not a result, so its task runs again).
std::set<std::string> finished_ids(const std::string& results_path);

// "exact" when the answers are equal ignoring case and surrounding blanks, "contains" when the expected
// answer appears inside the given one, else "none". A non-string answer is compared as its JSON text.
std::string_view match_answer(std::string_view expected, const nlohmann::json& answer);

// A task id as a folder name: anything but letters, digits, '-', '_' and '.' becomes '_'.
std::string folder_name(std::string_view id);

// The folder a task's attempt records into, ROOT/<folder_name>: an earlier attempt's record there (a task put back
// when its browser died, or left unfinished by a batch that is resumed) is first moved aside to
// ROOT/<folder_name>.attempt-N, so the folder holds the steps of the attempt whose result is reported, each once.
std::string record_folder(const std::string& root, std::string_view id);

}  // namespace vimgpt::cli
