// The tabs a Tab works across: listing them, switching between them, closing one.
#include "browser/bidi/state.h"

namespace vimgpt::browser {

using bidi::Clock;
using bidi::kBidiTimeout;
using bidi::kSandbox;

Result<std::vector<PageSummary>> BidiTab::pages() {
  s_->follow_new_tabs();
  std::vector<std::string> ids;
  std::string current;
  {
    std::scoped_lock lock(s_->mutex);
    ids = s_->pages;
    current = s_->context;
  }
  std::vector<PageSummary> listed;
  for (std::size_t i = 0; i < ids.size(); ++i) {
    auto info =
        s_->evaluate({{"context", ids[i]}, {"sandbox", kSandbox}}, "({url: location.href, title: document.title})");
    const Json page = info.value_or(Json::object());
    listed.push_back({static_cast<int>(i) + 1, page.value("url", ""), page.value("title", ""), ids[i] == current});
  }
  return listed;
}

std::size_t BidiTab::page_count() {
  s_->follow_new_tabs();
  std::scoped_lock lock(s_->mutex);
  return s_->pages.size();
}

// The tab worked in is brought to the front, as a person switching to it would: Firefox opens no new tab from a click
// in a tab behind the selected one (a link with target=_blank did nothing there).
Status BidiTab::switch_page(int number) {
  std::string chosen;
  {
    std::scoped_lock lock(s_->mutex);
    if (number < 1 || number > static_cast<int>(s_->pages.size())) {
      return no_such_tab(number, s_->pages.size());
    }
    s_->previous.push_back(s_->context);
    chosen = s_->context = s_->pages[static_cast<std::size_t>(number) - 1];
    ++s_->generation;
  }
  VIMGPT_TRY_VOID(s_->call("browsingContext.activate", {{"context", chosen}}));
  return ok();
}

Status BidiTab::close_page() {
  std::string closing;
  {
    std::scoped_lock lock(s_->mutex);
    if (s_->pages.size() < 2) return only_tab_open();
    closing = s_->context;
    s_->closing = closing;
  }
  VIMGPT_TRY_VOID(s_->call("browsingContext.close", {{"context", closing}}));
  std::string back;
  {
    std::scoped_lock lock(s_->mutex);
    std::erase(s_->pages, closing);
    std::erase(s_->previous, closing);
    back = s_->context = s_->previous.empty() ? s_->pages.back() : s_->previous.back();
    if (!s_->previous.empty()) s_->previous.pop_back();
    ++s_->generation;
  }
  VIMGPT_TRY_VOID(s_->call("browsingContext.activate", {{"context", back}}));
  return ok();
}

}  // namespace vimgpt::browser
