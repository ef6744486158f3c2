// Hint pass cost: find + label + draw (overlay in the page, or onto a captured frame), without the
// screenshot itself, on generated pages with 100, 1,000 and 10,000 links and on the saved real pages.
// Targets (issue 3): <= 30 ms for 1,000 links, <= 150 ms for 10,000. Counters: hints found, the cost per
// element of the page (so growth with page size is visible), and for the overlay the time Chromium then
// takes to render the markers (remove_ms).
#include <benchmark/benchmark.h>
#include <httplib.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <memory>
#include <thread>
#include <vector>

#include "browser/browser.h"
#include "hints/hints.h"
#include "iteration_times.h"

namespace {

using namespace vimgpt;

// A minimal loopback server: generated pages under /gen/N, the saved pages under /pages.
class Server {
 public:
  Server() {
    server_.Get(R"(/gen/(\d+))", [](const httplib::Request& request, httplib::Response& response) {
      const int links = std::stoi(request.matches[1]);
      std::string html =
          "<!doctype html><html><head><title>gen</title><style>body{font:14px sans-serif}"
          " li{display:inline-block;margin:2px 6px}</style></head><body><nav><ul>";
      for (int i = 0; i < links; ++i) {
        html += "<li><a href=\"/item/" + std::to_string(i) + "\">item " + std::to_string(i) + "</a></li>";
        if (i % 50 == 49) html += "</ul><p>Some paragraph text between groups of links.</p><ul>";
      }
      html += "</ul></nav></body></html>";
      response.set_content(html, "text/html");
    });
    server_.set_mount_point("/pages", VIMGPT_PAGES_DIR);
    server_.set_tcp_nodelay(true);  // as tests/support/site_server.cpp: no 40 ms stall on a kept-alive request
    port_ = server_.bind_to_any_port("127.0.0.1");
    thread_ = std::thread([this] { server_.listen_after_bind(); });
    while (!server_.is_running()) std::this_thread::yield();  // listening starts on the thread
  }
  ~Server() {
    server_.stop();
    thread_.join();
  }
  [[nodiscard]] std::string url(const std::string& path) const {
    return "http://127.0.0.1:" + std::to_string(port_) + path;
  }

 private:
  httplib::Server server_;
  std::thread thread_;
  int port_ = 0;
};

Server& server() {
  static Server instance;
  return instance;
}

browser::Tab& tab() {
  static std::unique_ptr<browser::Tab> instance = [] {
    // The saved pages reference other hosts: resolve nothing but loopback, so no request leaves the machine.
    launch::LaunchOptions options;
    options.extra_args.emplace_back("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1");
    auto launched = browser::Tab::launch(options);
    if (!launched) throw std::runtime_error(launched.error().describe());
    return std::move(*launched);
  }();
  return *instance;
}

double element_count() {
  auto count = tab().evaluate("document.getElementsByTagName('*').length");
  return count ? count->get<double>() : 1;
}

bool open(benchmark::State& state, const std::string& path) {
  auto navigated = tab().navigate(server().url(path));
  if (!navigated) state.SkipWithError(navigated.error().describe().c_str());
  return static_cast<bool>(navigated);
}

// Overlay mode: find, label, put the markers in the page. Taking them away is timed apart: it is where
// Chromium renders the frame with the markers (the next command waits for it), which in a capture is the
// screenshot's work; remove_ms reports it.
void run_overlay_pass(benchmark::State& state) {
  std::size_t hints = 0;
  bench::IterationTimes times(state);
  std::vector<double> removals;
  for (auto _ : state) {
    times.begin();
    auto map = hints::find_hints(tab());
    if (!map) return state.SkipWithError(map.error().describe().c_str());
    if (auto shown = hints::show_overlay(tab(), *map); !shown)
      return state.SkipWithError(shown.error().describe().c_str());
    times.end();
    state.PauseTiming();
    const auto removing = std::chrono::steady_clock::now();
    if (auto removed = hints::remove_overlay(tab()); !removed)
      return state.SkipWithError(removed.error().describe().c_str());
    removals.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - removing).count());
    state.ResumeTiming();
    hints = map->size();
  }
  std::sort(removals.begin(), removals.end());
  const double elements = element_count();
  state.counters["hints"] = static_cast<double>(hints);
  state.counters["elements"] = elements;
  state.counters["remove_ms"] = removals.empty() ? 0.0 : removals[removals.size() / 2];
  state.counters["per_element"] =
      benchmark::Counter(elements, benchmark::Counter::kIsIterationInvariantRate | benchmark::Counter::kInvert);
}

// Image mode: find, label, and draw onto an already captured frame (decode, paint, encode), a JPEG as the
// agent captures by default.
void run_image_pass(benchmark::State& state) {
  auto frame = tab().screenshot({browser::ImageFormat::Jpeg, 80, 1.0, std::nullopt});
  if (!frame) return state.SkipWithError(frame.error().describe().c_str());
  std::size_t hints = 0;
  bench::IterationTimes times(state);
  for (auto _ : state) {
    times.begin();
    auto map = hints::find_hints(tab());
    if (!map) return state.SkipWithError(map.error().describe().c_str());
    auto drawn = hints::draw_labels(*frame, *map, {}, 80);
    if (!drawn) return state.SkipWithError(drawn.error().describe().c_str());
    times.end();
    hints = map->size();
  }
  state.counters["hints"] = static_cast<double>(hints);
}

void BM_HintPassOverlay(benchmark::State& state) {
  if (open(state, "/gen/" + std::to_string(state.range(0)))) run_overlay_pass(state);
}
void BM_HintPassImage(benchmark::State& state) {
  if (open(state, "/gen/" + std::to_string(state.range(0)))) run_image_pass(state);
}
void BM_FindOnly(benchmark::State& state) {
  if (!open(state, "/gen/" + std::to_string(state.range(0)))) return;
  bench::IterationTimes times(state);
  for (auto _ : state) {
    times.begin();
    auto map = hints::find_hints(tab());
    if (!map) return state.SkipWithError(map.error().describe().c_str());
    benchmark::DoNotOptimize(map->size());
    times.end();
  }
}

void configure(benchmark::internal::Benchmark* bench) {
  bench->Unit(benchmark::kMillisecond)->UseRealTime()->Repetitions(3)->ReportAggregatesOnly(true);
}

BENCHMARK(BM_HintPassOverlay)->Arg(100)->Arg(1000)->Arg(10000)->Apply(configure);
BENCHMARK(BM_HintPassImage)->Arg(100)->Arg(1000)->Arg(10000)->Apply(configure);
BENCHMARK(BM_FindOnly)->Arg(100)->Arg(1000)->Arg(10000)->Apply(configure);

// One benchmark per saved real page.
[[maybe_unused]] const bool registered = [] {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(VIMGPT_PAGES_DIR))
    if (entry.path().extension() == ".html") names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  for (const auto& name : names) {
    auto* bench = benchmark::RegisterBenchmark(("BM_RealPage/" + name).c_str(), [name](benchmark::State& state) {
      if (open(state, "/pages/" + name)) run_overlay_pass(state);
    });
    bench->Unit(benchmark::kMillisecond)->UseRealTime()->Iterations(10)->Repetitions(3)->ReportAggregatesOnly(true);
  }
  return true;
}();

}  // namespace

BENCHMARK_MAIN();
