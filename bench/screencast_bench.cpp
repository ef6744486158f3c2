// Issue 20's screencast A/B, on the browser alone: after a change to the page (what the overlay's markers
// are), how soon is a frame that shows it at hand, from Page.captureScreenshot (what the agent does) or from a
// running Page.startScreencast (the first streamed frame that shows the change, checked pixel by pixel)? And
// what does a running screencast cost a page load? Not part of bench/run: run it by hand (its last figures are in
// git's history of docs/benchmarks.md, "Issue 20, second session").
//
//   build-bench/bench/screencast_bench --benchmark_counters_tabular=true
//
// Counters: stale_by_ts = streamed frames whose swap timestamp (metadata.timestamp) is later than the change
// but which do not show it yet, the ones a "newer than the change" rule would have taken wrongly;
// frames = streamed frames per change.
#include <benchmark/benchmark.h>

#include <condition_variable>
#include <deque>
#include <filesystem>
#include <mutex>

#include "common/base64.h"
#include "common/pixels.h"
#include "iteration_times.h"
#include "launch/launch.h"

namespace {

using vimgpt::wire::Json;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

const std::string kSavedPage = VIMGPT_PAGES_DIR "/wikipedia.html";

struct Frame {
  std::string jpeg;
  double swapped_ms = 0;  // metadata.timestamp, wall clock
  Clock::time_point arrived;
};

// One headless browser, one page, and the screencast frames it streams (each acknowledged at once, as a
// consumer that keeps up would).
class Page {
 public:
  bool open() {
    vimgpt::launch::LaunchOptions options;
    options.extra_args.emplace_back("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost");
    auto transport = vimgpt::launch::launch_chromium(options);
    if (!transport) return false;
    connection_ = std::make_unique<vimgpt::wire::Connection>(std::move(*transport));
    auto target = connection_->call("Target.createTarget", {{"url", "about:blank"}});
    if (!target) return false;
    auto attached =
        connection_->call("Target.attachToTarget", {{"targetId", (*target)["targetId"]}, {"flatten", true}});
    if (!attached) return false;
    session_ = (*attached)["sessionId"].get<std::string>();
    connection_->subscribe([this](const vimgpt::wire::Event& event) {
      if (event.method != "Page.screencastFrame" || event.session_id != session_) return;
      connection_->post("Page.screencastFrameAck", {{"sessionId", event.params["sessionId"]}}, session_);
      auto jpeg = vimgpt::base64_decode(event.params.value("data", ""));
      std::scoped_lock lock(mutex_);
      frames_.push_back({jpeg ? std::move(*jpeg) : std::string(),
                         event.params["metadata"].value("timestamp", 0.0) * 1000, Clock::now()});
      arrived_.notify_all();
    });
    return call("Page.enable").has_value();
  }

  vimgpt::Result<Json> call(std::string_view method, Json params = Json::object()) {
    return connection_->call(method, std::move(params), session_);
  }

  bool load(const std::string& url) {
    vimgpt::wire::EventQueue loads(*connection_, [this](const vimgpt::wire::Event& event) {
      return event.session_id == session_ && event.method == "Page.loadEventFired";
    });
    if (!call("Page.navigate", {{"url", url}})) return false;
    return loads.wait([](const auto&) { return true; }, milliseconds{20000}).has_value();
  }

  std::size_t frames_so_far() {
    std::scoped_lock lock(mutex_);
    return frames_.size();
  }

  // The frame numbered `index` (from the start of the stream), once it has come; nullopt after 2 s.
  std::optional<Frame> frame(std::size_t index) {
    std::unique_lock lock(mutex_);
    if (!arrived_.wait_for(lock, milliseconds{2000}, [&] { return frames_.size() > index; })) return std::nullopt;
    return frames_[index];
  }

