// Shards of one task file: the hash's reference values, shards that split a file exactly, and the schedulers'
// index variables read as Slurm and Kubernetes set them.
#include <gtest/gtest.h>

#include <map>
#include <string>
#include <vector>

#include "fleet/fleet.h"

namespace vimgpt::fleet {
namespace {

TEST(Shards, HashIsFnv1a64) {
  // The FNV-1a reference values (Fowler, Noll and Vo's test vectors, 64-bit).
  EXPECT_EQ(stable_hash(""), 0xcbf29ce484222325ULL);
  EXPECT_EQ(stable_hash("a"), 0xaf63dc4c8601ec8cULL);
  EXPECT_EQ(stable_hash("foobar"), 0x85944171f73967e8ULL);
}

TEST(Shards, TheShardsOfOneFileAreDisjointAndCoverIt) {
  for (const std::uint64_t count : {2U, 3U, 7U}) {
    std::vector<int> owners(500, 0);
    std::vector<int> sizes(count, 0);
    for (std::uint64_t index = 0; index < count; ++index) {
      for (std::size_t id = 0; id < owners.size(); ++id) {
        if (in_shard({index, count}, "task-" + std::to_string(id))) {
          ++owners[id];
          ++sizes[index];
        }
      }
    }
    for (std::size_t id = 0; id < owners.size(); ++id) EXPECT_EQ(owners[id], 1) << "task-" << id << " of " << count;
    // Spread: no shard of 500 ids is far from its share.
    for (const int size : sizes) EXPECT_GT(size, 500 / static_cast<int>(count) / 2) << count;
  }
  EXPECT_TRUE(in_shard({}, "anything"));  // no --shard: one shard of everything
}

// The environment of a scheduler's task, for parse_shard.
std::map<std::string, std::string> scheduler_env;
const char* read_scheduler_env(const char* name) {
  const auto found = scheduler_env.find(name);
  return found == scheduler_env.end() ? nullptr : found->second.c_str();
}

Shard shard_of(std::string_view text, std::map<std::string, std::string> env) {
  scheduler_env = std::move(env);
  auto shard = parse_shard(text, read_scheduler_env);
  EXPECT_TRUE(shard) << text << ": " << shard.error().message;
  return shard ? *shard : Shard{99, 99};
}

std::string shard_error(std::string_view text, std::map<std::string, std::string> env) {
  scheduler_env = std::move(env);
  auto shard = parse_shard(text, read_scheduler_env);
  EXPECT_FALSE(shard) << text;
  return shard ? "" : shard.error().message;
}

TEST(Shards, ReadsKOfNAndTheSchedulersIndexes) {
  const auto is = [](Shard shard, std::uint64_t index, std::uint64_t count) {
    return shard.index == index && shard.count == count;
  };
  EXPECT_TRUE(is(shard_of("3/8", {}), 3, 8));
  // sbatch --array=0-7
  EXPECT_TRUE(is(shard_of("auto", {{"SLURM_ARRAY_TASK_ID", "5"}, {"SLURM_ARRAY_TASK_COUNT", "8"}}), 5, 8));
  // sbatch --array=1-8: numbered from 1
  EXPECT_TRUE(is(
      shard_of("auto", {{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_MIN", "1"}, {"SLURM_ARRAY_TASK_COUNT", "8"}}),
      0, 8));
  // sbatch --array=0-14:2 (8 tasks: 0, 2, ... 14)
  EXPECT_TRUE(is(shard_of("auto", {{"SLURM_ARRAY_TASK_ID", "14"},
                                   {"SLURM_ARRAY_TASK_MIN", "0"},
                                   {"SLURM_ARRAY_TASK_STEP", "2"},
                                   {"SLURM_ARRAY_TASK_COUNT", "8"}}),
                 7, 8));
  // A Kubernetes Indexed Job with completions: 4
  EXPECT_TRUE(is(shard_of("auto/4", {{"JOB_COMPLETION_INDEX", "2"}}), 2, 4));
}

TEST(Shards, SaysWhatToPassInstead) {
  EXPECT_NE(shard_error("2/2", {}).find("does not exist"), std::string::npos);
  EXPECT_NE(shard_error("0/0", {}).find("does not exist"), std::string::npos);
  EXPECT_NE(shard_error("one/2", {}).find("K/N"), std::string::npos);
  EXPECT_NE(shard_error("1", {}).find("K/N"), std::string::npos);
  EXPECT_NE(shard_error("auto", {}).find("neither is set"), std::string::npos);
  EXPECT_NE(shard_error("auto", {{"JOB_COMPLETION_INDEX", "1"}}).find("--shard auto/N"), std::string::npos);
  EXPECT_NE(shard_error("auto/4", {{"JOB_COMPLETION_INDEX", "4"}}).find("does not exist"), std::string::npos);
  EXPECT_NE(shard_error("auto", {{"SLURM_ARRAY_TASK_ID", "3"},
                                 {"SLURM_ARRAY_TASK_MIN", "0"},
                                 {"SLURM_ARRAY_TASK_STEP", "2"},
                                 {"SLURM_ARRAY_TASK_COUNT", "8"}})
                .find("not evenly stepped"),
            std::string::npos);
}

}  // namespace
}  // namespace vimgpt::fleet
