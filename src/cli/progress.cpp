#include "cli/progress.h"

#include <cstdio>

namespace vimgpt::cli {
namespace {

// ANSI: carriage return, then erase to the end of the line.
constexpr const char* kErase = "\r\033[K";

std::mutex g_active_mutex;
StatusLine* g_active = nullptr;  // the status line drawn last, for hide_status_line()

std::string money(double usd) {
  char text[32];
  std::snprintf(text, sizeof text, "$%.4f", usd);
  return text;
}

}  // namespace

StatusLine::StatusLine(std::ostream& out, bool terminal) : out_(out), terminal_(terminal) {
  if (!terminal_) return;
  std::scoped_lock lock(g_active_mutex);
  g_active = this;
}

StatusLine::~StatusLine() {
  clear();
  std::scoped_lock lock(g_active_mutex);
  if (g_active == this) g_active = nullptr;
}

void StatusLine::say(const std::string& line) {
  std::scoped_lock lock(mutex_);
  if (drawn_) out_ << kErase;
  out_ << line << "\n";
  if (terminal_ && !status_.empty()) {
    out_ << status_;
    drawn_ = true;
  } else {
    drawn_ = false;
  }
  out_ << std::flush;
}

void StatusLine::show(std::string status) {
  std::scoped_lock lock(mutex_);
  status_ = std::move(status);
  if (!terminal_) return;
  out_ << kErase << status_ << std::flush;
  drawn_ = true;
}

void StatusLine::clear() {
  std::scoped_lock lock(mutex_);
  if (drawn_) out_ << kErase << std::flush;
  drawn_ = false;
  status_.clear();
}

void StatusLine::hide() {
  std::scoped_lock lock(mutex_);
  if (drawn_) out_ << kErase << std::flush;
  drawn_ = false;
}

void hide_status_line() {
  std::scoped_lock lock(g_active_mutex);
  if (g_active != nullptr) g_active->hide();
}

std::string glance_duration(std::chrono::seconds duration) {
  const auto total = duration.count() < 0 ? 0 : duration.count();
  char text[32];
  if (total < 60) {
    std::snprintf(text, sizeof text, "%llds", static_cast<long long>(total));
  } else if (total < 3600) {
    std::snprintf(text, sizeof text, "%lldm%02llds", static_cast<long long>(total / 60),
                  static_cast<long long>(total % 60));
  } else {
    std::snprintf(text, sizeof text, "%lldh%02lldm", static_cast<long long>(total / 3600),
                  static_cast<long long>(total / 60 % 60));
  }
  return text;
}

std::string batch_status(const BatchCounts& c) {
  using std::chrono::duration_cast;
  using std::chrono::seconds;
  std::string text = std::to_string(c.done) + " done  " + std::to_string(c.failed) + " failed  ";
  text += c.left ? std::to_string(*c.left) + " left  " : "";
  text += std::to_string(c.running) + " running";
  const double minutes = std::chrono::duration<double>(c.elapsed).count() / 60.0;
  const int finished = c.done + c.failed;
  if (finished > 0 && minutes > 0) {
    const double rate = finished / minutes;
    char per_minute[32];
    std::snprintf(per_minute, sizeof per_minute, "  %.1f/min", rate);
    text += per_minute;
    if (c.left && *c.left > 0) {
      text += "  ~" + glance_duration(seconds(static_cast<std::int64_t>(static_cast<double>(*c.left) / rate * 60.0))) +
              " to go";
    }
  }
  text += "  " + glance_duration(duration_cast<seconds>(c.elapsed));
  text += "  " + std::to_string(c.usage.total_tokens()) + " tok";
  if (c.usage.cost_known) text += "  " + money(c.usage.cost_usd);
  return text;
}

std::string run_status(const RunCounts& c) {
  using std::chrono::duration_cast;
  using std::chrono::seconds;
  std::string text = "step " + std::to_string(c.step) + "/" + std::to_string(c.max_steps);
  text += "  " + glance_duration(duration_cast<seconds>(c.elapsed));
  if (c.timeout.count() > 0) text += " of " + glance_duration(duration_cast<seconds>(c.timeout));
  text += "  " + std::to_string(c.usage.total_tokens()) + " tok";
  if (c.max_tokens_total > 0) text += " of " + std::to_string(c.max_tokens_total);
  if (c.usage.cost_known || c.max_cost > 0) text += "  " + money(c.usage.cost_known ? c.usage.cost_usd : 0.0);
  if (c.max_cost > 0) text += " of " + money(c.max_cost);
  return text;
}

}  // namespace vimgpt::cli
