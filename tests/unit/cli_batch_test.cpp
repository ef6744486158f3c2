// The parts of `vimgpt batch` that need no browser: task files, resuming from a results file, matching.
#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/batch.h"

namespace vimgpt::cli {
namespace {

Result<std::vector<BatchTask>> parse(const std::string& text) {
  std::istringstream in(text);
  return parse_tasks(in);
}

TEST(BatchTasks, ReadsEveryFieldAndSkipsBlankAndCommentLines) {
  auto tasks = parse(
      "# a comment\n"
      "{\"id\": \"a\", \"objective\": \"find it\", \"start_url\": \"http://127.0.0.1/\", \"max_steps\": 5, "
      "\"answer\": \"42\"}\n"
      "\n"
      "{\"id\": 7, \"objective\": \"other\"}\r\n");
  ASSERT_TRUE(tasks) << tasks.error().describe();
  ASSERT_EQ(tasks->size(), 2U);
  EXPECT_EQ((*tasks)[0].id, "a");
  EXPECT_EQ((*tasks)[0].start_url, "http://127.0.0.1/");
  EXPECT_EQ((*tasks)[0].max_steps, 5);
  EXPECT_EQ((*tasks)[0].answer, "42");
  EXPECT_EQ((*tasks)[1].id, "7");
  EXPECT_EQ((*tasks)[1].max_steps, std::nullopt);
  EXPECT_EQ((*tasks)[1].answer, std::nullopt);
}

TEST(BatchTasks, NamesTheLineOfABadTask) {
  for (const auto& [text, needle] : std::vector<std::pair<std::string, std::string>>{
           {"{\"id\": \"a\", \"objective\": \"x\"}\nnot json\n", "line 2"},
           {"{\"objective\": \"x\"}\n", "no \"id\""},
           {"{\"id\": \"a\"}\n", "no \"objective\""},
           {"{\"id\": \"a\", \"objective\": \"x\"}\n{\"id\": \"a\", \"objective\": \"y\"}\n", "twice"},
           {"{\"id\": \"a\", \"objective\": \"x\", \"max_steps\": 0}\n", "max_steps"},
       }) {
    auto tasks = parse(text);
    ASSERT_FALSE(tasks) << text;
    EXPECT_EQ(tasks.error().kind, ErrorKind::InvalidArgument);
    EXPECT_NE(tasks.error().message.find(needle), std::string::npos) << tasks.error().message;
  }
}

TEST(BatchResults, FinishedIdsIgnoreATornLastLine) {
  const auto path = std::filesystem::temp_directory_path() / ("vimgpt-results-" + std::to_string(::getpid()));
  {
    std::ofstream out(path);
    out << "{\"id\": \"a\", \"status\": \"done\"}\n{\"id\": \"b\", \"status\": \"error\"}\n{\"id\": \"c\", \"sta";
  }
  EXPECT_EQ(finished_ids(path.string()), (std::set<std::string>{"a", "b"}));
  std::filesystem::remove(path);
  EXPECT_TRUE(finished_ids(path.string()).empty());
}

TEST(BatchMatch, ExactContainsOrNone) {
  EXPECT_EQ(match_answer("4242", "4242"), "exact");
  EXPECT_EQ(match_answer("Blue Widget", "  blue widget\n"), "exact");
  EXPECT_EQ(match_answer("4242", "Confirmation number 4242."), "contains");
  EXPECT_EQ(match_answer("4242", "4243"), "none");
  EXPECT_EQ(match_answer("4242", nullptr), "none");
  EXPECT_EQ(match_answer("", "anything"), "none");
  EXPECT_EQ(match_answer("", ""), "exact");
  // A structured answer is compared as its JSON text.
  EXPECT_EQ(match_answer("42", nlohmann::json{{"price", 42}}), "contains");
  EXPECT_EQ(match_answer("[1,2]", nlohmann::json::array({1, 2})), "exact");
}

TEST(BatchFolders, IdsBecomeSafeFolderNames) {
  EXPECT_EQ(folder_name("task-1_a.b"), "task-1_a.b");
  EXPECT_EQ(folder_name("../etc/passwd"), ".._etc_passwd");
  EXPECT_EQ(folder_name(".."), "_..");
  EXPECT_EQ(folder_name("a b/c"), "a_b_c");
}

// A task's second attempt records into a folder of its own steps: the first attempt's is moved aside, kept.
TEST(BatchFolders, AnEarlierAttemptsRecordIsMovedAsideNotAppendedTo) {
  namespace fs = std::filesystem;
  const fs::path root = fs::temp_directory_path() / ("vimgpt-record-folder-" + std::to_string(::getpid()));
  fs::remove_all(root);
  const std::string first = record_folder(root.string(), "a/b");
  EXPECT_EQ(first, (root / "a_b").string());
  EXPECT_FALSE(fs::exists(first));  // nothing to move: the run makes it
  fs::create_directories(first);
  std::ofstream(fs::path(first) / "steps.jsonl") << "{\"step\": 1}\n";
  EXPECT_EQ(record_folder(root.string(), "a/b"), first);
  EXPECT_FALSE(fs::exists(first));
  EXPECT_TRUE(fs::exists(root / "a_b.attempt-1" / "steps.jsonl"));
  fs::create_directories(first);
  record_folder(root.string(), "a/b");
  EXPECT_TRUE(fs::exists(root / "a_b.attempt-2"));  // the first attempt's stays where it was put
  EXPECT_TRUE(fs::exists(root / "a_b.attempt-1" / "steps.jsonl"));
  fs::remove_all(root);
}

}  // namespace
}  // namespace vimgpt::cli
