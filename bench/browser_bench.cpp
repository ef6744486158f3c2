// Launch to first screenshot, and one 1080x720 capture (PNG, JPEG), on a saved real page; loading a page
// with a same-origin and with a cross-origin (out-of-process) iframe; the browser's own share of an agent
// step (click a link, wait for the next page, capture it); the saved real pages loaded and framed one by one; typing
// 200 characters key by key and at once.
// Targets (issue 2): launch to first screenshot <= 1.0 s, JPEG capture <= 60 ms median.
#include <benchmark/benchmark.h>
#include <httplib.h>

#include <algorithm>
#include <filesystem>
#include <thread>

#include "browser/browser.h"
#include "iteration_times.h"

namespace {

using vimgpt::browser::ImageFormat;
using vimgpt::browser::Tab;

vimgpt::launch::LaunchOptions loopback_only() {
  vimgpt::launch::LaunchOptions options;
  options.extra_args.emplace_back("--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1, EXCLUDE localhost");
  return options;
}

const std::string kPage = "file://" VIMGPT_PAGES_DIR "/wikipedia.html";

void BM_LaunchToFirstScreenshot(benchmark::State& state) {
  vimgpt::bench::IterationTimes times(state);
  for (auto _ : state) {
    times.begin();
    auto tab = Tab::launch(loopback_only());
    if (!tab) state.SkipWithError(tab.error().message.c_str());
    auto shot = (*tab)->screenshot({ImageFormat::Jpeg, 80, 1.0, std::nullopt});
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
    auto shot = (*tab)->screenshot({format, 80, 1.0, std::nullopt});
    bytes = shot ? shot->bytes.size() : 0;
    times.end();
  }
  state.counters["bytes"] = static_cast<double>(bytes);
  state.SetLabel(std::string(vimgpt::to_string(format)));
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

// Navigate (until loaded and the network is quiet) to a page whose iframe comes from 127.0.0.1 (same
// origin, same process) or from localhost (another site: Chromium runs it out of process).
void BM_NavigateWithFrame(benchmark::State& state) {
  const bool cross = state.range(0) == 1;
  httplib::Server server;
  server.Get("/frame", [](const httplib::Request&, httplib::Response& res) {
    res.set_content("<!doctype html><title>frame</title><button>inside</button>", "text/html");
  });
  server.set_tcp_nodelay(true);  // as tests/support/site_server.cpp: no 40 ms delayed-ACK stall on a kept-alive page
  const int port = server.bind_to_any_port("127.0.0.1");
  server.Get("/page", [port, cross](const httplib::Request&, httplib::Response& res) {
    const std::string host = cross ? "localhost" : "127.0.0.1";
    res.set_content("<!doctype html><title>page</title><p>text</p><iframe src='http://" + host + ":" +
                        std::to_string(port) + "/frame'></iframe>",
                    "text/html");
  });
  std::thread listener([&] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::yield();  // listening starts on the thread
  auto tab = Tab::launch(loopback_only());
  if (!tab) {
    state.SkipWithError(tab.error().message.c_str());
  } else {
    const std::string url = "http://127.0.0.1:" + std::to_string(port) + "/page";
    vimgpt::bench::IterationTimes times(state);
    for (auto _ : state) {
      times.begin();
      if (auto loaded = (*tab)->navigate(url); !loaded) state.SkipWithError(loaded.error().message.c_str());
      times.end();
    }
    state.SetLabel(cross ? "cross-origin frame" : "same-origin frame");
  }
  server.stop();
  listener.join();
}
BENCHMARK(BM_NavigateWithFrame)->Arg(0)->Arg(1)->Iterations(15)->Unit(benchmark::kMillisecond)->UseRealTime();

// The browser's share of one step of the agent task (figure 5), with nothing of the agent's: click the
// "Next" link of a page like the task's, wait as the agent does (the load, then nothing in flight), take
// one JPEG frame (quality 85, the agent's default). The per-step overhead cannot go below this.
void BM_ClickLoadCapture(benchmark::State& state) {
  httplib::Server server;
  server.Get(R"(/step/(\d+))", [](const httplib::Request& request, httplib::Response& res) {
    const int step = std::stoi(request.matches[1]);
    std::string html = "<!doctype html><title>Step " + std::to_string(step) +
                       "</title><style>body{font:15px sans-serif;margin:16px}li{display:inline-block;margin:3px "
                       "8px}</style><h1>Step</h1><ul>";
    for (int i = 0; i < 20; ++i)
      html += "<li><a href='/topic/" + std::to_string(i) + "'>Topic " + std::to_string(i) + "</a>";
    html += "</ul><p>The guide walks through the city one part at a time.</p><p><a id=next href='/step/" +
            std::to_string(step + 1) + "'>Next</a></p>";
    res.set_content(html, "text/html");
  });
  server.set_tcp_nodelay(true);  // as tests/support/site_server.cpp: no 40 ms delayed-ACK stall on a kept-alive page
  const int port = server.bind_to_any_port("127.0.0.1");
  std::thread listener([&] { server.listen_after_bind(); });
  while (!server.is_running()) std::this_thread::yield();
  auto tab = Tab::launch(loopback_only());
  const std::string site = "http://127.0.0.1:" + std::to_string(port);
  if (!tab || !(*tab)->navigate(site + "/step/1")) {
    state.SkipWithError("cannot open the page");
  } else {
    vimgpt::bench::IterationTimes times(state);
    for (auto _ : state) {
      auto where = (*tab)->evaluate_in_page(
          "(() => { const r = document.getElementById('next').getBoundingClientRect();"
          " return [r.x + r.width / 2, r.y + r.height / 2]; })()");
      if (!where) {
        state.SkipWithError(where.error().message.c_str());
        break;
      }
      times.begin();
      auto clicked = (*tab)->click({(*where)[0].get<double>(), (*where)[1].get<double>()});
      auto settled = (*tab)->settle(std::chrono::milliseconds{3000}, std::chrono::milliseconds{150},
                                    vimgpt::browser::SettleWait::LeaveOpen);
      auto shot = (*tab)->screenshot({ImageFormat::Jpeg, 85, 1.0, std::nullopt});
      times.end();
      if (!clicked || !settled || !shot) {
        state.SkipWithError("a step failed");
        break;
      }
    }
  }
  server.stop();
  listener.join();
}
BENCHMARK(BM_ClickLoadCapture)->Iterations(20)->Unit(benchmark::kMillisecond)->UseRealTime();

// A saved real page loaded and framed, as the agent's navigate action does (the load, the network-quiet
// window, one JPEG), cycling through ../shared/pages: the browser's side of a step on a heavy page, where the
// engine's flags (bench/ab/pages) show.
void BM_SavedPageWithFrame(benchmark::State& state) {
  std::vector<std::string> pages;
  std::error_code error;
  for (const auto& entry : std::filesystem::directory_iterator(VIMGPT_PAGES_DIR, error))
    if (entry.path().extension() == ".html") pages.push_back("file://" + entry.path().string());
  if (pages.empty()) {
    state.SkipWithError("no saved pages (../shared/pages)");
    return;
  }
  std::sort(pages.begin(), pages.end());
  auto tab = Tab::launch(loopback_only());
  if (!tab) {
    state.SkipWithError(tab.error().message.c_str());
    return;
  }
  std::size_t next = 0;
  vimgpt::bench::IterationTimes times(state);
  for (auto _ : state) {
    times.begin();
    auto loaded = (*tab)->navigate(pages[next++ % pages.size()]);
    auto shot = (*tab)->screenshot({ImageFormat::Jpeg, 85, 1.0, std::nullopt});
    times.end();
    if (!loaded || !shot) {
      state.SkipWithError("a page failed to load or frame");
      break;
    }
  }
}
BENCHMARK(BM_SavedPageWithFrame)->Iterations(50)->Unit(benchmark::kMillisecond)->UseRealTime();

// Typing 200 characters into a textarea: a key press a character (Arg 0: what vimgpt types) against the whole text at
// once (Arg 1: what it types only where no key or input listener could tell the difference).
void BM_TypeText(benchmark::State& state) {
  const auto how = state.range(0) == 0 ? vimgpt::browser::Typing::Keys : vimgpt::browser::Typing::Insert;
  auto tab = Tab::launch(loopback_only());
  if (!tab || !(*tab)->navigate("data:text/html,<textarea style='width:600px;height:300px'></textarea>")) {
    state.SkipWithError("cannot open the page");
    return;
  }
  std::string text;
  while (text.size() < 200) text += "The quick brown fox jumps over the lazy dog. ";
  text.resize(200);
  vimgpt::bench::IterationTimes times(state);
  for (auto _ : state) {
    state.PauseTiming();
    auto cleared = (*tab)->evaluate_in_page(
        "(() => { const t = document.querySelector('textarea'); t.value = '';"
        " t.focus(); return true; })()");
    state.ResumeTiming();
    times.begin();
    auto typed = (*tab)->type_text(text, how);
    times.end();
    if (!cleared || !typed) state.SkipWithError("typing failed");
  }
  state.SetLabel(how == vimgpt::browser::Typing::Keys ? "keys" : "at once");
}
BENCHMARK(BM_TypeText)->Arg(0)->Arg(1)->Iterations(15)->Unit(benchmark::kMillisecond)->UseRealTime();

BENCHMARK_MAIN();
