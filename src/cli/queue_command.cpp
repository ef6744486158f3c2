// `vimgpt queue push | collect | status`: the shared task queue's ends (the workers are `vimgpt batch --queue`).
#include <poll.h>

#include <fstream>
#include <iostream>
#include <set>

#include "cli/batch.h"
#include "cli/cli.h"
#include "cli/commands.h"
#include "fleet/fleet.h"

namespace vimgpt::cli {
namespace {

// The queue a command names, reached.
Result<fleet::Queue> open_queue(const std::string& url_text) {
  VIMGPT_TRY(fleet::QueueUrl url, fleet::parse_queue_url(url_text));
  return fleet::Queue::connect(url);
}

// How often `collect --follow` asks for new results.
constexpr int kFollowPollMs = 500;

}  // namespace

int queue_push_command(const QueueFlags& flags) {
  auto url = fleet::parse_queue_url(flags.queue);  // before the file: a wrong flag is reported first
  if (!url) return report_error(url.error());
  std::ifstream in(flags.tasks_file);
  if (!in) return usage("cannot read " + flags.tasks_file);
  auto tasks = parse_tasks(in);  // every line checked before any is pushed
  if (!tasks) return usage(tasks.error().message);
  // The lines as written, so a worker reads exactly the task the file gave.
  std::vector<fleet::Json> lines;
  for (const auto& task : *tasks) lines.push_back(task.line);
  auto queue = fleet::Queue::connect(*url);
  if (!queue) return report_error(queue.error());
  auto counts = queue->push(lines);
  if (!counts) return report_error(counts.error());
  std::cerr << "pushed " << counts->pushed << " tasks";
  if (counts->skipped > 0) std::cerr << "; " << counts->skipped << " ids were pushed before, skipped";
  std::cerr << "\n";
  return 0;
}

int queue_collect_command(const QueueFlags& flags) {
  auto queue = open_queue(flags.queue);
  if (!queue) return report_error(queue.error());
  std::set<std::string> written = finished_ids(flags.out);
  std::ofstream out(flags.out, std::ios::app);
  if (!out) return usage("cannot write " + flags.out);
  for (;;) {
    // Drained first, then the results: a result that lands between the two is read now or on the next round.
    auto drained = queue->drained();
    if (!drained) return report_error(drained.error());
    auto results = queue->results();
    if (!results) return report_error(results.error());
    for (const auto& [id, line] : *results) {
      if (!written.insert(id).second) continue;
      out << line.dump(-1, ' ', false, fleet::Json::error_handler_t::replace) << "\n" << std::flush;
    }
    if (!flags.follow || *drained) break;
    ::poll(nullptr, 0, kFollowPollMs);
  }
  std::cerr << written.size() << " results in " << flags.out << "\n";
  return 0;
}

int queue_status_command(const QueueFlags& flags) {
  auto queue = open_queue(flags.queue);
  if (!queue) return report_error(queue.error());
  auto status = queue->status();
  if (!status) return report_error(status.error());
  std::cout << "pushed " << status->pushed << "  waiting " << status->waiting << "  running " << status->running
            << "  done " << status->done << "  failed " << status->failed << "\n";
  return 0;
}

}  // namespace vimgpt::cli
