// The open families' dialects: their image sizes, point spaces and conversations (what every dialect shares);
// each dialect's reply forms are in a file of its own.
#include "vision/dialect.h"

#include <cmath>

#include "common/text.h"

namespace vimgpt::vision {

std::string_view to_string(DialectKind kind) {
  switch (kind) {
    case DialectKind::Vimgpt: return "vimgpt";
    case DialectKind::ComputerUse: return "computer_use";
    case DialectKind::UiTars: return "ui_tars";
    case DialectKind::GlmMarks: return "glm_marks";
    case DialectKind::HoloJson: return "holo_json";
    case DialectKind::MolmoWeb: return "molmoweb_json";
    case DialectKind::AnthropicComputer: return "anthropic_computer";
    case DialectKind::OpenAIComputer: return "openai_computer";
    case DialectKind::GeminiComputer: return "gemini_computer";
  }
  return "vimgpt";
}

std::string_view to_string(PointSpace space) {
  switch (space) {
    case PointSpace::ResizedPixels: return "pixels after smart_resize";
    case PointSpace::Thousandths: return "0-1000 of the image";
    case PointSpace::Percent: return "0-100 (percent) of the image";
  }
  return "pixels";
}

Result<DialectKind> parse_dialect(std::string_view name) {
  for (const DialectKind kind : {DialectKind::Vimgpt, DialectKind::ComputerUse, DialectKind::UiTars,
                                 DialectKind::GlmMarks, DialectKind::HoloJson, DialectKind::MolmoWeb}) {
    if (to_string(kind) == name) return kind;
  }
  return fail(ErrorKind::InvalidArgument, "unknown dialect \"" + std::string(name) +
                                              "\": vimgpt, computer_use, ui_tars, glm_marks, holo_json, molmoweb_json");
}

std::string_view to_string(InteractionMode mode) {
  return mode == InteractionMode::ComputerUse ? "computer-use" : "labels";
}

Result<InteractionMode> parse_interaction_mode(std::string_view name) {
  if (name == "labels") return InteractionMode::Labels;
  if (name == "computer-use") return InteractionMode::ComputerUse;
  return fail(ErrorKind::InvalidArgument,
              "--mode takes labels, computer-use or auto (the mode `vimgpt models NAME` says the model is best in), "
              "not '" +
                  std::string(name) + "'");
}

namespace {

// Python's round(), which smart_resize uses: halves go to the even neighbour (nearbyint in the default mode).
double round_half_even(double value) {
  return std::nearbyint(value);
}

}  // namespace

Size smart_resize(Size image, const ResizeRule& rule) {
  if (rule.factor <= 0 || image.width <= 0 || image.height <= 0) return image;
  const double factor = rule.factor;
  const double width = image.width;
  const double height = image.height;
  double w_bar = std::max(factor, round_half_even(width / factor) * factor);
  double h_bar = std::max(factor, round_half_even(height / factor) * factor);
  if (rule.max_pixels > 0 && w_bar * h_bar > static_cast<double>(rule.max_pixels)) {
    const double beta = std::sqrt(width * height / static_cast<double>(rule.max_pixels));
    w_bar = std::floor(width / beta / factor) * factor;
    h_bar = std::floor(height / beta / factor) * factor;
  } else if (rule.min_pixels > 0 && w_bar * h_bar < static_cast<double>(rule.min_pixels)) {
    const double beta = std::sqrt(static_cast<double>(rule.min_pixels) / (width * height));
    w_bar = std::ceil(width * beta / factor) * factor;
    h_bar = std::ceil(height * beta / factor) * factor;
  }
  return {static_cast<int>(w_bar), static_cast<int>(h_bar)};
}

int unchanged_width(Size captured, int wanted, const ResizeRule& rule) {
  if (rule.factor <= 0 || captured.width <= 0 || captured.height <= 0 || wanted <= 0) return wanted;
  for (int width = wanted; width >= wanted / 2; --width) {
    // The height the image scaler gives this width (common/pixels.cpp: lround of the ratio).
    const int height =
        std::max(1, static_cast<int>(std::lround(captured.height * (static_cast<double>(width) / captured.width))));
    if (smart_resize({width, height}, rule) == Size{width, height}) return width;
  }
  return wanted;
}

namespace detail {

Size model_screen(const Dialect& dialect, Size sent) {
  return smart_resize(sent, dialect.resize);
}

namespace {
// The whole of the image in a relative space: 1000 for thousandths, 100 for percent; 0 for pixels.
double relative_scale(PointSpace space) {
  return space == PointSpace::Thousandths ? 1000.0 : space == PointSpace::Percent ? 100.0 : 0.0;
}
}  // namespace

FramePoint to_frame(const Dialect& dialect, const PointFrame& frames, double x, double y) {
  if (const double whole = relative_scale(dialect.points); whole > 0) {
    return {x * frames.frame.width / whole, y * frames.frame.height / whole};
  }
  // Pixels of the image the model saw, which is the sent image after its server's resize.
  const Size seen = model_screen(dialect, frames.sent);
  return {x * frames.frame.width / seen.width, y * frames.frame.height / seen.height};
}

FramePoint from_frame(const Dialect& dialect, const PointFrame& frames, double x, double y) {
  if (const double whole = relative_scale(dialect.points); whole > 0) {
    return {x * whole / frames.frame.width, y * whole / frames.frame.height};
  }
  const Size seen = model_screen(dialect, frames.sent);
  return {x * seen.width / frames.frame.width, y * seen.height / frames.frame.height};
}

void replace_all(std::string& text, std::string_view from, std::string_view to) {
  for (std::size_t at = text.find(from); at != std::string::npos; at = text.find(from, at + to.size())) {
    text.replace(at, from.size(), to);
  }
}

namespace {

// The system prompt as the authors' harness fills it: the tool as one line of JSON inside <tools>, the screen
// as the model will see it (or as its authors name it).
std::string system_prompt(const Dialect& dialect, Size screen) {
  std::string prompt = dialect.system_prompt;
  if (!dialect.tool_text.empty()) replace_all(prompt, "{tools}", dialect.tool_text);
  replace_all(prompt, "{width}", std::to_string(screen.width));
  replace_all(prompt, "{height}", std::to_string(screen.height));
  return prompt;
}

// What happened since the model's last turn, then the family's own words for a new screenshot.
std::string later_turn(const Dialect& dialect, const std::string& url, const std::string& since) {
  std::string text;
  if (!url.empty()) text += "Current URL: " + url + "\n";
  if (!since.empty()) text += since + "\n";
  return text + dialect.next_turn;
}

std::string outcome_of(const HistoryEntry& entry) {
  if (!entry.error.empty()) return "The last action failed: " + entry.error;
  if (!entry.result.empty()) return "The last action: " + entry.result;
  return {};
}

// The line a folded step is remembered by: the reply's words before its call (GUI-Owl's "Action: ..." line).
std::string folded_line(const std::string& reply) {
  std::string_view said = trim(std::string_view(reply).substr(0, reply.find("<tool_call>")));
  if (said.starts_with("Action:")) said = trim(said.substr(7));
  return std::string(said.substr(0, said.find('\n')));
}

}  // namespace

KeptScreenshots kept_screenshots(const StepRequest& step) {
  std::size_t model_steps = 0;
  for (const auto& entry : step.history) model_steps += entry.reply.empty() ? 0 : 1;
  const auto earlier = static_cast<std::size_t>(std::max(0, step.earlier_frames));
  return {model_steps - std::min(model_steps, earlier), static_cast<int>(earlier - std::min(model_steps, earlier))};
}

void add_outside_note(std::string& since, const HistoryEntry& entry) {
  const std::string& note = entry.error.empty() ? entry.result : entry.error;
  if (!note.empty()) since += (since.empty() ? "" : "\n") + note;
}

std::vector<Turn> dialect_turns(const Dialect& dialect, const StepRequest& step, const std::vector<Size>& images) {
  if (dialect.reads_marks()) return glm_turns(dialect, step, images.empty() ? -1 : static_cast<int>(images.size()) - 1);
  if (dialect.kind == DialectKind::HoloJson) return holo_turns(dialect, step, images);
  if (dialect.kind == DialectKind::MolmoWeb) return molmoweb_turns(dialect, step, images);
  if (dialect.kind == DialectKind::AnthropicComputer || dialect.kind == DialectKind::OpenAIComputer ||
      dialect.kind == DialectKind::GeminiComputer) {
    return computer_tool_turns(step, images, dialect.kind);
  }
  const Size screen = dialect.told_screen ? *dialect.told_screen
                      : images.empty()    ? Size{}
                                          : model_screen(dialect, images.back());
  std::vector<Turn> turns;
  std::string opening = step.objective;
  // A family whose harness opens with its own template (GUI-Owl) folds the steps whose screenshots were dropped
  // into it, one "StepN: ..." line each, instead of keeping them as turns.
  const bool folds = !dialect.first_turn.empty();
  std::string previous;
  const auto fold_into_opening = [&] {
    opening = dialect.first_turn;
    replace_all(opening, "{previous}", previous.empty() ? "No previous action." : previous);
    replace_all(opening, "{instruction}", step.objective);
  };
  if (dialect.kind == DialectKind::UiTars) {
    // UI-TARS's harness sends its prompt, the instruction in it, as the first user turn.
    opening = dialect.system_prompt;
    replace_all(opening, "{instruction}", step.objective);
  } else if (!dialect.system_prompt.empty()) {
    turns.emplace_back("system", system_prompt(dialect, screen), -1, "");
  }
  // Earlier frames are the last model steps' screenshots, oldest first; older steps keep their words only.
  const KeptScreenshots kept = kept_screenshots(step);
  int next_image = kept.first_image;
  std::size_t seen_steps = 0;
  std::string since;
  bool first = true;
  for (const auto& entry : step.history) {
    if (entry.reply.empty()) {
      add_outside_note(since, entry);
      continue;
    }
    const bool with_image = seen_steps++ >= kept.first_step;
    if (folds && !with_image) {
      previous += (previous.empty() ? "Step" : "\nStep") + std::to_string(seen_steps) + ": " + folded_line(entry.reply);
      since.clear();
      continue;
    }
    if (folds && first) fold_into_opening();
    turns.emplace_back("user", first ? opening : later_turn(dialect, entry.url, since), with_image ? next_image++ : -1,
                       "");
    turns.emplace_back("assistant", dialect.xml_calls ? with_xml_calls(entry.reply) : entry.reply, -1, "");
    since = outcome_of(entry);
    first = false;
  }
  const int current = images.empty() ? -1 : static_cast<int>(images.size()) - 1;
  if (folds && first) fold_into_opening();
  turns.emplace_back("user", first ? opening : later_turn(dialect, step.current_url, since), current, "");
  return turns;
}

Result<std::optional<Dialect>> open_family_dialect(const ClientOptions& options, Provider provider,
                                                   const ModelSpec* spec) {
  if (options.dialect.empty()) return spec != nullptr ? spec->dialect : std::nullopt;
  if (options.dialect == "vimgpt") return std::optional<Dialect>();
  const Dialect* named = find_dialect(options.dialect);
  if (named == nullptr) {
    std::string known;
    for (const auto& model : model_catalogue()) {
      if (model.dialect && known.find(model.dialect->family) == std::string::npos) {
        known += (known.empty() ? "" : ", ") + model.dialect->family;
      }
    }
    return fail(ErrorKind::InvalidArgument, "--dialect " + options.dialect +
                                                " is neither a family nor a dialect vimgpt knows: vimgpt, "
                                                "computer_use, ui_tars, glm_marks, holo_json, molmoweb_json, or a "
                                                "family: " +
                                                known);
  }
  if (provider == Provider::Anthropic) {
    return fail(ErrorKind::InvalidArgument, "--dialect is for OpenAI-compatible servers, not Anthropic's API");
  }
  return std::optional<Dialect>(*named);
}

Json dialect_request_fields(const Dialect& dialect) {
  return dialect.kind == DialectKind::HoloJson ? holo_request_fields(dialect) : dialect.request_fields;
}

Result<DialectReply> read_dialect_reply(const Dialect& dialect, std::string_view text, std::string_view reasoning,
                                        const PointFrame& frames) {
  DialectReply reply;
  std::string thoughts(trim(reasoning));
  std::string body(text);
  // <think>…</think> before the answer; a chat template may open the tag in the prompt, so only the close shows.
  if (const auto close = body.find("</think>"); close != std::string::npos) {
    const auto open = body.find("<think>");
    const std::size_t from = open != std::string::npos && open < close ? open + 7 : 0;
    const std::string thought(trim(std::string_view(body).substr(from, close - from)));
    if (!thought.empty()) thoughts += (thoughts.empty() ? "" : "\n") + thought;
    body.erase(0, close + 8);
  }
  std::string before;
  Result<Json> action =
      dialect.kind == DialectKind::UiTars              ? read_ui_tars(body, dialect, frames, before)
      : dialect.kind == DialectKind::GlmMarks          ? read_glm_marks(body, before)
      : dialect.kind == DialectKind::HoloJson          ? read_holo(body, dialect, frames, before)
      : dialect.kind == DialectKind::MolmoWeb          ? read_molmoweb(body, dialect, frames, before)
      : dialect.kind == DialectKind::AnthropicComputer ? read_anthropic_computer(body, dialect, frames, before)
      : dialect.kind == DialectKind::OpenAIComputer    ? read_openai_computer(body, dialect, frames, before)
      : dialect.kind == DialectKind::GeminiComputer    ? read_gemini_computer(body, dialect, frames, before)
                                                       : read_computer_use(body, dialect, frames, before);
  if (!action) return action.failure();
  if (!before.empty()) thoughts += (thoughts.empty() ? "" : "\n") + before;
  reply.action = std::move(*action);
  reply.thoughts = std::move(thoughts);
  // A family that ends with its thoughts as the answer (Fara's terminate) gets them here.
  if (reply.action.contains("done") && reply.action["done"].is_null()) {
    reply.action["done"] = reply.thoughts.empty() ? Json("done") : Json(reply.thoughts);
  }
  return reply;
}

std::string dialect_repair_prompt(const Dialect& dialect, std::string_view reply) {
  const std::string form =
      dialect.kind == DialectKind::HoloJson
          ? "one JSON object, {\"note\": null, \"thought\": \"...\", \"tool_call\": {\"tool_name\": \"click\", "
            "\"element\": \"...\", \"x\": 500, \"y\": 300}}, with one of the tools of <output_format>"
      : dialect.kind == DialectKind::MolmoWeb
          ? "one JSON object, {\"thought\": \"...\", \"action\": {\"name\": \"click\", \"x\": 50.0, \"y\": 30.0}}, its "
            "points in percent of the screenshot"
      : dialect.kind == DialectKind::GlmMarks
          ? "\"Thought: ...\\nAction: ...\\nMemory_Updated: {...}\" with one action of the action space, e.g. Action: "
            "Click [3]"
      : dialect.kind == DialectKind::UiTars
          ? "\"Thought: ...\\nAction: ...\" with one action of the action space, e.g. Action: click(point='<point>100 "
            "200</point>')"
      : dialect.xml_calls
          ? "your thoughts, then one call in <tool_call></tool_call> tags: <tool_call>\n<function=computer_use>\n"
            "<parameter=action>\nleft_click\n</parameter>\n<parameter=coordinate>\n[100, 200]\n</parameter>\n"
            "</function>\n</tool_call>"
          : "your thoughts, then one call in <tool_call></tool_call> tags: <tool_call>\n{\"name\": \"computer_use\", "
            "\"arguments\": {\"action\": \"left_click\", \"coordinate\": [100, 200]}}\n</tool_call>";
  return "Your last reply could not be read. Write it again in the required form: " + form + ".\n\nYour reply was:\n" +
         std::string(reply);
}

Json to_json(const FramePoint& point) {
  return Json::array({point.x, point.y});
}

std::optional<FramePoint> point_arg(const Json& args, const char* key, const Dialect& dialect,
                                    const PointFrame& frames) {
  Json value = args.value(key, Json());
  if (value.is_string()) value = Json::parse(value.get<std::string>(), nullptr, false);
  if (!value.is_array() || value.size() < 2 || !value[0].is_number() || !value[1].is_number()) return std::nullopt;
  return to_frame(dialect, frames, value[0].get<double>(), value[1].get<double>());
}

Json unsupported(std::string why) {
  return {{"unsupported", std::move(why)}};
}

Json scroll_at(const std::optional<FramePoint>& at, const std::string& direction) {
  Json scroll = {{"scroll", direction}};
  if (at) scroll["in"] = to_json(*at);
  return scroll;
}

}  // namespace detail
}  // namespace vimgpt::vision
