// Each open family's dialect beside vimgpt's own labels, and each provider's own computer tool (--mode computer-use)
// beside the same model in labels mode, on one task through the real binary: the order page of
// tests/e2e/agent_dialect_test (one blue button on 127.0.0.1), and the fake model answering in the family's own form
// (tests/support/dialect_fake) after the time a model would take under agent_bench's shared latency profile (912 ms
// to the first token, 0.24 ms a prompt token, 44.8 tokens a second out). Runs alternate family by family.
// Prints per family:
//   - where the click landed against where the model aimed, in frame pixels: the model aims at the button's centre
//     as it finds it in the frame it received, answers in its own space (rounded as it writes numbers), vimgpt
//     converts the answer to the frame and clicks; the page reports the click. Target: within the family's own
//     rounding (half a model pixel, or half a thousandth of the frame), and 0 added by the conversion;
//   - the tokens of each request: the images at the family's image rule (the catalogue's), the text at 4 bytes a
//     token, first step and second (its history);
//   - the median seconds a step takes, and the run's total;
//   - the model calls of a run and what they would cost at the catalogue's price (the tokens as above; the output
//     at 4 bytes a token of what the model wrote), for the providers' models.
// Not a Google Benchmark: each figure comes from whole runs of the binary. bench/dialects/run builds and runs it.
#include <httplib.h>
#include <stb_image.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <sstream>

#include "support/cli_runner.h"
#include "support/dialect_fake.h"
#include "support/fake_model_server.h"
#include "support/site_server.h"

