// The world the batch tests and the batch benchmark share: a loopback site whose /visit page sets a cookie
// naming the task (and records which cookies came back), a model scripted for two steps a task, a folder of
// tasks and results, and the vimgpt batch command line for them.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <regex>
#include <string>
#include <vector>

#include "support/fake_model_server.h"
#include "support/site_server.h"
#include "vision/vision.h"

namespace vimgpt::test {

struct Visit {
  std::string id;
  std::string step;
  std::string cookie;
};

// A site whose /visit page sets a cookie naming the task and records the cookies each request brought.
struct Site {
  std::mutex mutex;
  std::vector<Visit> visits;
  std::unique_ptr<test::SiteServer> server;

  [[nodiscard]] std::string base() const { return "http://127.0.0.1:" + std::to_string(server->port()); }

  Site() {
    server = std::make_unique<test::SiteServer>([this](httplib::Server& s) {
      s.Get("/visit", [this](const httplib::Request& req, httplib::Response& res) {
        {
          std::scoped_lock lock(mutex);
          visits.push_back({req.get_param_value("id"), req.get_param_value("step"), req.get_header_value("Cookie")});
        }
        res.set_header("Set-Cookie", "task=" + req.get_param_value("id") + "; Path=/");
        res.set_content("<!doctype html><title>visit</title><a href='/visit'>again</a>", "text/html");
      });
    });
  }
};

// Each task takes two steps: navigate to its second page, then answer "answer-<id>". `first_hold`, when
// given, runs before each task's first reply is sent.
inline void script_model(FakeModelServer& model, const std::string& site_url, std::chrono::milliseconds delay,
                         std::function<void()> first_hold = {}) {
  auto seen = std::make_shared<std::pair<std::mutex, std::map<std::string, int>>>();
  model.set_responder([seen, site_url, delay, first_hold](const test::ReceivedRequest& request) {
    std::smatch match;
    const std::regex task_id(R"(task (t\d+))");
    if (!std::regex_search(request.text, match, task_id)) return ScriptedReply::status_code(400, "no task id");
    const std::string id = match[1];
    int count = 0;
    {
      std::scoped_lock lock(seen->first);
      count = ++seen->second[id];
    }
    ScriptedReply reply =
        ScriptedReply::text(count % 2 == 1 ? R"({"navigate": ")" + site_url + "/visit?id=" + id + R"(&step=2"})"
                                           : R"({"done": "answer-)" + id + R"("})");
    reply.delay = delay;
    if (count == 1) reply.hold = first_hold;
    return reply;
  });
}

// Isolation: a task's requests carry its own cookie at most, never another task's; none on its first page, its own
// on its second (cookies do work within a task), for each of `tasks` tasks.
inline void expect_isolated_visits(Site& site, int tasks) {
  std::scoped_lock lock(site.mutex);
  int with_own_cookie = 0;
  for (const auto& visit : site.visits) {
    EXPECT_TRUE(visit.cookie.empty() || visit.cookie == "task=" + visit.id) << visit.id << " sent " << visit.cookie;
    if (visit.step == "1") {
      EXPECT_EQ(visit.cookie, "") << visit.id;
    }
    if (visit.step == "2" && visit.cookie == "task=" + visit.id) ++with_own_cookie;
  }
  EXPECT_EQ(with_own_cookie, tasks);
}

struct BatchDir {
  std::filesystem::path root = std::filesystem::temp_directory_path() / ("vimgpt-batch-" + std::to_string(::getpid()));
  BatchDir() { std::filesystem::create_directories(root); }
  ~BatchDir() { std::filesystem::remove_all(root); }
  [[nodiscard]] std::string tasks(const std::string& site_url, int count) const {
    const auto path = root / "tasks.jsonl";
    std::ofstream out(path);
    for (int i = 1; i <= count; ++i) {
      const std::string id = "t" + std::to_string(i);
      out << nlohmann::json{{"id", id},
                            {"objective", "task " + id + ": visit and report"},
                            {"start_url", site_url + "/visit?id=" + id + "&step=1"},
                            {"max_steps", 4},
                            {"answer", "answer-" + id}}
                 .dump()
          << "\n";
    }
    return path.string();
  }
  [[nodiscard]] std::string out() const { return (root / "results.jsonl").string(); }
};

inline std::vector<nlohmann::json> read_results(const std::string& path) {
  std::vector<nlohmann::json> lines;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    if (!line.empty()) lines.push_back(nlohmann::json::parse(line));
  }
  return lines;
}

inline std::vector<std::string> batch_args(const std::string& tasks, const std::string& out,
                                           const FakeModelServer& model, int parallel,
                                           const std::vector<std::string>& browsers) {
  std::vector<std::string> args = {
      "batch",      tasks,       "--parallel", std::to_string(parallel),           "--out",       out,
      "--base-url", model.url(), "--model",    std::string(vision::kDefaultModel), "--settle-ms", "500"};
  for (const auto& browser : browsers) {
    args.emplace_back("--browser");
    args.push_back(browser);
  }
  return args;
}

}  // namespace vimgpt::test
