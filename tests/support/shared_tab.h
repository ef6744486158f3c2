// A tab for an in-process browser test: in a process that shares a browser (support/shared_browser.h), a browser
// context of its own on one connection the process keeps open to that browser, as batch's tasks get on a worker's
// browser; otherwise a browser of its own. On Firefox, not for a process whose tests also start vimgpt runs on the
// shared browser: Firefox takes one BiDi session at a time, and this one is held until the process ends.
#pragma once

#include <memory>

#include "browser/browser.h"
#include "support/browser_options.h"
#include "support/shared_browser.h"

namespace vimgpt::test {

inline Result<std::unique_ptr<browser::Tab>> open_test_tab(const browser::TabOptions& options = {}) {
  if (!sharing_browser()) return browser::Tab::launch(loopback_only_launch(), options);
  static std::shared_ptr<wire::Connection> connection;
  if (!connection || !connection->alive()) {
    VIMGPT_TRY(auto socket, wire::connect_websocket(shared_browser_url()));
    connection = std::make_shared<wire::Connection>(std::move(socket));
  }
  return browser::Tab::open(connection, options, test_engine());
}

}  // namespace vimgpt::test
