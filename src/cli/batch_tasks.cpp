// The files of `vimgpt batch`: tasks in, results out, and how an answer matches the expected one.
#include <cctype>
#include <filesystem>
#include <fstream>

#include "agent/agent.h"
#include "cli/batch.h"
#include "common/text.h"

namespace vimgpt::cli {

Result<std::vector<BatchTask>> parse_tasks(std::istream& in) {
  std::vector<BatchTask> tasks;
  std::set<std::string> seen;
  std::string line;
  int number = 0;
  while (std::getline(in, line)) {
    ++number;
    const auto first = line.find_first_not_of(" \t\r");
    if (first == std::string::npos || line[first] == '#') continue;
    const std::string where = "task line " + std::to_string(number);
    const auto json = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (!json.is_object()) return fail(ErrorKind::InvalidArgument, where + " is not a JSON object");
    BatchTask task;
    task.line = json;
    if (json.contains("id") && json["id"].is_string()) task.id = json["id"].get<std::string>();
    if (json.contains("id") && json["id"].is_number_integer()) task.id = std::to_string(json["id"].get<long>());
    if (task.id.empty()) return fail(ErrorKind::InvalidArgument, where + " has no \"id\"");
    if (!seen.insert(task.id).second)
      return fail(ErrorKind::InvalidArgument, where + ": id " + task.id + " is used twice");
    if (!json.contains("objective") || !json["objective"].is_string() || json["objective"].get<std::string>().empty()) {
      return fail(ErrorKind::InvalidArgument, where + " has no \"objective\"");
    }
    task.objective = json["objective"].get<std::string>();
    if (json.contains("start_url") && json["start_url"].is_string()) task.start_url = json["start_url"];
    if (json.contains("max_steps")) {
      if (!json["max_steps"].is_number_integer() || json["max_steps"].get<int>() < 1) {
        return fail(ErrorKind::InvalidArgument, where + ": max_steps takes a positive whole number");
      }
      task.max_steps = json["max_steps"].get<int>();
    }
    if (json.contains("output_schema") && !json["output_schema"].is_null()) {
      if (auto schema = JsonSchema::read(json["output_schema"]); !schema) {
        return fail(ErrorKind::InvalidArgument, where + ": output_schema: " + schema.error().message);
      }
      task.output_schema = json["output_schema"];
    }
    if (json.contains("answer") && !json["answer"].is_null()) {
      task.answer = json["answer"].is_string() ? json["answer"].get<std::string>() : json["answer"].dump();
    }
    tasks.push_back(std::move(task));
  }
  return tasks;
}

std::set<std::string> finished_ids(const std::string& results_path) {
  std::set<std::string> ids;
  std::ifstream in(results_path);
  std::string line;
  while (std::getline(in, line)) {
    const auto json = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
    if (json.is_object() && json.contains("id") && json["id"].is_string()) ids.insert(json["id"].get<std::string>());
  }
  return ids;
}

std::string_view match_answer(std::string_view expected, const nlohmann::json& answer) {
  const std::string given = ascii_lower(trim(agent::answer_text(answer)));
  const std::string want = ascii_lower(trim(expected));
  if (given == want) return "exact";
  if (!want.empty() && given.find(want) != std::string::npos) return "contains";
  return "none";
}

std::string folder_name(std::string_view id) {
  std::string name(id);
  for (char& c : name) {
    if (std::isalnum(static_cast<unsigned char>(c)) == 0 && c != '-' && c != '_' && c != '.') c = '_';
  }
  if (name.empty() || name == "." || name == "..") name = "_" + name;
  return name;
}

std::string record_folder(const std::string& root, std::string_view id) {
  namespace fs = std::filesystem;
  const fs::path folder = fs::path(root) / folder_name(id);
  std::error_code error;
  if (fs::exists(folder, error)) {
    for (int attempt = 1;; ++attempt) {
      fs::path aside = folder;
      aside += ".attempt-" + std::to_string(attempt);
      if (fs::exists(aside, error)) continue;
      fs::rename(folder, aside, error);  // a folder that cannot be moved is recorded into as it is
      break;
    }
  }
  return folder.string();
}

}  // namespace vimgpt::cli
