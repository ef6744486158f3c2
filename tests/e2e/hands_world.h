// The world of the agent's hands tests (agent_hands_test.cpp, agent_widgets_test.cpp): a loopback site serving
// tests/fixtures/site (pages report what they saw to /event), a scripted fake model, the real vimgpt binary, and a
// record folder to read each step's result from.
#pragma once

#include <gtest/gtest.h>
#include <httplib.h>
#include <unistd.h>

#include <filesystem>
#include <regex>

#include "support/cli_runner.h"
#include "support/fake_model_server.h"
#include "support/site_server.h"
#include "vision/vision.h"

namespace vimgpt::test {

namespace fs = std::filesystem;

using Reply = std::function<std::string(const std::string& prompt)>;

// `folder`: the pages' folder under tests/fixtures/site.
class HandsWorld : public ::testing::Test {
 protected:
  explicit HandsWorld(std::string folder = "hands") : folder_(std::move(folder)) {}

  void SetUp() override {
    site_ = std::make_unique<SiteServer>([](httplib::Server& s) {
      s.Get("/event", [](const httplib::Request&, httplib::Response& res) { res.set_content("ok", "text/plain"); });
      s.Post("/signup", [](const httplib::Request&, httplib::Response& res) {
        res.set_content("<!doctype html><title>Thanks</title><p>Signed up", "text/html");
      });
    });
    site_->mount("/fx", VIMGPT_FIXTURES_DIR "/site");
    scratch_ = fs::temp_directory_path() / ("vimgpt-hands-" + std::to_string(::getpid()) + "-" +
                                            ::testing::UnitTest::GetInstance()->current_test_info()->name());
    fs::remove_all(scratch_);
    fs::create_directories(scratch_);
  }
  void TearDown() override { fs::remove_all(scratch_); }

  [[nodiscard]] fs::path record() const { return scratch_ / "record"; }

  CliRun run(const std::string& page, std::vector<Reply> replies, std::vector<std::string> extra = {}) {
    model_.set_responder([this, replies = std::move(replies)](const ReceivedRequest& request) {
      const std::size_t step = answered_++;
      return ScriptedReply::text(step < replies.size() ? replies[step](request.text) : R"({"done": true})");
    });
    std::vector<std::string> args = {"do the task", "--base-url",      model_.url(),
                                     "--api-key",   "test-key",        "--observe",
                                     "hybrid",      "--start-url",     site_->url("/fx/" + folder_ + "/" + page),
                                     "--record",    record().string(), "--max-retries",
                                     "0",           "--max-steps",     "8"};
    args.insert(args.end(), extra.begin(), extra.end());
    return run_vimgpt(args);
  }

  // The queries the page sent to /event, in order.
  [[nodiscard]] std::vector<std::string> events() const {
    std::vector<std::string> out;
    for (const auto& request : site_->requests()) {
      if (request.path == "/event") out.push_back(request.query);
    }
    return out;
  }
  [[nodiscard]] bool saw(const std::string& query) const {
    const auto all = events();
    return std::find(all.begin(), all.end(), query) != all.end();
  }

  // A reply naming elements by their names in the prompt's hint list: "{\"hover\": \"{{Products}}\"}".
  static Reply with_labels(std::string reply) {
    return [reply = std::move(reply)](const std::string& prompt) {
      std::string text = reply;
      static const std::regex name(R"(\{\{([^}]+)\}\})");
      std::smatch match;
      while (std::regex_search(text, match, name)) {
        text.replace(static_cast<std::size_t>(match.position(0)), static_cast<std::size_t>(match.length(0)),
                     label_in_prompt(prompt, match[1]));
      }
      return text;
    };
  }

  [[nodiscard]] std::string result_of(std::size_t step) const {
    const auto steps = read_steps(record());
    return step < steps.size() ? steps[step].value("result", "") : "";
  }

  std::string folder_;
  std::unique_ptr<SiteServer> site_;
  FakeModelServer model_{
      Expectations{"test-key", std::string(vision::kDefaultModel), default_frame_width(), 1, Requirement::Any}};
  std::size_t answered_ = 0;
  fs::path scratch_;
};

}  // namespace vimgpt::test
