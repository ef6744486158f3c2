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

int usage(const std::string& message) {
  std::cerr << "vimgpt: " << message << "\n";
  return kExitUsage;
}

int failed(const Error& error) {
  std::cerr << "vimgpt: " << error.message << "\n";
  return 1;
}

// How often `collect --follow` asks for new results.
constexpr int kFollowPollMs = 500;

}  // namespace

int queue_push_command(const QueueFlags& flags) {
  auto url = fleet::parse_queue_url(flags.queue);
  if (!url) return usage(url.error().message);
  std::ifstream in(flags.tasks_file);
  if (!in) return usage("cannot read " + flags.tasks_file);
  auto tasks = parse_tasks(in);  // every line checked before any is pushed
  if (!tasks) return usage(tasks.error().message);
  in.clear();
  in.seekg(0);
  // The lines as written (parse_tasks has checked each), so a worker reads exactly the task the file gave.
  std::vector<fleet::Json> lines;
  std::string text;
  while (std::getline(in, text)) {
    const auto first = text.find_first_not_of(" \t\r");
    if (first == std::string::npos || text[first] == '#') continue;
    lines.push_back(fleet::Json::parse(text));
  }
  auto queue = fleet::Queue::connect(*url);
  if (!queue) return failed(queue.error());
  auto counts = queue->push(lines);
  if (!counts) return failed(counts.error());
  std::cerr << "pushed " << counts->pushed << " tasks";
  if (counts->skipped > 0) std::cerr << "; " << counts->skipped << " ids were pushed before, skipped";
  std::cerr << "\n";
  return 0;
}

int queue_collect_command(const QueueFlags& flags) {
  auto url = fleet::parse_queue_url(flags.queue);
  if (!url) return usage(url.error().message);
  auto queue = fleet::Queue::connect(*url);
  if (!queue) return failed(queue.error());
  std::set<std::string> written = finished_ids(flags.out);
  std::ofstream out(flags.out, std::ios::app);
  if (!out) return usage("cannot write " + flags.out);
  for (;;) {
    // Drained first, then the results: a result that lands between the two is read now or on the next round.
    auto drained = queue->drained();
    if (!drained) return failed(drained.error());
    auto results = queue->results();
    if (!results) return failed(results.error());
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
  auto url = fleet::parse_queue_url(flags.queue);
  if (!url) return usage(url.error().message);
  auto queue = fleet::Queue::connect(*url);
  if (!queue) return failed(queue.error());
  auto status = queue->status();
  if (!status) return failed(status.error());
  std::cout << "pushed " << status->pushed << "  waiting " << status->waiting << "  running " << status->running
            << "  done " << status->done << "  failed " << status->failed << "\n";
  return 0;
}

}  // namespace vimgpt::cli
