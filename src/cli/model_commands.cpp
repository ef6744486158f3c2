// `vimgpt models` (the catalogue) and `vimgpt doctor` (one checked request to the configured model).
#include <algorithm>
#include <cstdio>
#include <iostream>

#include "cli/commands.h"
#include "common/pixels.h"
#include "hints/hints.h"

namespace vimgpt::cli {
namespace {

std::string price_text(const std::optional<vision::Price>& price) {
  if (!price) return "-";
  char text[96];
  std::snprintf(text, sizeof text, "%g / %g / %g / %g", price->input_per_million, price->cached_input_per_million,
                price->cache_write_per_million, price->output_per_million);
  return text;
}

std::string status_text(const vision::ModelSpec& spec) {
  std::string text(vision::to_string(spec.status));
  if (!spec.shutdown.empty()) text += spec.status == vision::ModelStatus::Retired ? " " : " until ";
  text += spec.shutdown;
  if (!spec.replacement.empty()) text += " -> " + spec.replacement;
  return text;
}

// What vimgpt sends it to reason least: the effort, and the room kept for reasoning when it still reasons.
std::string effort_text(const vision::ModelSpec& spec) {
  if (spec.status == vision::ModelStatus::Retired) return "-";
  const std::string reserve = " +" + std::to_string(spec.reasoning_reserve);
  if (spec.efforts.empty() && spec.reasoning_reserve > 0) return "its own" + reserve;
  if (spec.provider == vision::Provider::Anthropic) {
    const std::string effort = spec.effort.empty() ? "no effort" : spec.effort;
    return effort + (spec.thinking == vision::Thinking::Always ? ", thinks" + reserve : ", no thinking");
  }
  if (spec.efforts.empty()) return "-";
  return spec.effort + (spec.effort != "none" ? reserve : std::string());
}

// What the family answers with: a point in its space, or a numbered mark's number.
std::string points_text(const vision::Dialect& dialect) {
  return dialect.reads_marks() ? "numbered marks" : std::string(vision::to_string(dialect.points));
}

nlohmann::json to_json(const vision::ModelSpec& spec) {
  nlohmann::json json = {{"id", spec.id},
                         {"aliases", spec.aliases},
                         {"provider", vision::to_string(spec.provider)},
                         {"status", vision::to_string(spec.status)},
                         {"shutdown", spec.shutdown},
                         {"replacement", spec.replacement},
                         {"token_limit", spec.token_limit},
                         {"efforts", spec.efforts},
                         {"effort", spec.effort},
                         {"reasoning_reserve", spec.reasoning_reserve},
                         {"structured", vision::to_string(spec.structured)},
                         {"sources", spec.sources}};
  if (spec.price) {
    json["price"] = {{"input", spec.price->input_per_million},
                     {"cached", spec.price->cached_input_per_million},
                     {"cache_write", spec.price->cache_write_per_million},
                     {"output", spec.price->output_per_million}};
  }
  if (!spec.note.empty()) json["note"] = spec.note;
  if (spec.computer_tool) {
    json["computer_tool"] = {{"type", spec.computer_tool->type}, {"beta", spec.computer_tool->beta}};
  }
  if (spec.best_mode) {
    json["best_mode"] = {{"mode", vision::to_string(spec.best_mode->mode)}, {"why", spec.best_mode->why}};
  }
  if (spec.dialect) {
    const vision::Dialect& dialect = *spec.dialect;
    json["dialect"] = {{"family", dialect.family},
                       {"kind", vision::to_string(dialect.kind)},
                       {"points", points_text(dialect)},
                       {"resize",
                        {{"factor", dialect.resize.factor},
                         {"min_pixels", dialect.resize.min_pixels},
                         {"max_pixels", dialect.resize.max_pixels}}},
                       {"screenshots", dialect.screenshots},
                       {"reply_tokens", dialect.reply_tokens},
                       {"serving", dialect.serving}};
    if (dialect.temperature) json["dialect"]["temperature"] = *dialect.temperature;
    if (dialect.xml_calls) json["dialect"]["calls"] = "xml";
    if (dialect.told_screen) {
      json["dialect"]["told_screen"] =
          std::to_string(dialect.told_screen->width) + "x" + std::to_string(dialect.told_screen->height);
    }
  }
  return json;
}

// The open families, one line each: how they speak and what their servers need.
void print_open_families(const std::vector<vision::ModelSpec>& catalogue) {
  std::printf("\nopen families (--base-url of your server; vimgpt models NAME for the serving flags):\n");
  std::printf("%-22s %-13s %-26s %-18s %s\n", "family", "dialect", "points", "resize factor", "screenshots kept");
  std::string shown;
  for (const auto& spec : catalogue) {
    if (!spec.dialect || shown.find("|" + spec.dialect->family + "|") != std::string::npos) continue;
    shown += "|" + spec.dialect->family + "|";
    const vision::Dialect& dialect = *spec.dialect;
    std::printf(
        "%-22s %-13s %-26s %-18s %d\n", dialect.family.c_str(), std::string(vision::to_string(dialect.kind)).c_str(),
        points_text(dialect).c_str(),
        (dialect.resize.factor > 0 ? std::to_string(dialect.resize.factor) + " px" : std::string("none (any size)"))
            .c_str(),
        dialect.screenshots);
  }
}

// Where the doctor's blue square is in its frame: an open family's point must land inside it.
constexpr vision::TargetBox kBlueSquare{434, 156, 200, 200};

// A 768x512 frame with a red and a blue square, each labelled as a page's element would be: the objective
// names one by its colour, so only a model that sees the picture and reads the labels answers right. Labelled as
// the model reads labels: Vimium's letters (S, D), or numbered marks (0, 1) with their list (`marks`, the hint
// lines a run would send beside them); for a provider's computer tool, which names points, none.
struct DoctorFrame {
  EncodedImage frame;
  std::string marks;
};
Result<DoctorFrame> doctor_frame(bool numbered, bool unlabelled) {
  Pixels pixels;
  pixels.width = 768;
  pixels.height = 512;
  pixels.data.assign(static_cast<std::size_t>(pixels.width) * pixels.height * 3, 255);
  const auto square = [&pixels](int left, std::array<std::uint8_t, 3> colour) {
    for (int y = 156; y < 356; ++y) {
      for (int x = left; x < left + 200; ++x) {
        const auto at = (static_cast<std::size_t>(y) * pixels.width + x) * 3;
        for (std::size_t c = 0; c < 3; ++c) pixels.data[at + c] = colour[c];
      }
    }
  };
  square(134, {220, 30, 30});
  square(static_cast<int>(kBlueSquare.left), {30, 60, 220});
  VIMGPT_TRY(std::string png, encode_png(pixels));
  VIMGPT_TRY(EncodedImage plain, inspect_image(std::move(png)));
  if (unlabelled) return DoctorFrame{std::move(plain), std::string()};
  std::vector<hints::Hint> labelled(2);
  labelled[0].label = numbered ? "0" : "S";
  labelled[0].rect = {134, 156, 200, 200};
  labelled[0].role = "generic";
  labelled[0].text = "red square";
  labelled[1].label = numbered ? "1" : "D";
  labelled[1].rect = {434, 156, 200, 200};
  labelled[1].role = "generic";
  labelled[1].text = "blue square";
  const hints::HintMap map(1, std::move(labelled), pixels.width, pixels.height);
  VIMGPT_TRY(EncodedImage frame, hints::draw_labels(plain, map));
  return DoctorFrame{std::move(frame), numbered ? map.to_text() : std::string()};
}

}  // namespace

int models_command(const std::string& model, bool json) {
  const auto& catalogue = vision::model_catalogue();
  if (!model.empty()) {
    const vision::ModelSpec* spec = vision::find_model(model);
    if (spec == nullptr) {
      std::cerr << "vimgpt: " << model << " is not in the catalogue (read " << vision::catalogue_read_on()
                << "): it would get safe defaults and no price (--price-in, --price-out)\n";
      return 1;
    }
    std::cout << to_json(*spec).dump(2) << "\n";
    return 0;
  }
  if (json) {
    nlohmann::json all = {{"read_on", vision::catalogue_read_on()}, {"models", nlohmann::json::array()}};
    for (const auto& spec : catalogue) all["models"].push_back(to_json(spec));
    std::cout << all.dump(2) << "\n";
    return 0;
  }
  std::printf("vimgpt's model catalogue, read on %s (src/vision/models.json; vimgpt models NAME for its sources)\n",
              std::string(vision::catalogue_read_on()).c_str());
  // The names column as wide as the longest name (Hugging Face's org/model names run long).
  int name_width = 22;
  for (const auto& spec : catalogue) name_width = std::max(name_width, static_cast<int>(spec.id.size()));
  std::printf("%-*s %-10s %-44s %-21s %-14s %s\n", name_width, "model", "provider", "status", "reasoning sent",
              "structured", "USD/M tokens: in / cached / cache write / out");
  for (const auto& spec : catalogue) {
    const bool usable = spec.status != vision::ModelStatus::Retired;
    std::printf("%-*s %-10s %-44s %-21s %-14s %s\n", name_width, spec.id.c_str(),
                std::string(vision::to_string(spec.provider)).c_str(), status_text(spec).c_str(),
                effort_text(spec).c_str(), usable ? std::string(vision::to_string(spec.structured)).c_str() : "-",
                price_text(spec.price).c_str());
  }
  print_open_families(catalogue);
  std::printf("default: %s (%s with only ANTHROPIC_API_KEY set, %s with only GEMINI_API_KEY)\n",
              std::string(vision::kDefaultModel).c_str(), std::string(vision::kDefaultAnthropicModel).c_str(),
              std::string(vision::kDefaultGeminiModel).c_str());
  return 0;
}

int doctor_command(const Options& options) {
  const Config config = Config::load();
  auto client = client_options(options, config);
  if (!client) {
    std::cerr << "vimgpt doctor: " << client.error().message << "\n";
    return kExitUsage;
  }
  const vision::Dialect* dialect = dialect_of(options);
  const bool numbered = dialect != nullptr && dialect->reads_marks();
  auto frame = doctor_frame(numbered, client->mode == vision::InteractionMode::ComputerUse);
  if (!frame) {
    std::cerr << "vimgpt doctor: " << frame.error().message << "\n";
    return 1;
  }
  std::cout << "model " << client->model << " ("
            << vision::to_string(vision::resolve_provider(client->provider, client->model, client->base_url)) << ") at "
            << (client->base_url.empty() ? "the provider's API" : client->base_url) << "\n";
  // A family that reads marks gets their list too, as it would in a run.
  const auto checkup = vision::check_model(*client, frame->frame, "Click the blue square.",
                                           {{"click", numbered ? "1" : "D"}}, kBlueSquare, frame->marks);
  for (const auto& notice : checkup.notices) std::cout << "  note: " << notice << "\n";
  for (const auto& stage : checkup.stages) {
    const char* mark = stage.state == vision::CheckStage::State::Passed   ? "ok  "
                       : stage.state == vision::CheckStage::State::Failed ? "FAIL"
                                                                          : "--  ";
    std::cout << "  " << mark << " " << stage.name << (stage.detail.empty() ? "" : ": " + stage.detail) << "\n";
  }
  if (checkup.decision) {
    const vision::Usage& usage = checkup.decision->usage;
    char cost[32] = "";
    if (usage.cost_known) std::snprintf(cost, sizeof cost, ", $%.5f", usage.cost_usd);
    std::cout << "  took " << checkup.took.count() << " ms, " << usage.prompt_tokens << " prompt + "
              << usage.completion_tokens << " completion tokens (" << usage.reasoning_tokens << " reasoning)" << cost
              << (usage.cost_known ? "" : " (no price known: --price-in, --price-out)") << "\n";
  }
  std::cout << (checkup.passed() ? "the model is ready for vimgpt\n" : "the model is not ready: see FAIL above\n");
  return checkup.passed() ? 0 : 1;
}

}  // namespace vimgpt::cli
