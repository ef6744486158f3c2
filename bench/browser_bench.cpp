// Launch to first screenshot, and one 1080x720 capture (PNG, JPEG), on a saved real page.
// Targets (issue 2): launch to first screenshot <= 1.0 s, JPEG capture <= 60 ms median.
#include <benchmark/benchmark.h>

#include "browser/browser.h"
#include "iteration_times.h"

namespace {

using vimgpt::browser::ImageFormat;
using vimgpt::browser::Tab;

vimgpt::cdp::LaunchOptions loopback_only() {
  vimgpt::cdp::LaunchOptions options;
  options.extra_args.emplace_back("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1");
  return options;
}

const std::string kPage = "file://" VIMGPT_PAGES_DIR "/wikipedia.html";

void BM_LaunchToFirstScreenshot(benchmark::State& state) {
  vimgpt::bench::IterationTimes times(state);
  for (auto _ : state) {
    times.begin();
    auto tab = Tab::launch(loopback_only());
    if (!tab) state.SkipWithError(tab.error().message.c_str());
    auto shot = (*tab)->screenshot({ImageFormat::Jpeg, 80, 1.0});
    benchmark::DoNotOptimize(shot);
    times.end();
    state.PauseTiming();
    tab->reset();
    state.ResumeTiming();
  }
}
BENCHMARK(BM_LaunchToFirstScreenshot)->Iterations(7)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Screenshot(benchmark::State& state) {
  const auto format = static_cast<ImageFormat>(state.range(0));
  auto tab = Tab::launch(loopback_only());
  if (!tab || !(*tab)->navigate(kPage)) {
    state.SkipWithError("cannot open the page");
    return;
  }
  std::size_t bytes = 0;
  vimgpt::bench::IterationTimes times(state);
  for (auto _ : state) {
    times.begin();
    auto shot = (*tab)->screenshot({format, 80, 1.0});
    bytes = shot ? shot->bytes.size() : 0;
    times.end();
  }
  state.counters["bytes"] = static_cast<double>(bytes);
  state.SetLabel(std::string(vimgpt::browser::to_string(format)));
}
BENCHMARK(BM_Screenshot)
    ->Arg(static_cast<int>(ImageFormat::Png))
    ->Arg(static_cast<int>(ImageFormat::Jpeg))
    ->Iterations(30)
    ->Repetitions(3)
    ->ReportAggregatesOnly(true)
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime();

}  // namespace

BENCHMARK_MAIN();
