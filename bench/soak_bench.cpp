// The soak (issue 50): does vimgpt grow over a long run? Two workloads through the real binary, each sampled as it
// goes: vimgpt's resident memory, its open files, its threads, the processes under it (its browser's), and their
// memory together.
//   - one run of STEPS steps: an instant scripted model walking a loopback guide of endless parts (links to click,
//     a search form on every fifth part, a link that opens the next part in a new tab on every seventh), sampled
//     every 50 steps (the steps its record has written);
//   - one batch of TASKS two-step tasks on 2 workers (the batch tests' world), sampled every 20 tasks done.
// Prints one JSON object; bench/soak/run writes it to bench/results/soak-latest.json. Nothing leaves 127.0.0.1.
//   soak_bench [STEPS] [TASKS]   (default 1000 and 200)
#include <httplib.h>
#include <poll.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "hint_text.h"
#include "support/batch_world.h"
#include "support/cli_runner.h"
#include "support/fake_model_server.h"
#include "support/proc.h"
#include "support/site_server.h"

namespace {

namespace bench = vimgpt::bench;
namespace test = vimgpt::test;
using json = nlohmann::json;

// One sample of vimgpt and what runs under it.
struct Sample {
  long at = 0;  // steps or tasks done
  long rss_kb = 0;
  long fds = 0;
  long threads = 0;
  long children = 0;  // processes under vimgpt, at any depth
  long children_rss_kb = 0;
  std::vector<std::string> zombies;  // the names of those that ended and were never waited for
};

long status_field(pid_t pid, const char* field) {
  std::istringstream status(test::read_proc(pid, "status").value_or(""));
  for (std::string line; std::getline(status, line);) {
    if (line.starts_with(field)) return std::stol(line.substr(std::string_view(field).size()));
  }
  return 0;
}

Sample sample(pid_t pid, long at) {
  Sample out;
  out.at = at;
  out.rss_kb = status_field(pid, "VmRSS:");
  out.threads = status_field(pid, "Threads:");
  std::error_code error;
  for (auto entry = std::filesystem::directory_iterator("/proc/" + std::to_string(pid) + "/fd", error);
       !error && entry != std::filesystem::directory_iterator(); entry.increment(error)) {
    ++out.fds;
  }
  // Every process whose chain of parents reaches vimgpt.
  std::map<pid_t, pid_t> parents;
  for (const pid_t process : test::all_processes()) parents[process] = test::parent_of(process);
  for (const auto& [process, parent] : parents) {
    for (pid_t up = parent; up > 1; up = parents.contains(up) ? parents[up] : 0) {
      if (up != pid) continue;
      ++out.children;
      out.children_rss_kb += status_field(process, "VmRSS:");
      const std::string stat = test::read_proc(process, "stat").value_or("");
      if (const auto name_end = stat.rfind(')');
          name_end != std::string::npos && stat.size() > name_end + 2 && stat[name_end + 2] == 'Z') {
        out.zombies.push_back(stat.substr(stat.find('(') + 1, name_end - stat.find('(') - 1));
      }
      break;
    }
  }
  return out;
}

json to_json(const Sample& s) {
  return {{"at", s.at},           {"rss_mb", s.rss_kb / 1024.0}, {"fds", s.fds},
          {"threads", s.threads}, {"children", s.children},      {"children_rss_mb", s.children_rss_kb / 1024.0},
          {"zombies", s.zombies}};
}

long lines_in(const std::filesystem::path& file) {
  std::ifstream in(file);
  long count = 0;
  for (std::string line; std::getline(in, line);) count += line.empty() ? 0 : 1;
  return count;
}

// Samples `pid` each time `progress()` passes another multiple of `every`, until `running` is cleared.
class Sampler {
 public:
  Sampler(std::function<long()> progress, long every) : progress_(std::move(progress)), every_(every) {}
  void start(pid_t pid) {
    thread_ = std::thread([this, pid] {
      long next = 0;
      while (running_) {
        const long done = progress_();
        if (done >= next) {
          const Sample taken = sample(pid, done);
          std::scoped_lock lock(mutex_);
          samples_.push_back(taken);
          next = (done / every_ + 1) * every_;
        }
        ::poll(nullptr, 0, 20);  // a sampling period, not a wait for anything
      }
    });
  }
  std::vector<Sample> stop() {
    running_ = false;
    if (thread_.joinable()) thread_.join();
    std::scoped_lock lock(mutex_);
    return samples_;
  }

