// Per-iteration wall times of a benchmark loop, reported as the counters p50_ms and p90_ms, so bench/run
// can show a median and a 90th percentile over single iterations (Google Benchmark's own aggregates are over
// repetition means). With repetitions, the "_median" aggregate holds the median of each repetition's value.
//
//   IterationTimes times(state);
//   for (auto _ : state) {
//     times.begin();
//     ...
//     times.end();
//   }
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <vector>

namespace vimgpt::bench {

class IterationTimes {
 public:
  explicit IterationTimes(benchmark::State& state) : state_(state) {}
  ~IterationTimes() {
    if (samples_.empty()) return;
    std::sort(samples_.begin(), samples_.end());
    state_.counters["p50_ms"] = percentile(0.5);
    state_.counters["p90_ms"] = percentile(0.9);
  }
  IterationTimes(const IterationTimes&) = delete;
  IterationTimes& operator=(const IterationTimes&) = delete;

  void begin() { start_ = std::chrono::steady_clock::now(); }
  void end() { end_at(std::chrono::steady_clock::now()); }
  // The iteration ended earlier than now (an event's arrival, noted on another thread).
  void end_at(std::chrono::steady_clock::time_point when) {
    samples_.push_back(std::chrono::duration<double, std::milli>(when - start_).count());
  }

 private:
  // Nearest rank on the sorted samples.
  [[nodiscard]] double percentile(double p) const {
    const auto rank = static_cast<std::size_t>(std::ceil(p * static_cast<double>(samples_.size())));
    return samples_[std::clamp<std::size_t>(rank, 1, samples_.size()) - 1];
  }

  benchmark::State& state_;
  std::chrono::steady_clock::time_point start_;
  std::vector<double> samples_;
};

}  // namespace vimgpt::bench
