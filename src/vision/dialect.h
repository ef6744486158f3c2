// Private to src/vision: the open families' dialects spoken both ways. Out: the conversation their authors'
// harness sends (system prompt and tool, the recent screenshots, the model's own earlier replies). In: their
// replies read into vimgpt's action objects, every point converted once, here, into pixels of the frame.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "vision/provider.h"

namespace vimgpt::vision::detail {

// What a dialect's points mean, for one step: the image as sent (what the server then resizes) and the frame
// the agent acts on (the step's last image as the planner gave it).
struct PointFrame {
  Size sent;
  Size frame;
};

// A point of the dialect's space in pixels of the frame. Exact: no rounding, the actor rounds once.
struct FramePoint {
  double x = 0;
  double y = 0;
};
FramePoint to_frame(const Dialect& dialect, const PointFrame& frames, double x, double y);
// [x, y], as vimgpt's actions write a point.
Json to_json(const FramePoint& point);
// A point argument (`key`: [x, y], or the string "[x, y]" some servers send) in frame pixels; nullopt when it is
// missing or not two numbers.
std::optional<FramePoint> point_arg(const Json& args, const char* key, const Dialect& dialect,
                                    const PointFrame& frames);
// {"unsupported": why}: an action vimgpt cannot do, a step error the model reads next.
Json unsupported(std::string why);
// A scroll up or down, with the pointer first moved to the point the model gave (the part of the page that scrolls).
Json scroll_at(const std::optional<FramePoint>& at, const std::string& direction);
// The inverse, for the fake model and the benchmark: where a frame point is in the dialect's space.
FramePoint from_frame(const Dialect& dialect, const PointFrame& frames, double x, double y);
// The size a dialect's prompt states as the screen's: the image after the server's resize.
Size model_screen(const Dialect& dialect, Size sent);

// The conversation for this step: the system prompt (tool filled in), then for each step taken the user's turn
// (its screenshot while it is among the dialect's recent ones, else its text only) and the model's reply, then
// this step's turn with its screenshot. `images` are the step's images as sent, oldest first, the current last.
std::vector<Turn> dialect_turns(const Dialect& dialect, const StepRequest& step, const std::vector<Size>& images);

// Which steps taken keep their screenshot in the conversation: the model's steps from `first_step` on (counted
// among the model's steps only), their images numbered from `first_image` (the step's images are the last model
// steps' frames, oldest first, then the current one).
struct KeptScreenshots {
  std::size_t first_step = 0;
  int first_image = 0;
};
KeptScreenshots kept_screenshots(const StepRequest& step);
// A step that was not the model's (a pause, a recovery, the start page failing): what it says added to `since`, the
// words the model's next turn is told.
void add_outside_note(std::string& since, const HistoryEntry& entry);

// The open family the client speaks: --dialect's (a family or a dialect by name; "vimgpt" none), else the
// catalogue's for the model; nullopt: vimgpt's own labelled JSON. InvalidArgument for a name vimgpt does not know,
// or --dialect on Anthropic's API.
Result<std::optional<Dialect>> open_family_dialect(const ClientOptions& options, Provider provider,
                                                   const ModelSpec* spec);

// The fields the family's requests carry beside the standard ones (Dialect::request_fields; for Holo also its
// reply's schema as structured_outputs).
Json dialect_request_fields(const Dialect& dialect);

// A reply in the dialect read as one action object in vimgpt's vocabulary (points in frame pixels), with the
// model's thoughts. An action vimgpt cannot do becomes {"unsupported": why}, a step error the model reads next
// turn; a reply in no form the dialect knows is a Parse error (the client then asks once for the form again).
struct DialectReply {
  Json action;
  std::string thoughts;
};
Result<DialectReply> read_dialect_reply(const Dialect& dialect, std::string_view text, std::string_view reasoning,
                                        const PointFrame& frames);
// The words a repair call sends when a reply was in no known form.
std::string dialect_repair_prompt(const Dialect& dialect, std::string_view reply);

void replace_all(std::string& text, std::string_view from, std::string_view to);

// GLM-V's web mode (dialect_glm.cpp): one user turn, the marked screenshot (`image`, an index into the step's
// images) and the authors' prompt holding the task, the steps taken, the model's memory and the marked elements.
std::vector<Turn> glm_turns(const Dialect& dialect, const StepRequest& step, int image);

// Holo's harness (dialect_holo.cpp): the system prompt with the reply's schema, <observation> turns (the last
// three with their screenshots), the model's parsed replies and each action's <tool_output>.
std::vector<Turn> holo_turns(const Dialect& dialect, const StepRequest& step, const std::vector<Size>& images);
Json holo_request_fields(const Dialect& dialect);

// Ai2's MolmoWeb (dialect_molmoweb.cpp): one user turn a step, the screenshot then the authors' template holding the
// task, the last steps taken (each one's thought and action) and the page.
std::vector<Turn> molmoweb_turns(const Dialect& dialect, const StepRequest& step, const std::vector<Size>& images);
// As Python's repr() prints what json.loads gave: the form the authors' template writes each past action in.
std::string python_repr(const nlohmann::ordered_json& value);

// The providers' computer tools (dialect_computer_tools.cpp, --mode computer-use): the conversation of calls and
// their results (a user turn's tool_results the ids it answers), each reply read, and the safety checks an OpenAI
// call asks a person to acknowledge.
// --mode computer-use: the tool the catalogue says the model takes (an error saying what to do where there is none),
// the dialect its replies are read in, and the tool put into a step's request (the display the screenshot's size).
Result<ComputerTool> computer_tool_of(const ClientOptions& options, Provider provider, const ModelSpec* spec);
Dialect computer_tool_dialect(Provider provider);
void add_computer_tool(ChatRequest& request, const ComputerTool& tool, Size display);
std::vector<Turn> computer_tool_turns(const StepRequest& step, const std::vector<Size>& images, DialectKind kind);
Result<Json> read_anthropic_computer(std::string_view text, const Dialect& dialect, const PointFrame& frames,
                                     std::string& thoughts);
Result<Json> read_openai_computer(std::string_view text, const Dialect& dialect, const PointFrame& frames,
                                  std::string& thoughts);
Result<Json> read_gemini_computer(std::string_view text, const Dialect& dialect, const PointFrame& frames,
                                  std::string& thoughts);
std::vector<std::string> pending_safety_checks(std::string_view reply);
// A key as a computer tool names it ("Return", "Page_Down", "CTRL", "ARROWDOWN") as vimgpt does ("Enter")
// (computer_keys.cpp); a combination as Anthropic's tools write it ("ctrl+a") and as OpenAI's keypress and Gemini's
// hotkey list it (["CTRL", "A"]), as vimgpt's "Control+a"; empty for none.
std::string key_name(std::string_view key);
std::string key_combo(std::string_view keys);
std::string joined_keys(const Json& keys);

// Per dialect (dialect_computer_use.cpp, dialect_ui_tars.cpp, dialect_glm.cpp, dialect_holo.cpp): the action part
// of a reply, thoughts removed.
Result<Json> read_computer_use(std::string_view text, const Dialect& dialect, const PointFrame& frames,
                               std::string& thoughts);
Result<Json> read_ui_tars(std::string_view text, const Dialect& dialect, const PointFrame& frames,
                          std::string& thoughts);
// A reply whose <tool_call> holds the JSON form (a server's parser took the call out into tool_calls, and the
// client wrote it back as text) with each call rewritten in Qwen3.5's XML form; any other reply as it is.
std::string with_xml_calls(std::string_view reply);
Result<Json> read_glm_marks(std::string_view text, std::string& thoughts);
Result<Json> read_holo(std::string_view text, const Dialect& dialect, const PointFrame& frames, std::string& thoughts);
Result<Json> read_molmoweb(std::string_view text, const Dialect& dialect, const PointFrame& frames,
                           std::string& thoughts);

}  // namespace vimgpt::vision::detail
