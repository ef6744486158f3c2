// The tabs a Tab works across: listing them, switching between them, closing one.
#include <algorithm>

#include "browser/cdp/state.h"

namespace vimgpt::browser {

Result<std::vector<PageSummary>> CdpTab::pages() {
  VIMGPT_TRY_VOID(impl_->follow_new_tabs());
  std::vector<std::string> ids;
  {
    std::scoped_lock lock(impl_->mutex);
    ids = impl_->pages;
  }
  std::vector<PageSummary> listed;
  VIMGPT_TRY(Json targets, impl_->connection->call("Target.getTargets"));
  for (const auto& id : ids) {
    for (const auto& info : targets["targetInfos"]) {
      if (info.value("targetId", "") != id) continue;
      listed.push_back({static_cast<int>(listed.size()) + 1, info.value("url", ""), info.value("title", ""),
                        id == impl_->target_id});
    }
  }
  return listed;
}

std::size_t CdpTab::page_count() {
  (void)impl_->follow_new_tabs();  // a tab that could not be followed is not counted
  std::scoped_lock lock(impl_->mutex);
  return impl_->pages.size();
}

Status CdpTab::switch_page(int number) {
  VIMGPT_TRY(auto open, pages());
  if (number < 1 || number > static_cast<int>(open.size())) {
    return no_such_tab(number, open.size());
  }
  std::string target;
  {
    std::scoped_lock lock(impl_->mutex);
    target = impl_->pages.at(static_cast<std::size_t>(number - 1));
  }
  if (target == impl_->target_id) return ok();
  impl_->previous_targets.push_back(impl_->target_id);
  return impl_->attach(target);
}

Status CdpTab::close_page() {
  VIMGPT_TRY_VOID(impl_->follow_new_tabs());
  const std::string closing = impl_->target_id;
  std::string next;
  {
    std::scoped_lock lock(impl_->mutex);
    if (impl_->pages.size() <= 1) {
      return only_tab_open();
    }
    // The tab worked in before this one, if it is still open; else the newest other one.
    auto& previous = impl_->previous_targets;
    std::erase(previous, closing);
    while (!previous.empty() &&
           std::find(impl_->pages.begin(), impl_->pages.end(), previous.back()) == impl_->pages.end())
      previous.pop_back();
    if (!previous.empty()) {
      next = previous.back();
      previous.pop_back();
    } else {
      for (const auto& id : impl_->pages)
        if (id != closing) next = id;
    }
    std::erase(impl_->pages, closing);
  }
  VIMGPT_TRY_VOID(impl_->connection->call("Target.closeTarget", {{"targetId", closing}}));
  return impl_->attach(next);
}

}  // namespace vimgpt::browser
