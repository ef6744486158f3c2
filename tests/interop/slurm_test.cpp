// A real Slurm job array (a one-node cluster started here on loopback): `sbatch --array=1-2` runs
// `vimgpt batch --shard auto` in each array task, as docs/scale.md tells users to; together they do every task of
// the file once, each into its own results file.
#include <gtest/gtest.h>

#include <set>

#include "support/batch_world.h"
#include "support/fake_model_server.h"
#include "support/remote_chromium.h"
#include "support/slurm_cluster.h"

namespace vimgpt {
namespace {

using namespace std::chrono_literals;

// A shell word: the command line sbatch --wrap runs goes through /bin/sh.
std::string shell_word(const std::string& word) {
  std::string out = "'";
  for (const char c : word) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return out + "'";
}

TEST(SlurmInterop, AnArrayOfTwoShardsDoesEveryTaskOnce) {
  if (!test::SlurmCluster::installed()) GTEST_SKIP() << "no slurm-wlm and munge: scripts/setup.sh installs them";
  if (::geteuid() != 0) GTEST_SKIP() << "the test cluster's daemons run as root";
  test::SlurmCluster slurm;
  ASSERT_TRUE(slurm.ready()) << slurm.log();
  test::RemoteChromium chromium;
  ASSERT_TRUE(chromium.ready());
  test::Site site;
  test::FakeModelServer model;
  test::script_model(model, site.base(), 0ms);
  test::BatchDir dir;
  const std::string tasks = dir.tasks(site.base(), 8);

  // The results file of each array task is named by its own index, as in docs/scale.md.
  auto args = test::batch_args(tasks, (dir.root / "results-$SLURM_ARRAY_TASK_ID.jsonl").string(), model, 2,
                               {chromium.ws_url()});
  std::string command = shell_word(VIMGPT_BINARY);
  for (const auto& arg : args) {
    // The results path keeps its variable for the array task's shell to expand.
    command += " " + (arg.find("$SLURM_ARRAY_TASK_ID") != std::string::npos ? "\"" + arg + "\"" : shell_word(arg));
  }
  command += " --shard auto";
  const std::string job = test::SlurmCluster::output(
      "/usr/bin/sbatch --parsable --array=1-2 --output=" + shell_word((dir.root / "slurm-%a.log").string()) +
      " --wrap " + shell_word(command));
  ASSERT_FALSE(job.empty()) << slurm.log();
  const std::string job_id = job.substr(0, job.find_first_of(";\n"));
  ASSERT_TRUE(test::SlurmCluster::wait_for_job(job_id, 180s)) << slurm.log();

  std::set<std::string> all;
  std::size_t lines = 0;
  for (const int index : {1, 2}) {
    const auto results = test::read_results((dir.root / ("results-" + std::to_string(index) + ".jsonl")).string());
    std::ifstream log(dir.root / ("slurm-" + std::to_string(index) + ".log"));
    const std::string printed{std::istreambuf_iterator<char>(log), {}};
    EXPECT_FALSE(results.empty()) << "array task " << index << ":\n" << printed;
    // sbatch --array=1-2: the first task is shard 0 of 2.
    EXPECT_NE(
        printed.find("shard " + std::to_string(index - 1) + " of 2: " + std::to_string(results.size()) + " of 8 tasks"),
        std::string::npos)
        << printed;
    for (const auto& line : results) {
      EXPECT_EQ(line["status"], "done") << line.dump();
      all.insert(line["id"].get<std::string>());
      ++lines;
    }
  }
  EXPECT_EQ(lines, 8U);  // nothing done twice
  EXPECT_EQ(all, (std::set<std::string>{"t1", "t2", "t3", "t4", "t5", "t6", "t7", "t8"}));
}

}  // namespace
}  // namespace vimgpt