 private:
  std::unique_ptr<vimgpt::wire::Connection> connection_;
  std::string session_;
  std::mutex mutex_;
  std::condition_variable arrived_;
  std::deque<Frame> frames_;
};

std::string start_url() {
  return std::filesystem::exists(kSavedPage) ? "file://" + kSavedPage
                                             : "data:text/html,<title>t</title><h1>A page</h1><p>Some text.</p>";
}

// Paints a 200x200 square at (100, 100) red or blue; answers the wall-clock time of the change.
std::string change_to(bool red) {
  return std::string(
             "(() => { let d = document.getElementById('__probe'); if (!d) { d = document.createElement('div');"
             " d.id = '__probe'; d.style.cssText = 'position:fixed;left:100px;top:100px;width:200px;"
             "height:200px;z-index:2147483647'; document.documentElement.appendChild(d); }"
             " d.style.background = '") +
         (red ? "#ff0000" : "#0000ff") + "'; return Date.now(); })()";
}

bool shows(const std::string& jpeg, bool red) {
  auto pixels = vimgpt::decode_jpeg(jpeg);
  if (!pixels || pixels->width < 300 || pixels->height < 300) return false;
  const auto* p = &pixels->data[(static_cast<std::size_t>(200) * pixels->width + 200) * pixels->channels];
  return red ? (p[0] > 200 && p[2] < 60) : (p[2] > 200 && p[0] < 60);
}

double evaluate_change(Page& page, bool red) {
  auto changed = page.call("Runtime.evaluate", {{"expression", change_to(red)}, {"returnByValue", true}});
  return changed ? (*changed)["result"].value("value", 0.0) : 0;
}

// Arg 0: captureScreenshot after the change. Arg 1: the first streamed frame that shows it.
void BM_FrameAfterChange(benchmark::State& state) {
  const bool screencast = state.range(0) == 1;
  Page page;
  if (!page.open() || !page.load(start_url())) {
    state.SkipWithError("cannot open the page");
    return;
  }
  if (screencast && !page.call("Page.startScreencast", {{"format", "jpeg"}, {"quality", 85}})) {
    state.SkipWithError("no screencast");
    return;
  }
  bool red = false;
  double stale_by_timestamp = 0;
  double frames = 0;
  double wrong = 0;
  vimgpt::bench::IterationTimes times(state);
  for (auto _ : state) {
    red = !red;
    const std::size_t before = page.frames_so_far();
    times.begin();
    const double changed_ms = evaluate_change(page, red);
    if (!screencast) {
      auto shot = page.call(
          "Page.captureScreenshot",
          {{"format", "jpeg"}, {"quality", 85}, {"captureBeyondViewport", false}, {"optimizeForSpeed", true}});
      times.end();
      auto jpeg = shot ? vimgpt::base64_decode((*shot).value("data", "")) : vimgpt::Result<std::string>(std::string());
      if (!jpeg || !shows(*jpeg, red)) wrong += 1;
      continue;
    }
    for (std::size_t index = before;; ++index) {
      auto frame = page.frame(index);
      if (!frame) {
        state.SkipWithError("no frame showed the change within 2 s");
        return;
      }
      frames += 1;
      if (shows(frame->jpeg, red)) {
        times.end_at(frame->arrived);
        break;
      }
      if (frame->swapped_ms > changed_ms) stale_by_timestamp += 1;
    }
  }
  const auto n = static_cast<double>(state.iterations());
  state.counters["wrong"] = wrong;
  if (screencast) {
    state.counters["frames"] = frames / n;
    state.counters["stale_by_ts"] = stale_by_timestamp;
  }
  state.SetLabel(screencast ? "first streamed frame showing it" : "captureScreenshot");
}
BENCHMARK(BM_FrameAfterChange)->Arg(0)->Arg(1)->Iterations(40)->Unit(benchmark::kMillisecond)->UseRealTime();

// Loading the saved page (to its load event) while nothing streams (Arg 0) and while a screencast runs (Arg 1).
void BM_LoadWhileStreaming(benchmark::State& state) {
  Page page;
  if (!page.open() || !page.load("about:blank")) {
    state.SkipWithError("cannot open a page");
    return;
  }
  if (state.range(0) == 1 && !page.call("Page.startScreencast", {{"format", "jpeg"}, {"quality", 85}})) {
    state.SkipWithError("no screencast");
    return;
  }
  vimgpt::bench::IterationTimes times(state);
  for (auto _ : state) {
    times.begin();
    const bool loaded = page.load(start_url());
    times.end();
    state.PauseTiming();
    const bool blank = page.load("about:blank");
    state.ResumeTiming();
    if (!loaded || !blank) {
      state.SkipWithError("a load failed");
      return;
    }
  }
  state.SetLabel(state.range(0) == 1 ? "screencast running" : "no screencast");
}
BENCHMARK(BM_LoadWhileStreaming)->Arg(0)->Arg(1)->Iterations(20)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
