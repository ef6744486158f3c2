// What the pages are told and what they ask: tiles, steps and frames out; pause, take over, resume and input in.
#include <boost/asio/post.hpp>

#include "live/hub.h"
#include "live/session.h"

namespace vimgpt::live {

std::shared_ptr<const std::string> frame_message(char kind, int run, const EncodedImage& image) {
  std::string message;
  message.reserve(image.bytes.size() + 6);
  message.push_back(kind);
  for (int shift = 24; shift >= 0; shift -= 8) message.push_back(static_cast<char>((run >> shift) & 0xFF));
  message.push_back(image.format == ImageFormat::Png ? 'p' : 'j');
  message += image.bytes;
  return std::make_shared<const std::string>(std::move(message));
}

Outgoing text_message(const Json& message) {
  return {false, std::make_shared<const std::string>(message.dump(-1, ' ', false, Json::error_handler_t::replace))};
}

void Server::Hub::broadcast(Outgoing message) {
  std::scoped_lock lock(io_mutex);
  if (!io) return;
  boost::asio::post(*io, [hub = shared_from_this(), message = std::move(message)] {
    for (const auto& watcher : hub->watchers) watcher->send(message);
  });
}

Json Server::Hub::describe(const RunState& run) {
  Json tile = {{"id", run.id},
               {"title", run.title},
               {"state", run.state},
               {"message", run.message},
               {"waiting_for", run.waiting_for},
               {"taken_over", run.taken_over},
               {"pause_asked", run.pause_asked}};
  if (!run.outcome.is_null()) tile["outcome"] = run.outcome;
  if (run.tab != nullptr) {
    tile["viewport"] = {run.tab->viewport().width, run.tab->viewport().height};
  }
  return tile;
}

void Server::Hub::announce(const RunState& run) {
  broadcast(text_message(Json{{"type", "run"}, {"run", describe(run)}}));
}

void Server::Hub::start_stream(RunState& run) {
  if (run.tab == nullptr) return;
  run.tab->start_screencast([weak = weak_from_this(), id = run.id](const browser::Screenshot& frame) {
    const auto hub = weak.lock();
    if (!hub) return;
    auto message = frame_message('L', id, frame);
    {
      std::scoped_lock lock(hub->mutex);
      const auto found = hub->runs.find(id);
      if (found == hub->runs.end() || found->second->tab == nullptr) return;
      found->second->live_frame = message;
    }
    hub->broadcast({true, std::move(message), id});
  });
}

void Server::Hub::attach(const std::shared_ptr<WatcherSession>& watcher) {
  watchers.insert(watcher);
  std::scoped_lock lock(mutex);
  // The page gets every tile with its log and last frames; then what happens, as it happens.
  Json tiles = Json::array();
  for (const auto& [id, run] : runs) {
    Json tile = describe(*run);
    tile["steps"] = Json(run->steps);
    tiles.push_back(std::move(tile));
  }
  watcher->send(text_message(Json{{"type", "hello"}, {"runs", tiles}}));
  for (const auto& [id, run] : runs) {
    if (run->model_frame) watcher->send({true, run->model_frame});
    if (run->live_frame) watcher->send({true, run->live_frame, id});
  }
  if (++watcher_count == 1) {
    for (auto& [id, run] : runs) start_stream(*run);
  }
  watchers_changed.notify_all();
}

void Server::Hub::detach(const std::shared_ptr<WatcherSession>& watcher) {
  if (watchers.erase(watcher) == 0) return;
  std::scoped_lock lock(mutex);
  // Nobody watches: the browser encodes no more frames.
  if (--watcher_count == 0) {
    for (auto& [id, run] : runs) {
      if (run->tab != nullptr) run->tab->stop_screencast();
      run->live_frame.reset();
    }
  }
  watchers_changed.notify_all();
}

std::optional<std::string> Server::Hub::command(const Json& message) {
  auto request = read_page_request(message);
  if (!request) return request.error().message;
  const std::string& what = request->what;
  std::scoped_lock lock(mutex);
  const auto found = runs.find(request->run);
  if (found == runs.end()) return "no such run";
  RunState& run = *found->second;
  if (run.state == "ended") return "this run has ended";
  if (what == "pause" || what == "take_over") {
    run.pause_asked = true;
    if (what == "take_over") run.taken_over = true;
    if (run.state == "running") run.state = "pausing";
  } else if (what == "resume") {
    if (run.state == "pausing") {  // taken back before the step ended: the run goes on as if never asked
      run.pause_asked = run.taken_over = false;
      run.state = "running";
    } else if (run.state == "paused" || run.state == "waiting") {
      run.resume_asked = true;
      run.answer = request->answer;
    } else {
      return "the run is not paused";
    }
  } else if (what == "input") {
    if (run.state != "paused" && run.state != "waiting") {
      return "the page is the agent's until the run has paused: press Take over and wait for it";
    }
    run.inputs.push_back(*request->input);
    if (!run.taken_over) {
      run.taken_over = true;
      announce(run);
    }
    run.changed.notify_all();
    return std::nullopt;
  } else {
    return "unknown request \"" + what + "\" (pause, take_over, resume, input)";
  }
  run.changed.notify_all();
  announce(run);
  return std::nullopt;
}

void Server::Hub::prune() {
  std::size_t ended = 0;
  for (const auto& [id, run] : runs) ended += run->tab == nullptr ? 1 : 0;
  for (auto it = runs.begin(); ended > kMaxEnded && it != runs.end();) {
    if (it->second->tab == nullptr) {
      it = runs.erase(it);
      --ended;
    } else {
      ++it;
    }
  }
}

}  // namespace vimgpt::live
