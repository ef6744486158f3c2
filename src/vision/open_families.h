// vision's open families: how each speaks (its dialect, its point space, the image size its server feeds the model,
// its conversation), as the catalogue (models.json) describes it. Included by vision.h.
#pragma once

#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"

namespace vimgpt::vision {

using Json = nlohmann::json;

// How a family speaks: the dialect of its replies, the space its points are in, the image size its server
// feeds the model, how many recent screenshots its authors' harness keeps, where its thoughts come, and the
// system prompt and tool its authors send. From the catalogue's "dialects" and each family (models.json).
enum class DialectKind {
  Vimgpt,       // vimgpt's labelled JSON action (the default)
  ComputerUse,  // a `computer_use` function call in <tool_call> tags (Qwen2.5-VL, Qwen3-VL, Fara)
  UiTars,       // "Thought: ... Action: click(point='<point>x y</point>')" (UI-TARS-1.5)
  GlmMarks,     // "Thought: ... Action: Click [N] Memory_Updated: {...}" on numbered marks (GLM-V's web mode)
  HoloJson,     // {"note", "thought", "tool_call": {"tool_name", ...}} under a schema (H Company's Holo3)
  MolmoWeb,     // {"thought", "action": {"name", ...}} after the authors' one-turn template (Ai2's MolmoWeb)
  // Anthropic's own `computer` tool (--mode computer-use): tool_use blocks answered by tool_result blocks that carry
  // the next screenshot. Never a catalogue family's: a provider's model in that mode.
  AnthropicComputer,
  // OpenAI's `computer` tool on the Responses API (--mode computer-use): computer_call items answered by
  // computer_call_output items that carry the next screenshot.
  OpenAIComputer,
  // Gemini's `computer_use` tool on Google's native API (--mode computer-use): functionCall parts answered by
  // functionResponse parts that carry the next screenshot; points on a 0-999 grid.
  GeminiComputer,
};
// Where a dialect's points are: pixels of the image the model saw after its server's smart_resize, thousandths of
// the image's width and height (0-1000), or percent of them (0-100).
enum class PointSpace { ResizedPixels, Thousandths, Percent };
// Where thinking comes: the server's reasoning_content field, <think> tags, or free text before the action.
enum class ThoughtsAt { None, ReasoningField, ThinkTag, TextBefore };
std::string_view to_string(DialectKind kind);
std::string_view to_string(PointSpace space);
// "vimgpt" | "computer_use" | "ui_tars" | "glm_marks" | "holo_json" | "molmoweb_json"
Result<DialectKind> parse_dialect(std::string_view name);

// Qwen2-VL's smart_resize, which the Qwen-based families' servers apply to every image: both sides rounded to a
// multiple of `factor` (patch size x merge size), the area brought within [min_pixels, max_pixels] keeping the
// aspect ratio. A zero factor is no resizing.
struct ResizeRule {
  int factor = 0;
  std::int64_t min_pixels = 0;
  std::int64_t max_pixels = 0;
};
struct Size {
  int width = 0;
  int height = 0;
  bool operator==(const Size&) const = default;
};
Size smart_resize(Size image, const ResizeRule& rule);
// The widest width up to `wanted` at which a frame of `captured`'s aspect ratio (height rounded as the image
// scaler rounds it) passes through smart_resize unchanged, so the model's pixels are the frame's; `wanted`
// itself when no width down to half of it does (points are still converted exactly, through the resize).
int unchanged_width(Size captured, int wanted, const ResizeRule& rule);

struct Dialect {
  DialectKind kind = DialectKind::Vimgpt;
  std::string family;  // the catalogue's family it came from; empty for --dialect on an unknown model
  PointSpace points = PointSpace::ResizedPixels;
  ResizeRule resize;
  int screenshots = 1;  // recent screenshots the authors' harness keeps in the conversation
  int past_steps = 0;   // for a harness that writes the steps taken into its template: the last ones kept (0: all)
  ThoughtsAt thoughts = ThoughtsAt::None;
  std::string system_prompt;  // the authors' system prompt; {tools} and {width}x{height} filled in
  // The function the model calls (computer_use), as the authors describe it; for Holo, the schema of its reply.
  Json tool;
  std::string tool_text;  // the tool as the template writes it into <tools>, in its authors' key order
  std::string next_turn;  // the text sent with each later screenshot
  // The first user turn as the authors' harness writes it, {instruction} and {previous} (the steps whose
  // screenshots were dropped, one line each) filled in; empty: the objective alone, earlier steps kept as turns.
  // MolmoWeb's is its only turn, and also names the page ({page_index}, {page_title}, {page_url}).
  std::string first_turn;
  std::optional<double> temperature;  // what the authors' harness sends
  int reply_tokens = 0;               // the cap the family needs for its thoughts and action (0: --max-tokens)
  Json request_fields;                // sent in every request as the authors' harness sends them; null: none
  std::vector<std::string> serving;   // what each serving engine needs, one line each
  // The screen the tool's description names ("The screen's resolution is WxH."): the image the model sees, or, for
  // a family trained on 0-1000 points, the size its authors write there (Qwen3-VL's cookbook: 999x999).
  std::optional<Size> told_screen;
  // Calls written as Qwen3.5's chat template asks, <function=NAME><parameter=KEY>value</parameter></function>
  // inside <tool_call>, rather than a JSON object: the model's own turns are sent back in that form too.
  bool xml_calls = false;

  // The family reads numbered marks (0, 1, 2, ...) drawn on the frame and a list of the marked elements, and
  // answers with a mark's number rather than a point.
  [[nodiscard]] bool reads_marks() const { return kind == DialectKind::GlmMarks; }
};

}  // namespace vimgpt::vision