namespace {

using namespace vimgpt;
using nlohmann::json;

constexpr std::array<std::uint8_t, 3> kBlue{30, 60, 220};
constexpr int kViewportWidth = 1080;  // vimgpt's default viewport (1080x720, as the original)

struct Family {
  std::string served;
  std::string family;  // "" for vimgpt's own labels
  std::string dialect_flag;
  std::string provider;  // --provider, for a provider's model ("anthropic", "openai"); empty: a compatible server
  std::string mode;      // --mode computer-use; empty: labels
  std::string name;      // as printed
};

// What Anthropic adds to each request that carries its computer toolset (Claude 5.5's, computer_toolset_20260801),
// unseen in the request: "about 4,500 input tokens" with every member offered (Anthropic's computer-use tool page,
// stored copy of 2026-09-26, read 2026-12-06; models.json "ant-computer-toolset"). vimgpt withholds five members,
// which saves some, by an amount the page does not give (only zoom's, ~410): this is an upper bound. Counted in a
// computer-use run's time and cost.
constexpr int kAnthropicComputerToolTokens = 4500;

// agent_bench's shared profile.
std::chrono::milliseconds model_time(int prompt_tokens, std::size_t reply_bytes) {
  const double ms = 912 + 0.24 * prompt_tokens + (1000.0 / 44.8) * static_cast<double>((reply_bytes + 3) / 4);
  return std::chrono::milliseconds(static_cast<long long>(ms));
}

struct RequestTokens {
  int image = 0;
  int text = 0;
};

RequestTokens tokens_of(const test::ReceivedRequest& request, const vision::ImageTokenRule& rule) {
  RequestTokens tokens;
  for (const auto& image : request.images) {
    tokens.image += vision::estimate_image_tokens(rule, image.width, image.height, vision::Detail::Auto);
  }
  tokens.text = static_cast<int>((request.text.size() + 3) / 4);
  return tokens;
}

// The last image of the request, decoded: where the blue button's centre is in it (frame pixels).
std::optional<test::Centre> aim_of(const test::ReceivedRequest& request) {
  const auto image = test::last_image(request.body);
  return image ? test::find_colour(*image, kBlue) : std::nullopt;
}

// A provider's computer tool, as its model would answer: a click on the button's centre in the screenshot (the
// display the tool declares), then, once the result shows the order placed, its answer in words.
test::FakeModelServer::Responder computer_tool_responder(const std::string& provider) {
  return [provider](const test::ReceivedRequest& request) {
    const auto aim = aim_of(request);
    if (!aim) return test::ScriptedReply::text("The order is placed.");
    const long x = std::lround(aim->x);
    const long y = std::lround(aim->y);
    if (provider == "anthropic") {
      return test::ScriptedReply::tool_use(  // a member of the toolset
          json::array({{{"name", "left_click"}, {"input", {{"coordinate", {x, y}}}}}}));
    }
    if (provider == "gemini") {  // its 0-999 grid over the screenshot
      return test::ScriptedReply::tool_use(json::array(
          {{{"name", "click"},
            {"args",
             {{"x", std::lround(aim->x * 1000 / aim->width)}, {"y", std::lround(aim->y * 1000 / aim->height)}}}}}));
    }
    return test::ScriptedReply::tool_use(json::array(
        {{{"name", "computer"}, {"actions", {{{"type", "click"}, {"button", "left"}, {"x", x}, {"y", y}}}}}}));
  };
}

// What the model wrote, for its decode time: the text, or (a server that parsed the call out) the message's text and
// each call's name and arguments, not the response's envelope.
std::size_t reply_bytes(const test::ScriptedReply& reply) {
  if (reply.tool_uses.is_array()) return reply.content.size() + reply.tool_uses.dump().size();
  if (reply.raw_body.empty()) return reply.content.size();
  const json body = json::parse(reply.raw_body, nullptr, false);
  const json message = body.is_object() ? body["choices"][0]["message"] : json::object();
  std::size_t bytes = message.value("content", std::string()).size();
  for (const auto& call : message.value("tool_calls", json::array())) {
    bytes += call["function"].value("name", std::string()).size() + call["function"].value("arguments", "").size();
  }
  return bytes;
}

double median(std::vector<double> values) {
  if (values.empty()) return 0;
  std::sort(values.begin(), values.end());
  return values[(values.size() - 1) / 2];
}

struct Figures {
  std::vector<double> errors;  // frame pixels, one per landed click
  std::vector<double> step_ms;
  std::vector<double> run_ms;
  std::vector<RequestTokens> first;
  std::vector<RequestTokens> second;
  std::vector<double> calls;     // model calls a run
  std::vector<double> cost_usd;  // a run's, at the catalogue's price; empty: no price
  int frame_width = 0;
  int landed = 0;
  int runs = 0;
};

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::max(1, std::atoi(argv[1])) : 3;
  const std::string only = argc > 2 ? argv[2] : "";  // run only the rows whose name holds this
  std::mutex clicks_mutex;
  std::vector<std::pair<double, double>> clicks;  // CSS pixels of the viewport
  test::SiteServer site([&](httplib::Server& s) {
    s.Get("/", [](const httplib::Request&, httplib::Response& res) {
      res.set_content(
          "<!doctype html><title>Order</title><body style='margin:0;background:#fff'>"
          "<p style='margin:20px'>Press the button to order.</p>"
          "<button id=order style='position:absolute;left:380px;top:220px;width:260px;height:140px;"
          "background:rgb(30,60,220);border:0;color:#fff' onclick=\"fetch('/ordered?x=' + event.clientX + '&y=' + "
          "event.clientY).then(() => { document.body.innerHTML = '<p>Ordered.</p>'; })\">Order</button></body>",
          "text/html");
    });
    s.Get("/ordered", [&](const httplib::Request& req, httplib::Response& res) {
      std::scoped_lock lock(clicks_mutex);
      clicks.emplace_back(std::stod(req.get_param_value("x")), std::stod(req.get_param_value("y")));
      res.set_content("ok", "text/plain");
    });
  });
  const std::vector<Family> families = {
      {"qwen3-vl:8b", "", "vimgpt", "", "", "vimgpt labels"},  // vimgpt's labelled JSON, to the same model
      {"qwen2.5vl:7b", "qwen2.5-vl", "", "", "", "qwen2.5-vl"},
      {"qwen3-vl:8b", "qwen3-vl", "", "", "", "qwen3-vl"},
      {"Qwen/Qwen3.5-9B", "qwen3.5", "", "", "", "qwen3.5"},
      {"microsoft/Fara-7B", "fara", "", "", "", "fara"},
      {"microsoft/Fara1.5-9B", "fara-1.5", "", "", "", "fara-1.5"},
      {"UI-TARS-1.5-7B-Q4_K_M.gguf", "ui-tars-1.5", "", "", "", "ui-tars-1.5"},
      {"mPLUG/GUI-Owl-1.5-8B-Instruct", "gui-owl-1.5", "", "", "", "gui-owl-1.5"},
      {"zai-org/GLM-4.5V", "glm-v", "", "", "", "glm-v"},
      {"Hcompany/Holo-3.1-35B-A3B", "holo3", "", "", "", "holo3"},
      {"allenai/MolmoWeb-8B", "molmoweb", "", "", "", "molmoweb"},
      {"claude-sonnet-5-5", "", "", "anthropic", "", "claude labels"},
      {"claude-sonnet-5-5", "", "", "anthropic", "computer-use", "claude cu"},
      {"gpt-5.4", "", "", "openai", "", "gpt-5.4 labels"},
      {"gpt-5.4", "", "", "openai", "computer-use", "gpt-5.4 cu"},
      {"gemini-3.8-flash", "", "", "gemini", "", "gemini labels"},
      {"gemini-3.8-flash", "", "", "gemini", "computer-use", "gemini cu"},
  };
  std::map<std::string, Figures> figures;
  const std::string load_before = [] {
    std::ifstream in("/proc/loadavg");
    std::string a, b, c;
    in >> a >> b >> c;
    return a + " " + b + " " + c;
  }();
  for (int round = 0; round < runs; ++round) {
    for (const auto& family : families) {
      const std::string& name = family.name;
      if (name.find(only) == std::string::npos) continue;
      Figures& out = figures[name];
      const bool tool = !family.mode.empty();
      const vision::ModelSpec* spec = vision::find_model(family.served);
      const vision::ImageTokenRule rule = spec != nullptr ? spec->images : vision::ImageTokenRule{};
      test::FakeModelServer model;
      std::mutex aims_mutex;
      std::vector<test::Centre> aims;
      double cost = 0;
      auto asked = std::make_shared<int>(0);
      test::FakeModelServer::Responder answer =
          tool ? computer_tool_responder(family.provider)
          : family.family.empty()
              ? test::FakeModelServer::Responder([asked](const test::ReceivedRequest&) {
                  // The page's one element has Vimium's first label (S); after the click, the task is done.
                  return test::ScriptedReply::text(++*asked == 1 ? R"({"click": "S"})"
                                                                 : R"({"done": "The order is placed."})");
                })
              : test::dialect_responder(test::fake_family(family.family), kBlue, "The order is placed.");
      model.set_responder([&](const test::ReceivedRequest& request) {
        if (const auto aim = aim_of(request)) {
          std::scoped_lock lock(aims_mutex);
          aims.push_back(*aim);
        }
        test::ScriptedReply reply = answer(request);
        RequestTokens tokens = tokens_of(request, rule);
        if (tool && family.provider == "anthropic") tokens.text += kAnthropicComputerToolTokens;
        reply.delay = model_time(tokens.image + tokens.text, reply_bytes(reply));
        if (spec != nullptr && spec->price) {
          std::scoped_lock lock(aims_mutex);
          cost += (tokens.image + tokens.text) * spec->price->input_per_million / 1e6 +
                  static_cast<double>((reply_bytes(reply) + 3) / 4) * spec->price->output_per_million / 1e6;
        }
        return reply;
      });
      {
        std::scoped_lock lock(clicks_mutex);
        clicks.clear();
      }
      std::vector<std::string> args = {"press the order button",
                                       "--base-url",
                                       family.provider == "gemini" ? model.gemini_url() : model.url(),
                                       "--model",
                                       family.served,
                                       "--start-url",
                                       site.url("/"),
                                       "--max-steps",
                                       "4",
                                       "--max-retries",
                                       "0",
                                       "--json",
                                       "-q"};
      if (!family.dialect_flag.empty()) args.insert(args.end(), {"--dialect", family.dialect_flag});
      if (!family.provider.empty()) args.insert(args.end(), {"--provider", family.provider, "--api-key", "k"});
      if (tool) args.insert(args.end(), {"--mode", family.mode});
      const auto started = std::chrono::steady_clock::now();
      const test::CliRun run = test::run_vimgpt(args);
      const double run_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count();
      ++out.runs;
      out.run_ms.push_back(run_ms);
      std::istringstream lines(run.out);
      for (std::string line; std::getline(lines, line);) {
        const json event = json::parse(line, nullptr, false);
        if (event.is_object() && event.value("event", "") == "step") out.step_ms.push_back(event.value("ms", 0.0));
      }
      const auto requests = model.requests();
      out.calls.push_back(static_cast<double>(requests.size()));
      if (spec != nullptr && spec->price) out.cost_usd.push_back(cost);
      const auto counted = [&](const test::ReceivedRequest& request) {
        RequestTokens tokens = tokens_of(request, rule);
        if (tool && family.provider == "anthropic") tokens.text += kAnthropicComputerToolTokens;
        return tokens;
      };
      if (!requests.empty()) out.first.push_back(counted(requests[0]));
      if (requests.size() > 1) out.second.push_back(counted(requests[1]));
      if (!requests.empty() && !requests[0].images.empty()) out.frame_width = requests[0].images[0].width;
      std::scoped_lock lock(clicks_mutex, aims_mutex);
      if (clicks.size() == 1) ++out.landed;
      // Labels and marks click the element's centre: only a point has an aim to land on.
      const bool points =
          tool || (!family.family.empty() && spec != nullptr && spec->dialect && !spec->dialect->reads_marks());
      if (points && clicks.size() == 1 && !aims.empty() && out.frame_width > 0) {
        // The click in frame pixels (the frame is the viewport scaled to its width), against the aim.
        const double scale = static_cast<double>(out.frame_width) / kViewportWidth;
        const double dx = clicks[0].first * scale - aims.front().x;
        const double dy = clicks[0].second * scale - aims.front().y;
        out.errors.push_back(std::hypot(dx, dy));
      }
      if (run.exit_code != 0) std::fprintf(stderr, "%s: exit %d\n%s\n", name.c_str(), run.exit_code, run.err.c_str());
    }
  }
  const std::string load_after = [] {
    std::ifstream in("/proc/loadavg");
    std::string a, b, c;
    in >> a >> b >> c;
    return a + " " + b + " " + c;
  }();
  json result = {
      {"runs", runs}, {"load_before", load_before}, {"load_after", load_after}, {"families", json::object()}};
  std::printf("%-15s %6s %7s %16s %18s %18s %7s %7s %6s %9s\n", "dialect", "frame", "landed", "error px med/max",
              "step 1 image+text", "step 2 image+text", "s/step", "s/run", "calls", "$/run");
  for (const auto& family : families) {
    const std::string& name = family.name;
    if (name.find(only) == std::string::npos) continue;
    const Figures& f = figures[name];
    const auto mean = [](const std::vector<RequestTokens>& all, bool image) {
      double sum = 0;
      for (const auto& t : all) sum += image ? t.image : t.text;
      return all.empty() ? 0.0 : sum / static_cast<double>(all.size());
    };
    const double max_error = f.errors.empty() ? 0 : *std::max_element(f.errors.begin(), f.errors.end());
    char step1[32];
    char step2[32];
    std::snprintf(step1, sizeof step1, "%.0f+%.0f", mean(f.first, true), mean(f.first, false));
    std::snprintf(step2, sizeof step2, "%.0f+%.0f", mean(f.second, true), mean(f.second, false));
    char error[32] = "- (its centre)";
    if (!f.errors.empty()) std::snprintf(error, sizeof error, "%.2f/%.2f", median(f.errors), max_error);
    char cost[16] = "-";
    if (!f.cost_usd.empty()) std::snprintf(cost, sizeof cost, "%.5f", median(f.cost_usd));
    std::printf("%-15s %6d %4d/%-2d %16s %18s %18s %7.2f %7.2f %6.0f %9s\n", name.c_str(), f.frame_width, f.landed,
                f.runs, error, step1, step2, median(f.step_ms) / 1000, median(f.run_ms) / 1000, median(f.calls), cost);
    result["families"][name] = {{"frame_width", f.frame_width},
                                {"landed", f.landed},
                                {"runs", f.runs},
                                {"error_px_median", f.errors.empty() ? json() : json(median(f.errors))},
                                {"error_px_max", f.errors.empty() ? json() : json(max_error)},
                                {"step1_image_tokens", mean(f.first, true)},
                                {"step1_text_tokens", mean(f.first, false)},
                                {"step2_image_tokens", mean(f.second, true)},
                                {"step2_text_tokens", mean(f.second, false)},
                                {"step_s_median", median(f.step_ms) / 1000},
                                {"run_s_median", median(f.run_ms) / 1000},
                                {"calls_median", median(f.calls)},
                                {"cost_usd_median", f.cost_usd.empty() ? json() : json(median(f.cost_usd))}};
  }
  std::printf("load %s -> %s\n", load_before.c_str(), load_after.c_str());
  const std::filesystem::path out_file = std::filesystem::path(VIMGPT_SOURCE_DIR) /
                                         ("bench/results/dialects-" + (only.empty() ? "latest" : only) + ".json");
  std::filesystem::create_directories(out_file.parent_path());
  std::ofstream(out_file) << result.dump(2) << "\n";
  return 0;
}
