// A W3C WebDriver server for Firefox on loopback, doing what geckodriver does (Debian 12 packages no geckodriver, and
// npm's downloads its binary at install time): New Session starts Firefox with the session's moz:firefoxOptions (args,
// prefs), Marionette and the WebDriver BiDi port, and has Firefox's own Marionette make the session
// (WebDriver:NewSession), so the capabilities, the webSocketUrl and the BiDi session it answers with are Firefox's;
// Delete Session ends the session and Firefox. Only the commands a session's start and end need are served.
#pragma once

#include <sys/types.h>

#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "support/site_server.h"

namespace vimgpt::test {

class GeckoDriver {
 public:
  GeckoDriver();
  ~GeckoDriver();  // ends the sessions still open
  GeckoDriver(const GeckoDriver&) = delete;
  GeckoDriver& operator=(const GeckoDriver&) = delete;

  // webdriver+http://127.0.0.1:PORT, as vimgpt's --browser takes it.
  [[nodiscard]] std::string url() const;

  struct SessionRecord {
    nlohmann::json asked;  // the capabilities asked (alwaysMatch with the first firstMatch)
    std::string id;        // empty: none was made
    pid_t firefox = 0;
    bool deleted = false;
  };
  [[nodiscard]] std::vector<SessionRecord> sessions() const;

  struct Session;

 private:
  void new_session(const std::string& body, std::string& reply, int& status);
  void delete_session(const std::string& id);

  mutable std::mutex mutex_;
  std::vector<SessionRecord> records_;
  std::vector<std::unique_ptr<Session>> open_;
  std::unique_ptr<SiteServer> server_;
};

}  // namespace vimgpt::test
