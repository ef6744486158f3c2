// Shared by the hints browser tests: one Chromium per test process, fixture servers on 127.0.0.1, and
// helpers that name each hint by the first "yes-…"/"no-…" token of its text.
#pragma once

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <regex>
#include <string>
#include <vector>

#include "browser/browser.h"
#include "hints/hints.h"
#include "support/browser_options.h"
#include "support/saved_pages.h"
#include "support/site_server.h"

namespace vimgpt::hints::test_support {

class HintsBrowserTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() { start(); }
  // For suites that need their own routes or tab settings.
  static void start(const test::SiteServer::Routes& routes = {}, const browser::TabOptions& options = {},
                    const launch::LaunchOptions& launch = test::loopback_only_launch()) {
    server_ = std::make_unique<test::SiteServer>(routes);
    server_->mount("/fx", VIMGPT_FIXTURES_DIR);
    if (const auto pages = test::saved_pages_dir()) server_->mount("/pages", pages->string());
    cross_ = std::make_unique<test::SiteServer>();
    cross_->mount("/fx", VIMGPT_FIXTURES_DIR);
    auto tab = browser::Tab::launch(launch, options);
    if (tab)
      tab_ = std::move(*tab);
    else
      launch_error_ = tab.error().describe();
  }
  static void TearDownTestSuite() {
    tab_.reset();
    server_.reset();
    cross_.reset();
  }
  void SetUp() override { ASSERT_TRUE(tab_) << launch_error_; }

  static browser::Tab& tab() { return *tab_; }

  static void open(const std::string& path) {
    auto navigated = tab_->navigate(server_->url(path));
    ASSERT_TRUE(navigated) << navigated.error().describe();
  }

  // Waits (in the page, on the event) for the harness to log `type` on the element marked `t`.
  static wire::Json wait_for(const std::string& type, const std::string& t) {
    auto entry = tab_->evaluate_in_page("__waitFor('" + type + "', '" + t + "')");
    if (!entry || !entry->is_string()) return nullptr;
    return wire::Json::parse(entry->get<std::string>());
  }

  static inline std::unique_ptr<test::SiteServer> server_;
  static inline std::unique_ptr<test::SiteServer> cross_;
  static inline std::unique_ptr<browser::Tab> tab_;
  static inline std::string launch_error_;
};

inline std::string token_of(const Hint& hint) {
  static const std::regex token("(yes|no)-[a-z0-9-]+");
  std::smatch match;
  return std::regex_search(hint.text, match, token) ? match.str() : std::string();
}

inline std::map<std::string, std::vector<const Hint*>> by_token(const HintMap& map) {
  std::map<std::string, std::vector<const Hint*>> out;
  for (const auto& hint : map.hints()) out[token_of(hint)].push_back(&hint);
  return out;
}

// Every positive is hinted exactly once (with the expected reason), no negative is hinted at all.
inline void expect_hints(const HintMap& map, const std::map<std::string, Reason>& positives,
                         const std::vector<std::string>& negatives) {
  const auto tokens = by_token(map);
  for (const auto& [token, reason] : positives) {
    auto it = tokens.find(token);
    if (it == tokens.end()) {
      ADD_FAILURE() << "no hint for " << token << "\n" << map.to_text();
      continue;
    }
    EXPECT_EQ(it->second.size(), 1u) << token << " hinted more than once\n" << map.to_text();
    EXPECT_EQ(to_string(it->second.front()->reason), to_string(reason)) << token;
  }
  for (const auto& token : negatives)
    EXPECT_EQ(tokens.count(token), 0u) << token << " should have no hint\n" << map.to_text();
}

inline const Hint& hint_for(const HintMap& map, const std::string& token) {
  for (const auto& hint : map.hints())
    if (token_of(hint) == token) return hint;
  static const Hint none;
  ADD_FAILURE() << "no hint for " << token;
  return none;
}

}  // namespace vimgpt::hints::test_support
