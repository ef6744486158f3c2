// Frame to request bytes ready (scale, encode, base64, JSON) for PNG and JPEG at 1080 and 768 wide, from a
// 1080x720 page-like frame; and reply-repair throughput over the reply corpus.
// Target: <= 15 ms for the JPEG path at 1080x720.
#include <benchmark/benchmark.h>

#include <fstream>
#include <random>
#include <sstream>

#include "iteration_times.h"
#include "vision/vision.h"

namespace {

using namespace vimgpt::vision;

// No saved real screenshot exists under tests/fixtures, so synthesize a page: white background, a dark header
// bar, rows of glyph-like marks, two photo-like blocks with gradients and noise, and yellow hint labels.
const Pixels& page_frame() {
  static const Pixels frame = [] {
    constexpr int kWidth = 1080;
    constexpr int kHeight = 720;
    Pixels pixels;
    pixels.width = kWidth;
    pixels.height = kHeight;
    pixels.data.assign(static_cast<std::size_t>(kWidth) * kHeight * 3, 255);
    std::mt19937 random(42);
    auto put = [&](int x, int y, int r, int g, int b) {
      auto* p = &pixels.data[(static_cast<std::size_t>(y) * kWidth + x) * 3];
      p[0] = static_cast<std::uint8_t>(r);
      p[1] = static_cast<std::uint8_t>(g);
      p[2] = static_cast<std::uint8_t>(b);
    };
    for (int y = 0; y < 56; ++y)
      for (int x = 0; x < kWidth; ++x) put(x, y, 32, 41, 64);
    for (int line = 0; line < 26; ++line) {
      const int top = 80 + line * 24;
      const int length = 300 + static_cast<int>(random() % 600);
      for (int x = 40; x < 40 + length; ++x) {
        for (int y = top; y < top + 12 && y < kHeight; ++y) {
          if (random() % 3 == 0) put(x, y, 30, 30, 30);
        }
      }
    }
    for (int block = 0; block < 2; ++block) {
      const int left = 700 + block * 180;
      for (int y = 120; y < 300; ++y) {
        for (int x = left; x < left + 160 && x < kWidth; ++x) {
          const int noise = static_cast<int>(random() % 40);
          put(x, y, (x * 3 + noise) % 256, (y * 2 + noise) % 256, (x + y + noise) % 256);
        }
      }
    }
    for (int label = 0; label < 40; ++label) {
      const int x0 = static_cast<int>(random() % (kWidth - 30));
      const int y0 = 60 + static_cast<int>(random() % (kHeight - 80));
      for (int y = y0; y < y0 + 16; ++y) {
        for (int x = x0; x < x0 + 24; ++x) {
          const bool ink = (x - x0 > 4 && x - x0 < 20 && y - y0 > 3 && y - y0 < 13 && (x + y) % 3 == 0);
          ink ? put(x, y, 0, 0, 0) : put(x, y, 255, 197, 66);
        }
      }
    }
    return pixels;
  }();
  return frame;
}

std::unique_ptr<Client> bench_client(const ImageOptions& image) {
  ClientOptions options;
  options.base_url = "http://127.0.0.1:9/v1";  // never contacted: prepare() only builds the request
  options.structured = Structured::Off;
  options.detail = Detail::High;
  options.image = image;
  return std::move(*Client::create(options));
}

StepRequest step_with(EncodedImage image) {
  StepRequest step;
  step.objective = "find the cheapest flight from Paris to Lisbon next Friday";
  step.images.push_back(std::move(image));
  return step;
}

void report(benchmark::State& state, const PreparedRequest& prepared) {
  state.counters["image_bytes"] = static_cast<double>(prepared.images.at(0).bytes.size());
  state.counters["request_bytes"] = static_cast<double>(prepared.body.size());
  state.counters["est_tokens_openai"] = prepared.estimated_image_tokens;
  state.counters["est_tokens_anthropic"] = estimate_image_tokens(
      find_model("claude-sonnet-5-5")->images, prepared.images[0].width, prepared.images[0].height, Detail::High);
}

// Decoded frame (e.g. after drawing labels onto the capture) -> scaled, encoded, base64, JSON body.
void BM_FrameToRequest(benchmark::State& state) {
  const auto format = static_cast<ImageFormat>(state.range(0));
  const ImageOptions image{static_cast<int>(state.range(1)), format, 85};
  auto client = bench_client(image);
  PreparedRequest prepared;
  vimgpt::bench::IterationTimes times(state);
  for (auto _ : state) {
    times.begin();
    auto encoded = prepare_image(page_frame(), image);
    auto request = client->prepare(step_with(std::move(*encoded)));
    prepared = std::move(*request);
    benchmark::DoNotOptimize(prepared.body.data());
    times.end();
  }
  report(state, prepared);
}
BENCHMARK(BM_FrameToRequest)
    ->ArgNames({"png0_jpeg1", "width"})
    ->Args({static_cast<int>(ImageFormat::Jpeg), 1080})
    ->Args({static_cast<int>(ImageFormat::Jpeg), 768})
    ->Args({static_cast<int>(ImageFormat::Png), 1080})
    ->Args({static_cast<int>(ImageFormat::Png), 768})
    ->Unit(benchmark::kMillisecond);

// Chromium already captured a JPEG at the right width: nothing is decoded or re-encoded.
void BM_CapturedJpegPassThrough(benchmark::State& state) {
  const ImageOptions image{1080, ImageFormat::Jpeg, 85};
  const EncodedImage captured = *encode_image(page_frame(), ImageFormat::Jpeg, 85);
  auto client = bench_client(image);
  PreparedRequest prepared;
  vimgpt::bench::IterationTimes times(state);
  for (auto _ : state) {
    times.begin();
    prepared = std::move(*client->prepare(step_with(captured)));
    benchmark::DoNotOptimize(prepared.body.data());
    times.end();
  }
  report(state, prepared);
}
BENCHMARK(BM_CapturedJpegPassThrough)->Unit(benchmark::kMillisecond);

// Chromium's default PNG capture re-encoded as JPEG (decode + encode).
void BM_CapturedPngToJpeg(benchmark::State& state) {
  const ImageOptions image{static_cast<int>(state.range(0)), ImageFormat::Jpeg, 85};
  const EncodedImage captured = *encode_image(page_frame(), ImageFormat::Png, 85);
  auto client = bench_client(image);
  PreparedRequest prepared;
  vimgpt::bench::IterationTimes times(state);
  for (auto _ : state) {
    times.begin();
    prepared = std::move(*client->prepare(step_with(captured)));
    benchmark::DoNotOptimize(prepared.body.data());
    times.end();
  }
  report(state, prepared);
}
BENCHMARK(BM_CapturedPngToJpeg)->ArgName("width")->Arg(1080)->Arg(768)->Unit(benchmark::kMillisecond);

void BM_RepairCorpus(benchmark::State& state) {
  std::ifstream file(std::string(VIMGPT_SOURCE_DIR) + "/tests/fixtures/replies/corpus.json");
  std::ostringstream text;
  text << file.rdbuf();
  const Json corpus = Json::parse(text.str());
  std::vector<std::string> replies;
  for (const auto& entry : corpus["cases"]) replies.push_back(entry["reply"]);
  std::size_t bytes = 0;
  for (const auto& reply : replies) bytes += reply.size();
  for (auto _ : state) {
    for (const auto& reply : replies) {
      auto parsed = parse_reply(reply);
      benchmark::DoNotOptimize(parsed);
    }
  }
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * replies.size()));
  state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * bytes));
}
BENCHMARK(BM_RepairCorpus);

}  // namespace

BENCHMARK_MAIN();
