// The model catalogue: src/vision/models.json (embedded at build time) read once into ModelSpecs, a family's keys
// under each of its models' own. Names match exactly, by alias, or as a dated snapshot: never by prefix.
#include <algorithm>
#include <array>
#include <cctype>
#include <cmath>
#include <stdexcept>

#include "vision/provider.h"
#include "vision/vision.h"

namespace vimgpt::vision {
namespace {

struct Catalogue {
  std::vector<ModelSpec> models;
  std::string read_on;
  ImageLimits openai_images;
  ImageLimits anthropic_images;
  ImageLimits gemini_images;
};

ImageLimits limits_of(const Json& provider) {
  ImageLimits limits;
  limits.max_base64_bytes = provider.value("image_max_base64_bytes", std::size_t{0});
  limits.max_edge = provider.value("image_max_edge", 0);
  limits.max_edge_many = provider.value("image_max_edge_many", 0);
  limits.many_images = provider.value("many_images", 0);
  return limits;
}

template <typename Enum, std::size_t N>
Enum enum_of(const Json& value, const std::array<std::pair<std::string_view, Enum>, N>& names, std::string_view key) {
  const std::string text = value.get<std::string>();
  for (const auto& [name, item] : names) {
    if (name == text) return item;
  }
  // The catalogue is ours and built in: a misspelt value is a bug to catch in the unit tests, not a user error.
  throw std::invalid_argument("models.json: unknown " + std::string(key) + " \"" + text + "\"");
}

ImageTokenRule image_rule_of(const Json& json) {
  ImageTokenRule rule;
  rule.kind = enum_of(json.at("rule"),
                      std::array<std::pair<std::string_view, ImageTokenRule::Kind>, 5>{
                          {{"tiles", ImageTokenRule::Kind::Tiles},
                           {"patches", ImageTokenRule::Kind::Patches},
                           {"claude_area", ImageTokenRule::Kind::ClaudeArea},
                           {"claude_patches", ImageTokenRule::Kind::ClaudePatches},
                           {"per_image", ImageTokenRule::Kind::PerImage}}},
                      "image rule");
  rule.base = json.value("base", rule.base);
  rule.tile = json.value("tile", rule.tile);
  rule.patch = json.value("patch", rule.patch);
  rule.multiplier = json.value("multiplier", rule.multiplier);
  rule.budget = json.value("budget", rule.budget);
  rule.long_edge = json.value("long_edge", rule.long_edge);
  rule.per = json.value("per", rule.per);
  rule.max_tokens = json.value("max_tokens", rule.max_tokens);
  rule.estimated = json.value("estimated", false);
  return rule;
}

// As Python's json.dumps writes a value (", " and ": " between items, non-ASCII escaped), in the order given: how
// the chat templates write a tool into <tools>.
std::string python_dumps(const nlohmann::ordered_json& value) {
  if (!value.is_structured()) return value.dump(-1, ' ', true);
  std::string text = value.is_object() ? "{" : "[";
  for (auto item = value.begin(); item != value.end(); ++item) {
    if (item != value.begin()) text += ", ";
    if (value.is_object()) text += nlohmann::ordered_json(item.key()).dump(-1, ' ', true) + ": ";
    text += python_dumps(*item);
  }
  return text + (value.is_object() ? "}" : "]");
}

// A tool of "dialect_tools" as the template writes it: {"type": "function", "function": TOOL}, its keys in the
// order models.json gives them (the parsed catalogue sorts them). Each rendered once, for every model that sends it.
const std::string& tool_text(const std::string& name) {
  static const std::map<std::string, std::string> kTexts = [] {
    std::map<std::string, std::string> texts;
    const auto tools = nlohmann::ordered_json::parse(detail::models_json()).at("dialect_tools");
    for (const auto& [tool, definition] : tools.items()) {
      texts[tool] = python_dumps(nlohmann::ordered_json{{"type", "function"}, {"function", definition}});
    }
    return texts;
  }();
  return kTexts.at(name);
}

// An open family's way of speaking: its dialect, point space, resize rule, conversation and the authors' prompt
// and tool (named in "dialect_prompts" and "dialect_tools").
Dialect dialect_of(const Json& json, const std::string& family, const Json& catalogue) {
  Dialect dialect;
  dialect.family = family;
  dialect.kind =
      enum_of(json.at("kind"),
              std::array<std::pair<std::string_view, DialectKind>, 6>{{{"vimgpt", DialectKind::Vimgpt},
                                                                       {"computer_use", DialectKind::ComputerUse},
                                                                       {"ui_tars", DialectKind::UiTars},
                                                                       {"glm_marks", DialectKind::GlmMarks},
                                                                       {"holo_json", DialectKind::HoloJson},
                                                                       {"molmoweb_json", DialectKind::MolmoWeb}}},
              "dialect");
  dialect.points =
      enum_of(json.at("points"),
              std::array<std::pair<std::string_view, PointSpace>, 3>{{{"resized_pixels", PointSpace::ResizedPixels},
                                                                      {"thousandths", PointSpace::Thousandths},
                                                                      {"percent", PointSpace::Percent}}},
              "points");
  if (const auto& resize = json.value("resize", Json()); resize.is_object()) {
    dialect.resize.factor = resize.at("factor").get<int>();
    dialect.resize.min_pixels = resize.at("min_pixels").get<std::int64_t>();
    dialect.resize.max_pixels = resize.at("max_pixels").get<std::int64_t>();
  }
  dialect.screenshots = json.value("screenshots", 1);
  dialect.past_steps = json.value("past_steps", 0);
  dialect.thoughts =
      enum_of(json.value("thoughts", Json("none")),
              std::array<std::pair<std::string_view, ThoughtsAt>, 4>{{{"none", ThoughtsAt::None},
                                                                      {"reasoning_field", ThoughtsAt::ReasoningField},
                                                                      {"think_tag", ThoughtsAt::ThinkTag},
                                                                      {"text_before", ThoughtsAt::TextBefore}}},
              "thoughts");
  if (json.contains("system_prompt")) {
    dialect.system_prompt = catalogue.at("dialect_prompts").at(json["system_prompt"].get<std::string>());
  }
  if (json.contains("tool")) {
    dialect.tool = catalogue.at("dialect_tools").at(json["tool"].get<std::string>());
    dialect.tool_text = tool_text(json["tool"].get<std::string>());
  }
  dialect.next_turn = json.value("next_turn", "");
  dialect.first_turn = json.value("first_turn", "");
  if (json.contains("temperature")) dialect.temperature = json["temperature"].get<double>();
  dialect.reply_tokens = json.value("reply_tokens", 0);
  dialect.request_fields = json.value("request_fields", Json());
  dialect.serving = json.value("serving", std::vector<std::string>{});
  if (const auto& screen = json.value("told_screen", Json()); screen.is_array()) {
    dialect.told_screen = Size{screen.at(0).get<int>(), screen.at(1).get<int>()};
  }
  dialect.xml_calls =
      enum_of(json.value("calls", Json("json")),
              std::array<std::pair<std::string_view, bool>, 2>{{{"json", false}, {"xml", true}}}, "calls");
  return dialect;
}

Provider provider_of(const Json& entry) {
  const std::string name = entry.at("provider").get<std::string>();
  if (name == "anthropic") return Provider::Anthropic;
  if (name == "gemini") return Provider::Gemini;
  // An open family: served by whoever runs it (vLLM, llama.cpp, Ollama), with the compatible rules.
  if (name == "compatible") return Provider::Compatible;
  return Provider::OpenAI;
}

// The texts of the sources `keys` name, added to the model's (each once); a key models.json does not define stops the
// catalogue from loading.
void add_sources(ModelSpec& spec, const std::vector<std::string>& keys, const Json& sources) {
  for (const auto& key : keys) {
    if (!sources.contains(key)) throw std::invalid_argument("models.json: unknown source \"" + key + "\"");
    const std::string text = sources[key].get<std::string>();
    if (std::find(spec.sources.begin(), spec.sources.end(), text) == spec.sources.end()) spec.sources.push_back(text);
  }
}

// Which mode a model with a computer tool is best used in (models.json's "best_modes", named by the model or its
// family), its sources added to the model's. Every such model has one, so `--mode auto` never guesses; a model
// without a tool has labels only, whatever its family says.
BestMode best_mode_of(const Json& entry, const Json& sources, const Json& catalogue, ModelSpec& spec) {
  const std::string name = entry.value("best_mode", "");
  const Json& modes = catalogue.at("best_modes");
  if (name.empty() || !modes.contains(name)) {
    throw std::invalid_argument("models.json: " + spec.id + " has a computer tool but no known best_mode");
  }
  const Json& mode = modes.at(name);
  auto parsed = parse_interaction_mode(mode.at("mode").get<std::string>());
  if (!parsed) throw std::invalid_argument("models.json: best_modes." + name + ": " + parsed.error().message);
  add_sources(spec, mode.at("source").get<std::vector<std::string>>(), sources);
  return BestMode{*parsed, mode.at("why").get<std::string>()};
}

ModelSpec spec_of(const Json& entry, const Json& sources, const Json& catalogue) {
  ModelSpec spec;
  spec.id = entry.at("id").get<std::string>();
  spec.aliases = entry.value("aliases", std::vector<std::string>{});
  spec.provider = provider_of(entry);
  spec.api =
      enum_of(entry.at("api"),
              std::array<std::pair<std::string_view, ModelApi>, 3>{
                  {{"chat", ModelApi::Chat}, {"messages", ModelApi::Messages}, {"responses", ModelApi::Responses}}},
              "api");
  spec.status =
      enum_of(entry.value("status", Json("active")),
              std::array<std::pair<std::string_view, ModelStatus>, 4>{{{"active", ModelStatus::Active},
                                                                       {"legacy", ModelStatus::Legacy},
                                                                       {"deprecated", ModelStatus::Deprecated},
                                                                       {"retired", ModelStatus::Retired}}},
              "status");
  spec.shutdown = entry.value("shutdown", "");
  spec.replacement = entry.value("replacement", "");
  spec.token_limit =
      entry.value("token_limit", spec.provider == Provider::OpenAI ? "max_completion_tokens" : "max_tokens");
  spec.efforts = entry.value("efforts", std::vector<std::string>{});
  spec.effort = entry.value("effort", "");
  spec.reasoning_reserve = entry.value("reasoning_reserve", 0);
  spec.temperature = enum_of(entry.value("temperature", Json("yes")),
                             std::array<std::pair<std::string_view, TemperatureRule>, 3>{
                                 {{"yes", TemperatureRule::Yes},
                                  {"no", TemperatureRule::No},
                                  {"without_reasoning", TemperatureRule::WithoutReasoning}}},
                             "temperature");
  spec.thinking =
      enum_of(entry.value("thinking", Json("off")),
              std::array<std::pair<std::string_view, Thinking>, 4>{{{"off", Thinking::Off},
                                                                    {"always", Thinking::Always},
                                                                    {"disabled", Thinking::OffWhenDisabled},
                                                                    {"between_tools", Thinking::OffBetweenTools}}},
              "thinking");
  spec.structured = enum_of(
      entry.value("structured", Json("none")),
      std::array<std::pair<std::string_view, StructuredMethod>, 3>{{{"none", StructuredMethod::None},
                                                                    {"json_schema", StructuredMethod::JsonSchema},
                                                                    {"output_config", StructuredMethod::OutputConfig}}},
      "structured");
  spec.images = entry.contains("images") ? image_rule_of(entry["images"]) : default_image_rule(spec.provider);
  spec.tokenizer = entry.value("tokenizer", "");
  if (const auto& price = entry.value("price", Json()); price.is_object()) {
    spec.price = Price{price.at("input").get<double>(), price.at("output").get<double>(),
                       price.at("cached").get<double>(), price.at("cache_write").get<double>()};
  }
  add_sources(spec, entry.value("source", std::vector<std::string>{}), sources);
  spec.note = entry.value("note", "");
  if (const auto& dialect = entry.value("dialect", Json()); dialect.is_object()) {
    spec.dialect = dialect_of(dialect, entry.value("family", ""), catalogue);
  }
  if (const auto& tool = entry.value("computer_tool", Json()); tool.is_object()) {
    spec.computer_tool =
        ComputerTool{tool.at("type").get<std::string>(), tool.value("beta", ""), tool.value("zoom", false)};
    spec.best_mode = best_mode_of(entry, sources, catalogue, spec);
  }
  if (!spec.effort.empty() && std::find(spec.efforts.begin(), spec.efforts.end(), spec.effort) == spec.efforts.end()) {
    throw std::invalid_argument("models.json: " + spec.id + " sends effort \"" + spec.effort + "\" it does not accept");
  }
  return spec;
}

const Catalogue& catalogue() {
  static const Catalogue kCatalogue = [] {
    const Json json = Json::parse(detail::models_json());
    Catalogue built;
    built.read_on = json.at("read_on").get<std::string>();
    built.openai_images = limits_of(json.at("providers").at("openai"));
    built.anthropic_images = limits_of(json.at("providers").at("anthropic"));
    built.gemini_images = limits_of(json.at("providers").at("gemini"));
    const Json& families = json.at("families");
    const Json& sources = json.at("sources");
    for (const Json& model : json.at("models")) {
      Json entry = model.contains("family") ? families.at(model["family"].get<std::string>()) : Json::object();
      std::vector<std::string> source = entry.value("source", std::vector<std::string>{});
      for (const auto& [key, value] : model.items()) {
        // A model's dialect keys amend its family's (a thinking model's larger reply) rather than replace them.
        if (key == "dialect" && entry.contains("dialect")) {
          entry["dialect"].update(value);
        } else {
          entry[key] = value;
        }
      }
      // Sources add up: the family's and the model's own.
      for (const auto& own : model.value("source", std::vector<std::string>{})) {
        if (std::find(source.begin(), source.end(), own) == source.end()) source.push_back(own);
      }
      entry["source"] = source;
      built.models.push_back(spec_of(entry, sources, json));
    }
    return built;
  }();
  return kCatalogue;
}

bool all_digits(std::string_view text) {
  return !text.empty() && std::all_of(text.begin(), text.end(), [](char c) { return c >= '0' && c <= '9'; });
}

// "-2024-08-06" (OpenAI) or "-20251001" (Anthropic).
bool is_snapshot_suffix(std::string_view suffix) {
  if (!suffix.starts_with('-')) return false;
  suffix.remove_prefix(1);
  if (suffix.size() == 8) return all_digits(suffix);
  return suffix.size() == 10 && suffix[4] == '-' && suffix[7] == '-' && all_digits(suffix.substr(0, 4)) &&
         all_digits(suffix.substr(5, 2)) && all_digits(suffix.substr(8, 2));
}

bool names(const ModelSpec& spec, std::string_view name) {
  if (spec.id == name) return true;
  return std::find(spec.aliases.begin(), spec.aliases.end(), name) != spec.aliases.end();
}

bool names_ignoring_case(const ModelSpec& spec, std::string_view name) {
  const auto same = [name](std::string_view other) {
    return other.size() == name.size() && std::equal(other.begin(), other.end(), name.begin(), [](char a, char b) {
             return std::tolower(static_cast<unsigned char>(a)) == std::tolower(static_cast<unsigned char>(b));
           });
  };
  if (same(spec.id)) return true;
  return std::any_of(spec.aliases.begin(), spec.aliases.end(), same);
}

// A quantization suffix as GGUF files are named: -Q4_K_M, .Q8_0, -IQ3_XS, -f16, -BF16, -UD-Q4_K_XL.
bool is_quantization(std::string_view part) {
  std::string lower;
  for (const char c : part) lower += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  if (lower == "f16" || lower == "bf16" || lower == "f32" || lower == "ud") return true;
  const std::size_t digit = lower.starts_with("iq") ? 2 : lower.starts_with('q') ? 1 : 0;
  return digit > 0 && lower.size() > digit && std::isdigit(static_cast<unsigned char>(lower[digit])) != 0;
}

// "models/UI-TARS-1.5-7B-Q4_K_M.gguf" -> "UI-TARS-1.5-7B": what llama.cpp's server reports as the model is the
// file it loaded.
std::optional<std::string> gguf_base(std::string_view name) {
  if (name.size() <= 5 || !(name.ends_with(".gguf") || name.ends_with(".GGUF"))) return std::nullopt;
  name.remove_suffix(5);
  if (const auto slash = name.find_last_of("/\\"); slash != std::string_view::npos) name.remove_prefix(slash + 1);
  while (true) {
    const auto cut = name.find_last_of("-.");
    if (cut == std::string_view::npos || !is_quantization(name.substr(cut + 1))) break;
    name = name.substr(0, cut);
  }
  return std::string(name);
}

}  // namespace

const std::vector<ModelSpec>& model_catalogue() {
  return catalogue().models;
}

std::string_view catalogue_read_on() {
  return catalogue().read_on;
}

InteractionMode best_mode(std::string_view model) {
  const ModelSpec* spec = find_model(model);
  return spec != nullptr && spec->best_mode ? spec->best_mode->mode : InteractionMode::Labels;
}

const ModelSpec* find_model(std::string_view name) {
  const auto& models = catalogue().models;
  for (const auto& spec : models) {
    if (names(spec, name)) return &spec;
  }
  // A dated snapshot of a known name: the name is everything before the date.
  for (const std::size_t date : {std::size_t{11}, std::size_t{9}}) {
    if (name.size() <= date || !is_snapshot_suffix(name.substr(name.size() - date))) continue;
    const std::string_view base = name.substr(0, name.size() - date);
    for (const auto& spec : models) {
      if (names(spec, base)) return &spec;
    }
  }
  if (const auto base = gguf_base(name)) {
    for (const auto& spec : models) {
      if (spec.dialect && names_ignoring_case(spec, *base)) return &spec;
    }
  }
  return nullptr;
}

const Dialect* find_dialect(std::string_view name) {
  for (const auto& spec : catalogue().models) {
    if (spec.dialect && spec.dialect->family == name) return &*spec.dialect;
  }
  for (const auto& spec : catalogue().models) {
    if (spec.dialect && to_string(spec.dialect->kind) == name) return &*spec.dialect;
  }
  return nullptr;
}

ImageLimits image_limits(Provider provider) {
  if (provider == Provider::Anthropic) return catalogue().anthropic_images;
  if (provider == Provider::OpenAI) return catalogue().openai_images;
  if (provider == Provider::Gemini) return catalogue().gemini_images;
  return {};
}

std::optional<Price> default_price(std::string_view model) {
  const ModelSpec* spec = find_model(model);
  if (spec == nullptr) return std::nullopt;
  return spec->price;
}

std::string_view to_string(ModelStatus status) {
  switch (status) {
    case ModelStatus::Active: return "active";
    case ModelStatus::Legacy: return "legacy";
    case ModelStatus::Deprecated: return "deprecated";
    case ModelStatus::Retired: return "retired";
  }
  return "active";
}

std::string_view to_string(StructuredMethod method) {
  switch (method) {
    case StructuredMethod::None: return "none";
    case StructuredMethod::JsonSchema: return "json_schema";
    case StructuredMethod::OutputConfig: return "output_config";
  }
  return "none";
}

ImageTokenRule default_image_rule(Provider provider) {
  ImageTokenRule rule;
  if (provider == Provider::Anthropic) {
    rule.kind = ImageTokenRule::Kind::ClaudeArea;
    rule.long_edge = 1568;
  } else if (provider == Provider::Gemini) {
    rule.kind = ImageTokenRule::Kind::PerImage;  // Gemini 3's default media resolution
    rule.base = 1120;
  }
  return rule;
}

int estimate_image_tokens(const ImageTokenRule& rule, int width, int height, Detail detail) {
  if (width <= 0 || height <= 0) return 0;
  double w = width;
  double h = height;
  const auto fit_long_edge = [&w, &h](double edge) {
    if (const double longest = std::max(w, h); edge > 0 && longest > edge) {
      w *= edge / longest;
      h *= edge / longest;
    }
  };
  switch (rule.kind) {
    case ImageTokenRule::Kind::Tiles: {
      // Auto is counted as high, the worst case.
      if (detail == Detail::Low) return rule.base;
      fit_long_edge(2048);
      if (const double shortest = std::min(w, h); shortest > 768) {
        w *= 768 / shortest;
        h *= 768 / shortest;
      }
      const auto tiles = static_cast<int>(std::ceil(w / 512) * std::ceil(h / 512));
      return rule.tile * tiles + rule.base;
    }
    case ImageTokenRule::Kind::Patches: {
      const double size = rule.patch;
      double patches = std::ceil(w / size) * std::ceil(h / size);
      if (rule.budget > 0 && patches > rule.budget) {
        // Shrunk to the budget, then snapped down so whole patches fit both sides (OpenAI's worked rule).
        const double shrink = std::sqrt(size * size * rule.budget / (w * h));
        const double sw = w * shrink / size;
        const double sh = h * shrink / size;
        const double snap = std::min(std::floor(sw) / sw, std::floor(sh) / sh);
        patches = std::ceil(w * shrink * snap / size) * std::ceil(h * shrink * snap / size);
      }
      return static_cast<int>(std::ceil(patches * rule.multiplier));
    }
    case ImageTokenRule::Kind::ClaudeArea:
      fit_long_edge(rule.long_edge);
      return static_cast<int>(std::lround(w * h / rule.per));
    case ImageTokenRule::Kind::ClaudePatches: {
      fit_long_edge(rule.long_edge);
      const int tokens = static_cast<int>(std::ceil(w / rule.patch) * std::ceil(h / rule.patch));
      return rule.max_tokens > 0 ? std::min(tokens, rule.max_tokens) : tokens;
    }
    case ImageTokenRule::Kind::PerImage: return rule.base;
  }
  return 0;
}

}  // namespace vimgpt::vision
