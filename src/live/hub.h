// Private to src/live: what the server's thread and the runs' threads share. The runs' state is under `mutex`;
// the watchers (open pages) belong to the server's thread alone, and other threads reach them by posting to it.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <thread>

#include "live/input.h"
#include "live/live.h"

namespace vimgpt::live {

using Json = nlohmann::json;

// What the page is sent: JSON text, or a frame as binary: one byte of kind ('L' the tab now, 'M' the frame the model
// saw), the run's id (4 bytes, big-endian), one byte of format ('j' JPEG, 'p' PNG), then the image.
struct Outgoing {
  bool binary = false;
  std::shared_ptr<const std::string> data;
  int live_run = 0;  // a frame of the tab now, of this run: a newer one replaces it while it waits to be sent
};

class WatcherSession;

// A run's tile and the person's requests to it.
struct RunState {
  int id = 0;
  std::string title;
  browser::Tab* tab = nullptr;  // null once its Watch is gone
  // running → pausing (asked, the step under way finishes) → paused; waiting: a handoff or an ask; ended.
  std::string state = "running";
  std::string waiting_for;  // "handoff" or "ask" while waiting
  std::string message;      // what the handoff or the ask says
  bool pause_asked = false;
  bool taken_over = false;  // a person pressed Take over: their input goes to the tab once it is paused
  bool resume_asked = false;
  std::string answer;              // typed with Resume, for an ask
  std::deque<PersonInput> inputs;  // the person's clicks, keys and wheel turns, for the run's thread to carry out
  std::deque<Json> steps;          // the step log, the last kMaxSteps
  Json outcome;                    // once ended
  std::shared_ptr<const std::string> model_frame;  // the last labelled frame, as an Outgoing frame message
  std::shared_ptr<const std::string> live_frame;   // the tab's last screencast frame, likewise
  std::condition_variable changed;                 // the run's thread waits on it while the page is the person's
};

inline constexpr std::size_t kMaxSteps = 200;  // a tile's log
inline constexpr std::size_t kMaxEnded = 24;   // ended runs kept as tiles
inline constexpr std::size_t kMaxQueued = 64;  // messages waiting for a slow page before frames are dropped

struct Server::Hub : std::enable_shared_from_this<Server::Hub> {
  Options options;
  // The server's: gone once it stops (its handlers, which hold the hub, go with it), so a Watch that outlives the
  // server posts nothing.
  std::mutex io_mutex;
  std::unique_ptr<boost::asio::io_context> io = std::make_unique<boost::asio::io_context>();
  std::unique_ptr<boost::asio::ip::tcp::acceptor> acceptor = std::make_unique<boost::asio::ip::tcp::acceptor>(*io);
  int port = 0;
  std::thread thread;

  std::mutex mutex;
  std::condition_variable watchers_changed;  // a page opened or closed (the server stops once they are closed)
  std::map<int, std::unique_ptr<RunState>> runs;
  int next_id = 1;
  std::atomic<int> watcher_count{0};

  std::set<std::shared_ptr<WatcherSession>> watchers;  // the server's thread only

  // From any thread, mutex not held: every open page gets it.
  void broadcast(Outgoing message);
  // The run's tile as JSON (no steps). Mutex held.
  static Json describe(const RunState& run);
  // The tile changed: every page is told. Mutex held.
  void announce(const RunState& run);
  // Streams the tab of `run` to the pages, while there are any. Mutex held.
  void start_stream(RunState& run);
  // A page opened or closed (the server's thread): the tabs are streamed from the first and stopped after the last.
  void attach(const std::shared_ptr<WatcherSession>& watcher);
  void detach(const std::shared_ptr<WatcherSession>& watcher);
  // A message from a page (the server's thread): pause, take_over, resume, input. An error to send back, or nothing.
  std::optional<std::string> command(const Json& message);
  // Forgets the oldest ended tiles past kMaxEnded. Mutex held.
  void prune();
};

// A JSON message as the pages receive it (invalid UTF-8 from a page's title replaced, never thrown on).
Outgoing text_message(const Json& message);
// A frame as the pages receive it (see Outgoing).
std::shared_ptr<const std::string> frame_message(char kind, int run, const EncodedImage& image);

}  // namespace vimgpt::live