 private:
  std::function<long()> progress_;
  long every_;
  std::atomic<bool> running_{true};
  std::thread thread_;
  std::mutex mutex_;
  std::vector<Sample> samples_;
};

// The guide: part N links to part N+1 ("Next: part N+1"), by a search form on every fifth part, by a link into a new
// tab on every seventh; twenty topic links on each.
std::string part(int n) {
  const std::string next = std::to_string(n + 1);
  std::string body = "<nav>";
  for (int i = 0; i < 20; ++i)
    body += "<a href=\"/topic/" + std::to_string(i) + "\">Topic " + std::to_string(i) + "</a> ";
  body += "</nav>";
  if (n % 7 == 0) {
    body += "<p><a target=\"_blank\" href=\"/p/" + next + "\">Open part " + next + " in a new tab</a></p>";
  } else if (n % 5 == 0) {
    body += "<form action=\"/p/" + next +
            "\"><input name=\"q\" aria-label=\"Search the guide\"> <button>Search</button>"
            "</form>";
  } else {
    body += "<p><a href=\"/p/" + next + "\">Next: part " + next + "</a></p>";
  }
  return "<!doctype html><html><head><title>Part " + std::to_string(n) + "</title></head><body><h1>Part " +
         std::to_string(n) + "</h1>" + body + "</body></html>";
}

// The part the agent looks at: the last one the site served (the steps are sequential).
std::atomic<int> g_part{1};

std::string decide(const test::ReceivedRequest& request) {
  const int n = g_part.load();
  if (n % 7 == 0) return R"({"click": ")" + bench::label_in_hint_text(request.text, "in a new tab") + R"("})";
  if (n % 5 == 0)
    return R"({"click": ")" + bench::label_in_hint_text(request.text, "Search the guide") + R"(", "type": "x"})";
  return R"({"click": ")" + bench::label_in_hint_text(request.text, "Next: part") + R"("})";
}

json summary(const std::vector<Sample>& samples, long warm) {
  json out = json::array();
  for (const auto& s : samples) out.push_back(to_json(s));
  const Sample* after_warmup = nullptr;
  for (const auto& s : samples) {
    if (s.at >= warm) {
      after_warmup = &s;
      break;
    }
  }
  if (after_warmup == nullptr || samples.empty()) return {{"samples", out}};
  const Sample& end = samples.back();
  return {{"samples", out},
          {"warm", to_json(*after_warmup)},
          {"end", to_json(end)},
          {"rss_growth_after_warm_pct", 100.0 * (end.rss_kb - after_warmup->rss_kb) / after_warmup->rss_kb},
          {"more_fds", end.fds - after_warmup->fds},
          {"more_threads", end.threads - after_warmup->threads},
          {"more_children", end.children - after_warmup->children}};
}

std::string load_average() {
  std::ifstream in("/proc/loadavg");
  std::string a, b, c;
  in >> a >> b >> c;
  return a + " " + b + " " + c;
}

json soak_run(int steps) {
  test::SiteServer site([](httplib::Server& server) {
    server.Get(R"(/p/(\d+))", [](const httplib::Request& request, httplib::Response& response) {
      const int n = std::stoi(request.matches[1]);
      g_part = n;
      response.set_content(part(n), "text/html");
    });
    server.Get(R"(/topic/(\d+))", [](const httplib::Request&, httplib::Response& response) {
      response.set_content("<p>A topic.</p>", "text/html");
    });
  });
  test::Expectations cheap;
  cheap.decode_images = false;
  test::FakeModelServer model(cheap);
  model.set_responder([](const test::ReceivedRequest& request) { return test::ScriptedReply::text(decide(request)); });
  const auto record = std::filesystem::temp_directory_path() / ("vimgpt-soak-" + std::to_string(::getpid()));
  std::filesystem::remove_all(record);
  Sampler sampler([&record] { return lines_in(record / "steps.jsonl"); }, 50);
  const auto started = std::chrono::steady_clock::now();
  const test::CliRun run =
      test::run_vimgpt({"walk the guide, part after part", "--base-url", model.url(), "--api-key", "sk-soak",
                        "--start-url", site.url("/p/1"), "--max-steps", std::to_string(steps), "--observe", "hybrid",
                        "--record", record.string(), "--max-retries", "0", "--json", "-q"},
                       [&sampler](pid_t pid) { sampler.start(pid); });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const auto samples = sampler.stop();
  const long done = lines_in(record / "steps.jsonl");
  long failed = 0;
  {
    std::ifstream in(record / "steps.jsonl");
    for (std::string line; std::getline(in, line);)
      failed += json::parse(line, nullptr, false).value("ok", true) ? 0 : 1;
  }
  std::filesystem::remove_all(record);
  json out = summary(samples, 100);
  out["steps"] = done;
  out["steps_not_ok"] = failed;
  out["last_part"] = g_part.load();
  out["exit_code"] = run.exit_code;
  out["seconds"] = seconds;
  out["left_behind"] = run.left_behind;
  if (done < steps) std::fprintf(stderr, "soak_bench: the run stopped at step %ld\n%s\n", done, run.err.c_str());
  return out;
}

json soak_batch(int tasks) {
  test::Site site;
  test::FakeModelServer model;
  test::script_model(model, site.base(), std::chrono::milliseconds(0));
  test::BatchDir dir;
  const std::string results = dir.out();
  Sampler sampler([&results] { return lines_in(results); }, 20);
  const auto started = std::chrono::steady_clock::now();
  const test::CliRun run = test::run_vimgpt(test::batch_args(dir.tasks(site.base(), tasks), results, model, 2, {}),
                                            [&sampler](pid_t pid) { sampler.start(pid); });
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();
  const auto samples = sampler.stop();
  long answered = 0;
  for (const auto& line : test::read_results(results)) answered += line.value("status", "") == "done" ? 1 : 0;
  json out = summary(samples, 20);
  out["tasks"] = tasks;
  out["done"] = answered;
  out["exit_code"] = run.exit_code;
  out["seconds"] = seconds;
  out["left_behind"] = run.left_behind;
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const int steps = argc > 1 ? std::stoi(argv[1]) : 1000;
  const int tasks = argc > 2 ? std::stoi(argv[2]) : 200;
  json result = {{"load_before", load_average()}};
  result["run"] = soak_run(steps);
  result["batch"] = soak_batch(tasks);
  result["load_after"] = load_average();
  std::printf("%s\n", result.dump(1).c_str());
  return 0;
}
