// A real one-node Slurm cluster (Debian's slurm-wlm and munge) for one test: munged with a fresh key, slurmctld
// and slurmd on free loopback ports, everything in a temporary folder, stopped by their pids when the object
// goes. Slurm's daemons run as root here (SlurmUser=root), so ready() is false for other users, and when the
// packages are not installed.
#pragma once

#include <poll.h>
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <string>

#include "support/free_port.h"

namespace vimgpt::test {

class SlurmCluster {
 public:
  SlurmCluster() {
    if (!installed() || ::geteuid() != 0) return;
    dir_ = std::filesystem::temp_directory_path() / ("vimgpt-slurm-" + std::to_string(::getpid()));
    std::filesystem::create_directories(dir_ / "state");
    std::filesystem::create_directories(dir_ / "spool");
    {
      std::ofstream key(dir_ / "munge.key", std::ios::binary);
      std::ifstream random("/dev/urandom", std::ios::binary);
      std::string bytes(1024, '\0');
      random.read(bytes.data(), static_cast<std::streamsize>(bytes.size()));
      key << bytes;
    }
    std::filesystem::permissions(dir_ / "munge.key", std::filesystem::perms::owner_read);
    const std::string d = dir_.string();
    if (!run("/usr/sbin/munged --force --key-file=" + d + "/munge.key --socket=" + d + "/munge.socket --pid-file=" + d +
             "/munged.pid --seed-file=" + d + "/munged.seed --log-file=" + d + "/munged.log")) {
      return;
    }
    char host[256] = {};
    ::gethostname(host, sizeof host - 1);
    const std::string node = std::string(host).substr(0, std::string(host).find('.'));
    std::ofstream(dir_ / "slurm.conf")
        << "ClusterName=vimgpt-test\nSlurmctldHost=" << node << "(127.0.0.1)\nSlurmctldPort=" << free_loopback_port()
        << "\nSlurmdPort=" << free_loopback_port() << "\nAuthType=auth/munge\nAuthInfo=socket=" << d
        << "/munge.socket\nCredType=cred/munge\n"
        << "SlurmUser=root\nSlurmdUser=root\nStateSaveLocation=" << d << "/state\nSlurmdSpoolDir=" << d
        << "/spool\nSlurmctldPidFile=" << d << "/slurmctld.pid\nSlurmdPidFile=" << d
        << "/slurmd.pid\nSlurmctldLogFile=" << d << "/slurmctld.log\nSlurmdLogFile=" << d << "/slurmd.log\n"
        << "ProctrackType=proctrack/linuxproc\nTaskPlugin=task/none\nSelectType=select/cons_tres\n"
        << "SelectTypeParameters=CR_Core\nSchedulerType=sched/builtin\nReturnToService=2\nMpiDefault=none\n"
        << "JobAcctGatherType=jobacct_gather/none\nAccountingStorageType=accounting_storage/none\n"
        << "NodeName=" << node << " NodeAddr=127.0.0.1 CPUs=" << ::sysconf(_SC_NPROCESSORS_ONLN)
        << " State=UNKNOWN\nPartitionName=test Nodes=" << node << " Default=YES MaxTime=INFINITE State=UP\n";
    ::setenv("SLURM_CONF", (dir_ / "slurm.conf").c_str(), 1);  // sbatch, squeue and sinfo read it
    if (!run("/usr/sbin/slurmctld -f " + d + "/slurm.conf") || !run("/usr/sbin/slurmd -f " + d + "/slurm.conf")) return;
    // Bounded: ready once the node is idle.
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(30);
    while (std::chrono::steady_clock::now() < deadline && !ready_) {
      ready_ = output("/usr/bin/sinfo -h -o %t").find("idle") != std::string::npos;
      if (!ready_) ::poll(nullptr, 0, 100);
    }
  }
  ~SlurmCluster() {
    for (const char* daemon : {"slurmd", "slurmctld", "munged"}) {
      std::ifstream pid_file(dir_ / (std::string(daemon) + ".pid"));
      pid_t pid = 0;
      if (pid_file >> pid && pid > 0) {
        ::kill(pid, SIGTERM);
        // Bounded: gone once kill(0) fails.
        for (int i = 0; i < 100 && ::kill(pid, 0) == 0; ++i) ::poll(nullptr, 0, 50);
        if (::kill(pid, 0) == 0) ::kill(pid, SIGKILL);
      }
    }
    ::unsetenv("SLURM_CONF");
    std::error_code ignored;
    if (!dir_.empty()) std::filesystem::remove_all(dir_, ignored);
  }
  SlurmCluster(const SlurmCluster&) = delete;
  SlurmCluster& operator=(const SlurmCluster&) = delete;

  [[nodiscard]] static bool installed() {
    return std::filesystem::exists("/usr/sbin/slurmctld") && std::filesystem::exists("/usr/sbin/slurmd") &&
           std::filesystem::exists("/usr/sbin/munged") && std::filesystem::exists("/usr/bin/sbatch");
  }
  [[nodiscard]] bool ready() const { return ready_; }
  [[nodiscard]] std::string log() const {
    std::ifstream in(dir_ / "slurmctld.log");
    std::string text{std::istreambuf_iterator<char>(in), {}};
    std::ifstream node(dir_ / "slurmd.log");
    return text + std::string{std::istreambuf_iterator<char>(node), {}};
  }

  // A command's standard output (through the shell); empty when it fails.
  static std::string output(const std::string& command) {
    std::string text;
    if (FILE* pipe = ::popen((command + " 2>/dev/null").c_str(), "r")) {
      char buffer[512];
      while (const std::size_t n = std::fread(buffer, 1, sizeof buffer, pipe)) text.append(buffer, n);
      if (::pclose(pipe) != 0) text.clear();
    }
    return text;
  }

  // Whether a job (or array) is still queued or running; bounded waits go through wait_for_job.
  static bool job_pending(const std::string& job) { return !output("/usr/bin/squeue -h -j " + job + " -o %i").empty(); }
  static bool wait_for_job(const std::string& job, std::chrono::seconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (std::chrono::steady_clock::now() < deadline) {
      if (!job_pending(job)) return true;
      ::poll(nullptr, 0, 200);
    }
    return !job_pending(job);
  }

 private:
  static bool run(const std::string& command) { return std::system(command.c_str()) == 0; }

  std::filesystem::path dir_;
  bool ready_ = false;
};

}  // namespace vimgpt::test
