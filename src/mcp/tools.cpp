// The tools: each acting tool is an agent::Action carried out by the agent's own Actor, so a click through MCP
// means what a click in a run means; each says what the action did, and shows the page after it as `look` does
// when it is not the page the client was last shown (--observe-after, or the call's `look` argument).
#include "mcp/tools.h"

#include <sstream>
#include <utility>

#include "common/base64.h"
#include "common/pixels.h"
#include "common/text.h"

namespace vimgpt::mcp {
namespace {

Json schema(Json properties, const std::vector<std::string>& required = {}) {
  Json out = {{"type", "object"}, {"properties", std::move(properties)}, {"additionalProperties", false}};
  if (!required.empty()) out["required"] = required;
  return out;
}

Json tool(std::string_view name, std::string_view title, std::string_view description, Json input, bool read_only,
          bool destructive) {
  return {{"name", name},
          {"title", title},
          {"description", description},
          {"inputSchema", std::move(input)},
          {"annotations",
           {{"title", title}, {"readOnlyHint", read_only}, {"destructiveHint", destructive}, {"openWorldHint", true}}}};
}

const Json kLabel = {{"type", "string"}, {"description", "a yellow label from the last look, e.g. \"AB\""}};
const Json kLabelOrPoint = {
    {"anyOf", Json::array({{{"type", "string"}}, {{"type", "array"}, {"items", {{"type", "number"}}}}})},
    {"description", "a yellow label, or [x, y] in pixels of the last look's image"}};

// The `look` argument every acting tool takes.
const Json kLookArgument = {
    {"type", "boolean"},
    {"description",
     "true: show the page after the action as look does, even unchanged; false: only say what the action did (the "
     "fastest answer). Default: the page only when it changed"}};

Json tools_with_look_argument(Json tools) {
  for (auto& each : tools) {
    const bool acting = !each["annotations"]["readOnlyHint"].get<bool>() && each["name"] != "browse";
    if (acting) each["inputSchema"]["properties"]["look"] = kLookArgument;
  }
  return tools;
}

Json tool_list() {
  return tools_with_look_argument(Json::array({
      tool("open", "Open a page", "Load a URL (https:// is added when missing) and show the page as look does.",
           schema({{"url", {{"type", "string"}}}}, {"url"}), false, false),
      tool("look", "Look at the page",
           "The page as vimgpt sees it: a screenshot on which every clickable element carries a yellow letter label, "
           "and the labels as text (label, role, name, link target where the name does not say it). Labels change "
           "with the page: use the latest. Acting tools show the page when it changed, so a look after one is only "
           "needed when it said the page did not change; then look answers in a line (again: true shows it anyway).",
           schema(
               {{"again", {{"type", "boolean"}, {"description", "show the page even when it is the one last shown"}}}}),
           true, false),
      tool("click", "Click a label", "Click the element a label names, with a real (trusted) mouse click.",
           schema({{"label", kLabel}}, {"label"}), false, true),
      tool("type", "Type text",
           "Type text into the field a label names (or the focused one, or the page), a key press a character as a "
           "person types, then press Enter unless the form still has other empty fields or enter is false. A date "
           "or time field takes 2011-12-15 or 13:45. On a drop-down it chooses the option the text names. The "
           "result says what the keys changed, or that they changed nothing. "
           "<secret:NAME> types a secret the user configured without revealing it.",
           schema({{"text", {{"type", "string"}}},
                   {"label", kLabel},
                   {"enter", {{"type", "boolean"}, {"description", "press Enter after the text (default: as above)"}}}},
                  {"text"}),
           false, true),
      tool("select", "Choose an option", "Choose an option of a drop-down (<select> or ARIA listbox) by its text.",
           schema({{"label", kLabel}, {"option", {{"type", "string"}}}}, {"label", "option"}), false, true),
      tool("scroll", "Scroll",
           "Scroll the page by about one screen; with a label, turn the wheel over that list, panel or frame instead.",
           schema({{"direction", {{"type", "string"}, {"enum", {"down", "up"}}}}, {"label", kLabel}}, {"direction"}),
           false, false),
      tool("back", "Go back", "Go back to the previous page.", schema(Json::object()), false, false),
      tool("key", "Press keys",
           "Press a key or a combination joined with + as a person holds them: Enter, Escape, Tab, ArrowDown, "
           "Control+A, Shift+Tab, Meta+C, ...",
           schema({{"key", {{"type", "string"}}}}, {"key"}), false, true),
      tool("hover", "Point at a label", "Rest the pointer on the element a label names: hover menus open.",
           schema({{"label", kLabel}}, {"label"}), false, false),
      tool("double_click", "Double-click a label", "Double-click the element a label names.",
           schema({{"label", kLabel}}, {"label"}), false, true),
      tool("right_click", "Right-click a label", "Right-click the element a label names (the page's context menu).",
           schema({{"label", kLabel}}, {"label"}), false, true),
      tool("drag", "Drag",
           "Press on one end, move, release on the other, with trusted mouse events: drag and drop, sortable lists, "
           "sliders, drawing. Each end is a label or [x, y] in pixels of the last look's image.",
           schema({{"from", kLabelOrPoint}, {"to", kLabelOrPoint}}, {"from", "to"}), false, true),
      tool("select_text", "Select words",
           "Select words exactly as the page shows them, as a person drags across them (then key Control+C copies).",
           schema({{"text", {{"type", "string"}}}, {"label", kLabel}}, {"text"}), false, false),
      tool("actions", "Several actions",
           "Do up to 5 actions in order, each as vimgpt's model writes one: {\"click\": \"A\", \"type\": \"ada\"}, "
           "{\"select\": \"B\", \"option\": \"Portugal\"}, {\"click\": \"C\"}, ... It stops at the first that fails "
           "or when the page navigates, and says what happened to each (past 5, that they were not done).",
           schema({{"actions", {{"type", "array"}, {"items", {{"type", "object"}}}}}}, {"actions"}), false, true),
      tool(
          "find", "Find labels",
          "Search the labels of the last look (role, name, placeholder, link target) and the text on the screen for "
          "words: the matching labels, best first, and the lines of text that hold the words. On a dense page, "
          "cheaper than reading every label; look's list names at most --max-labels of them.",
          schema({{"query", {{"type", "string"}, {"description", "words, e.g. \"sign in\" or \"price\""}}}}, {"query"}),
          true, false),
      tool("tabs", "List tabs", "The open tabs: number, title and address; the current one is marked.",
           schema(Json::object()), true, false),
      tool("switch_tab", "Switch tab", "Work in another open tab, by its number in tabs.",
           schema({{"tab", {{"type", "integer"}, {"minimum", 1}}}}, {"tab"}), false, false),
      tool("upload", "Upload a file",
           "Give a file input (or the button that opens one) a file from the folder the user allowed (--upload-dir).",
           schema({{"label", kLabel}, {"file", {{"type", "string"}, {"description", "a file name in that folder"}}}},
                  {"label", "file"}),
           false, true),
      tool("browse", "Do a whole task",
           "Run a whole task with vimgpt's own model: it looks, acts and repeats until done. Returns the answer, the "
           "steps taken and where the run was recorded. Reports progress per step; cancellable.",
           schema({{"objective", {{"type", "string"}}},
                   {"start_url", {{"type", "string"}, {"description", "default: the current page"}}},
                   {"max_steps", {{"type", "integer"}, {"minimum", 1}, {"maximum", 1000}}},
                   {"mode",
                    {{"type", "string"},
                     {"enum", {"labels", "computer-use", "auto"}},
                     {"description",
                      "how the model acts: vimgpt's labels, its provider's own computer tool on the unlabelled "
                      "page, or auto: the one the model is best in (default: the server's --mode)"}}},
                   {"output_schema",
                    {{"type", "object"},
                     {"description",
                      "a JSON Schema (draft 4, 6 or 7) the answer must fit: it comes back as that JSON, in "
                      "structuredContent.answer"}}}},
                  {"objective"}),
           false, true),
  }));
}

// At most this many labels and text lines answer a find.
constexpr std::size_t kFoundLabels = 20;
constexpr std::chrono::milliseconds kConsentCap{5000};  // the longest a look waits for autoconsent to finish answering
constexpr std::size_t kFoundLines = 10;

// A line of page text, at most about 200 bytes (cut at a character's start).
std::string shortened(const std::string& line) {
  constexpr std::size_t kMost = 200;
  if (line.size() <= kMost) return line;
  std::size_t cut = kMost;
  while (cut > 0 && (static_cast<unsigned char>(line[cut]) & 0xC0) == 0x80) --cut;
  return line.substr(0, cut) + "...";
}

// The label list of a look, capped: the rest are on the frame, and find searches them. Link targets are written short
// beside the page at `page_url`.
std::string label_list(const hints::HintMap& map, std::size_t max_labels, std::string_view page_url) {
  if (max_labels == 0 || map.size() <= max_labels) return map.to_text(page_url);
  return map.to_text(page_url, max_labels) + "... and " + std::to_string(map.size() - max_labels) +
         " more labels on the frame, not listed here (at most " + std::to_string(max_labels) +
         " are): find WORDS names the ones you need\n";
}

// What the client was shown of a page in words: its address, and its labels and what they hold.
std::size_t page_text_identity(const std::string& url, const hints::Capture& seen) {
  return std::hash<std::string>()(url + '\n' + seen.map.to_text() + '\n' + seen.map.state());
}

// How far a frame's 8x8 block may be from the one last shown, on average, and still count as unchanged. A page
// repainted with nothing changed came back 5 levels off in a 16-pixel block (one look in about 60, under load), or a
// glyph's edge rastered again 29 levels off in three pixels (a look after a click that loaded a page: one in eight,
// 2026-12-07); a character that changes moves its block by more (tally.html's counter digit: over 40; a full stop's
// 2x2 pixels on white: about 12).
constexpr int kRepaintNoise = 8;

// What an acting tool or look answers when the page is the one last shown (its words and its picture), in few tokens.
constexpr const char* kUnchanged = "Unchanged since the page was last shown: its labels still hold.";

Json text_block(std::string text) {
  return {{"type", "text"}, {"text", std::move(text)}};
}

Json error_result(const std::string& message) {
  return {{"content", Json::array({text_block(message)})}, {"isError", true}};
}

// The argument `key` as a `T`, or BadArguments naming what it must be.
template <typename T>
std::optional<T> argument(const Json& arguments, const char* key, bool required, BadArguments& bad) {
  if (!arguments.contains(key) || arguments[key].is_null()) {
    if (required) bad.message = std::string("missing argument \"") + key + "\"";
    return std::nullopt;
  }
  const Json& value = arguments[key];
  if constexpr (std::is_same_v<T, std::string>) {
    if (value.is_string()) return value.get<std::string>();
    bad.message = std::string("argument \"") + key + "\" must be a string";
  } else if constexpr (std::is_same_v<T, bool>) {
    if (value.is_boolean()) return value.get<bool>();
    bad.message = std::string("argument \"") + key + "\" must be true or false";
  } else {
    if (value.is_number_integer()) return value.get<int>();
    bad.message = std::string("argument \"") + key + "\" must be a whole number";
  }
  return std::nullopt;
}

}  // namespace

Tools::Tools(const ServerOptions& options) : options_(options), acting_(options.agent) {
  acting_.interrupted = &cancelled_;
}

Tools::~Tools() {
  finish_recording();
}

void Tools::end() {
  finish_recording();
  actor_.reset();
  forget_seen();
  watch_.reset();
  tab_.reset();  // on the thread that launched it
}

// The session's last step: done, on the page as the client left it, with the digest of its text (a replay
// ends where this session ended, or says the page is not the same).
void Tools::finish_recording() {
  if (!recorder_) return;
  if (tab_ && tab_->alive()) {
    auto last = hints::capture(*tab_, acting_.capture);
    const auto text = hints::visible_text(*tab_, agent::kPageTextLimit);
    if (last && text) {
      agent::Action done;
      done.kind = agent::ActionKind::Done;
      record(done, {true, "the MCP session ended here", std::nullopt}, *last,
             tab_->page_info().value_or(browser::PageInfo{}), content_digest(*text));
    }
  }
  agent::RunResult session;
  session.outcome = agent::Outcome::Done;
  session.message = "the MCP session ended";
  session.steps = recorded_;
  recorder_->finish(session);
  recorder_.reset();
}

void Tools::record(const agent::Action& action, const agent::ActResult& acted, const hints::Capture& seen,
                   const browser::PageInfo& page, const std::string& page_digest) {
  if (!recording() && !watch_) return;
  if (recording() && !recorder_) {
    agent::AgentOptions session = acting_;
    session.objective = "MCP session: the client's tool calls";
    session.start_url.clear();
    auto opened = agent::Recorder::open(options_.agent.record_dir + "/session", session);
    if (!opened) return;  // a recording that cannot be written must not stop the session
    recorder_ = std::move(*opened);
  }
  agent::StepRecord step;
  step.step = ++recorded_;
  step.url = page.url;
  step.title = page.title;
  agent::record_signatures(step, action, seen.map);
  step.hint_count = seen.map.size();
  step.hints = seen.map.to_json();
  step.action = agent::to_json(action);
  step.ok = acted.ok;
  step.result = acted.message;
  step.target = acted.target;
  step.page_digest = page_digest;
  if (recorder_) recorder_->add_step(step, seen);
  if (watch_) watch_->on_step(step, seen);
}

std::optional<std::string> Tools::person_turn() {
  if (!watch_) return std::nullopt;
  auto paused = watch_->checkpoint(std::nullopt);
  if (!paused) return "the call was cancelled while a person had the page in the live view";
  if (!*paused) return std::nullopt;
  forget_seen();  // the labels the client saw may name other elements now
  return "not done: a person paused the session in the live view meanwhile, and " + agent::describe(**paused) +
         ". Call look, then act on what it shows";
}

const Json& Tools::list() const {
  static const Json kTools = tool_list();
  return kTools;
}

Result<browser::Tab*> Tools::tab() {
  if (tab_ && tab_->alive()) return tab_.get();
  if (!options_.open_tab) return fail(ErrorKind::Unsupported, "this server has no browser to open");
  actor_.reset();
  forget_seen();
  watch_.reset();
  VIMGPT_TRY(tab_, options_.open_tab());
  (void)consent::install(*tab_, acting_.consent);  // a build without autoconsent said so when the server started
  actor_ = std::make_unique<agent::Actor>(*tab_, acting_);
  if (options_.watch) watch_ = options_.watch(*tab_, &cancelled_);
  return tab_.get();
}

void Tools::forget_seen() {
  seen_.reset();
  shown_.reset();
}

Json Tools::look(const std::string& prefix, bool failed, bool only_if_changed) {
  auto open = tab();
  if (!open) return error_result(prefix + open.error().message);
  std::string answered;  // the consent dialogs autoconsent answered: vimgpt's words, outside the page's fence
  for (const auto& said : consent::settle(**open, kConsentCap)) answered += said + "\n";
  hints::CaptureOptions capture = acting_.capture;
  capture.crop_to_content = true;  // a client's model pays for every row of the picture
  auto captured = hints::capture(**open, capture);
  if (!captured) return error_result(prefix + "could not look at the page: " + captured.error().message);
  seen_ = std::move(*captured);
  auto page = (*open)->page_info().value_or(browser::PageInfo{});
  // The picture counts, so text that changed without a label changing (an answer revealed, a counter) is shown.
  Shown now{page_text_identity(page.url, *seen_), seen_->labelled.bytes};
  if (only_if_changed && shown_ && shown_->text == now.text && same_picture(shown_->frame, now.frame, kRepaintNoise)) {
    return {{"content", Json::array({text_block(prefix + answered + kUnchanged)})}, {"isError", failed}};
  }
  shown_ = std::move(now);
  const agent::Actor::ShownPdf* pdf = actor_->shown_pdf();
  if (pdf != nullptr) {  // answered as the loop's prompt says it: the PDF's own address, its pages, and its text
    page.url = pdf->url;
    answered += "The page is " + agent::Actor::pdf_note(*pdf) +
                " (vimgpt shows it as a page); {\"page\": N} in the actions tool turns to page N.\n";
  }
  std::string seen = "URL: " + page.url + "\nTitle: " + page.title + "\n";
  if (pdf != nullptr) {
    auto text = hints::visible_text(**open, agent::kPageTextLimit);
    seen += "Text on the screen:\n" + (text ? *text : "(it could not be read: " + text.error().message + ")") + "\n";
  }
  if (const std::size_t open_tabs = (*open)->page_count(); open_tabs > 1) {
    seen += "Tabs: " + std::to_string(open_tabs) + " open (see tabs)\n";
  }
  // The label lines say what they are ("[A] link ..."): no heading before them.
  seen += seen_->map.empty() ? "No labels: nothing on this screen can be clicked.\n"
                             : label_list(seen_->map, options_.max_labels, page.url);
  std::string text = prefix + answered + fence_.wrap(seen);
  const auto& frame = seen_->labelled;
  return {
      {"content",
       Json::array({{{"type", "image"}, {"data", base64_encode(frame.bytes)}, {"mimeType", std::string(frame.mime())}},
                    text_block(std::move(text))})},
      {"isError", failed}};
}

Json Tools::act(const agent::Action& action, std::optional<bool> observe) {
  auto open = tab();
  if (!open) return error_result(open.error().message);
  if (auto instead = person_turn()) return error_result(*instead);
  static const hints::Capture kNothingSeen;
  const hints::Capture& seen = seen_ ? *seen_ : kNothingSeen;
  const auto page = recording() || watch_ ? (*open)->page_info().value_or(browser::PageInfo{}) : browser::PageInfo{};
  agent::ActResult acted = actor_->act(action, seen);
  record(action, acted, seen, page);  // with the frame the client chose from
  actor_->after(action, acted);
  actor_->keep_tabs_within_limit(acted);
  std::string said = (acted.ok ? "" : "failed: ") + acted.message;
  if (!seen_ && !acted.ok && !action.label.empty()) said += " (call look first to see the labels)";
  if (!observe.value_or(options_.observe_after != ObserveAfter::Never)) {
    return {{"content", Json::array({text_block(said)})}, {"isError", !acted.ok}};
  }
  return look(said + "\n\n", !acted.ok, !observe && options_.observe_after == ObserveAfter::Changed);
}

Json Tools::find(const std::string& query) {
  const auto words = hints::search_words(query);
  if (words.empty()) return error_result("find needs words to look for, e.g. {\"query\": \"sign in\"}");
  auto open = tab();
  if (!open) return error_result(open.error().message);
  if (!seen_) {  // the labels it names must be the ones the acting tools take
    auto captured = hints::capture(**open, acting_.capture);
    if (!captured) return error_result("could not look at the page: " + captured.error().message);
    seen_ = std::move(*captured);
  }
  const auto found = seen_->map.search(query, kFoundLabels);
  std::string text;
  if (found.empty()) {
    text = "No label matches \"" + query + "\" (of " + std::to_string(seen_->map.size()) + ").\n";
  } else {
    text = "Labels matching \"" + query + "\" (" + std::to_string(found.size()) + " of " +
           std::to_string(seen_->map.size()) + ", best first):\n";
    const std::string page_url = (*open)->last_url();
    for (const auto* hint : found) text += hints::to_text(*hint, page_url) + '\n';
  }
  if (auto shown = hints::visible_text(**open, agent::kPageTextLimit); shown) {
    std::string lines;
    std::size_t count = 0;
    std::istringstream text_lines(*shown);
    for (std::string line; count < kFoundLines && std::getline(text_lines, line);) {
      if (hints::words_in(words, line) == 0) continue;
      lines += "  " + shortened(line) + '\n';
      ++count;
    }
    if (count > 0) text += "Text on the screen that holds them:\n" + lines;
  }
  return {{"content", Json::array({text_block(fence_.wrap(text))})}, {"isError", false}};
}

Json Tools::tabs() {
  auto open = tab();
  if (!open) return error_result(open.error().message);
  auto pages = (*open)->pages();
  if (!pages) return error_result(pages.error().message);
  std::string text;
  for (const auto& page : *pages) {
    text += std::to_string(page.number) + ". " + (page.title.empty() ? "(untitled)" : page.title) + " - " + page.url +
            (page.current ? " (current)" : "") + "\n";
  }
  return {{"content", Json::array({text_block(fence_.wrap(text))})}, {"isError", false}};
}

Json Tools::browse(const BrowseTask& task, const Json& progress, const Notify& notify) {
  if (!options_.make_browse) return error_result("browse needs a model: start vimgpt mcp with one configured");
  auto setup = options_.make_browse(task.output_schema ? task.output_schema->document() : Json(), task.mode);
  if (!setup) return error_result("browse cannot run: " + setup.error().message);
  auto open = tab();
  if (!open) return error_result(open.error().message);
  agent::AgentOptions run = acting_;
  run.capture = setup->capture;
  run.objective = task.objective;
  run.start_url = task.start_url;
  run.max_steps = task.max_steps.value_or(run.max_steps);
  run.answer_schema = task.output_schema;
  if (!run.record_dir.empty()) run.record_dir += "/browse-" + std::to_string(++browse_runs_);
  run.overseer = watch_.get();
  agent::Agent agent(run, **open, std::move(setup->planner));
  const auto result = agent.run([&](const agent::StepRecord& step) {
    if (progress.is_null() || !notify) return;
    notify({{"jsonrpc", "2.0"},
            {"method", "notifications/progress"},
            {"params",
             {{"progressToken", progress},
              {"progress", step.step},
              {"total", step.max_steps},
              {"message", "step " + std::to_string(step.step) + ": " + step.action.dump() + " -> " + step.result}}}});
  });
  forget_seen();  // the page moved on under the run
  std::string text = "outcome: " + std::string(agent::to_string(result.outcome)) +
                     "\nanswer: " + agent::answer_text(result.answer) + "\nsteps: " + std::to_string(result.steps);
  if (!result.question.empty()) text += "\nquestion: " + result.question;
  if (!result.record_dir.empty()) text += "\nrecorded in: " + result.record_dir;
  if (result.outcome != agent::Outcome::Done) text += "\n" + result.message;
  return {{"content", Json::array({text_block(text)})},
          {"structuredContent",
           {{"outcome", agent::to_string(result.outcome)},
            {"answer", result.answer},
            {"steps", result.steps},
            {"record_dir", result.record_dir}}},
          {"isError", result.outcome != agent::Outcome::Done}};
}

std::variant<Json, BadArguments> Tools::call(const std::string& name, const Json& arguments, const Json& progress,
                                             const Notify& notify) {
  cancelled_ = false;
  BadArguments bad;
  if (!arguments.is_object()) return BadArguments{"the arguments must be an object"};
  agent::Action action;
  auto label = [&](bool required) {
    auto given = argument<std::string>(arguments, "label", required, bad);
    if (given) action.label = *given;
    return given.has_value();
  };
  const auto observe = argument<bool>(arguments, "look", false, bad);
  if (!bad.message.empty()) return bad;
  if (name == "look") {
    const auto again = argument<bool>(arguments, "again", false, bad);
    if (!bad.message.empty()) return bad;
    return look({}, false, !again.value_or(false));
  }
  if (name == "tabs") return tabs();
  if (name == "find") {
    auto query = argument<std::string>(arguments, "query", true, bad);
    if (!query) return bad;
    return find(*query);
  }
  if (name == "open") {
    auto url = argument<std::string>(arguments, "url", true, bad);
    if (!url) return bad;
    auto normalized = agent::normalize_url(*url);
    if (!normalized) return error_result(normalized.error().message);
    action.kind = agent::ActionKind::Navigate;
    action.text = *normalized;
  } else if (name == "click") {
    if (!label(true)) return bad;
    action.kind = agent::ActionKind::Click;
  } else if (name == "type") {
    auto text = argument<std::string>(arguments, "text", true, bad);
    if (!text) return bad;
    const bool labelled = label(false);
    auto enter = argument<bool>(arguments, "enter", false, bad);
    if (!bad.message.empty()) return bad;
    action.kind = labelled ? agent::ActionKind::ClickType : agent::ActionKind::Type;
    action.text = *text;
    action.enter = !enter ? agent::Enter::Auto : *enter ? agent::Enter::Press : agent::Enter::Skip;
  } else if (name == "select" || name == "upload") {
    auto value = argument<std::string>(arguments, name == "select" ? "option" : "file", true, bad);
    if (!label(true) || !value) return bad;
    action.kind = name == "select" ? agent::ActionKind::Select : agent::ActionKind::Upload;
    action.text = *value;
  } else if (name == "scroll") {
    auto direction = argument<std::string>(arguments, "direction", true, bad);
    if (!direction) return bad;
    if (*direction != "down" && *direction != "up") return BadArguments{"argument \"direction\" must be down or up"};
    if (label(false)) action.in = std::exchange(action.label, "");
    if (!bad.message.empty()) return bad;
    action.kind = agent::ActionKind::Scroll;
    action.direction = *direction == "up" ? browser::ScrollDirection::Up : browser::ScrollDirection::Down;
  } else if (name == "back") {
    action.kind = agent::ActionKind::Back;
  } else if (name == "key") {
    auto key = argument<std::string>(arguments, "key", true, bad);
    if (!key) return bad;
    auto keys = browser::parse_keys(*key);
    if (!keys) return error_result(keys.error().message);
    action.kind = agent::ActionKind::Key;
    action.text = browser::to_string(*keys);
  } else if (name == "hover" || name == "double_click" || name == "right_click") {
    if (!label(true)) return bad;
    action.kind = name == "hover"          ? agent::ActionKind::Hover
                  : name == "double_click" ? agent::ActionKind::DoubleClick
                                           : agent::ActionKind::RightClick;
  } else if (name == "drag" || name == "select_text" || name == "actions") {
    // The same words as the model's: parsed as its reply would be.
    Json reply;
    if (name == "drag") {
      if (!arguments.contains("from") || !arguments.contains("to"))
        return BadArguments{"drag needs \"from\" and \"to\""};
      reply = {{"drag", arguments["from"]}, {"to", arguments["to"]}};
    } else if (name == "select_text") {
      auto text = argument<std::string>(arguments, "text", true, bad);
      if (!text) return bad;
      reply = {{"select_text", *text}};
      if (label(false)) reply["in"] = action.label;
      if (!bad.message.empty()) return bad;
    } else {
      if (!arguments.contains("actions") || !arguments["actions"].is_array()) {
        return BadArguments{"argument \"actions\" must be a list of action objects"};
      }
      reply = {{"actions", arguments["actions"]}};
    }
    auto parsed = agent::parse_action(reply);
    if (!parsed) return error_result(parsed.error().message);
    action = std::move(*parsed);
  } else if (name == "switch_tab") {
    auto number = argument<int>(arguments, "tab", true, bad);
    if (!number) return bad;
    action.kind = agent::ActionKind::SwitchTab;
    action.tab = *number;
  } else if (name == "browse") {
    auto objective = argument<std::string>(arguments, "objective", true, bad);
    auto start_url = argument<std::string>(arguments, "start_url", false, bad);
    auto max_steps = argument<int>(arguments, "max_steps", false, bad);
    auto mode = argument<std::string>(arguments, "mode", false, bad);
    if (!objective || !bad.message.empty()) return bad;
    if (max_steps && (*max_steps < 1 || *max_steps > 1000)) return BadArguments{"max_steps takes 1 to 1000"};
    if (mode && *mode != "labels" && *mode != "computer-use" && *mode != "auto") {
      return BadArguments{"mode takes labels, computer-use or auto, not \"" + *mode + "\""};
    }
    std::optional<JsonSchema> output_schema;
    if (const auto given = arguments.find("output_schema"); given != arguments.end() && !given->is_null()) {
      auto schema = JsonSchema::read(*given);
      if (!schema) return BadArguments{"output_schema: " + schema.error().message};
      output_schema = std::move(*schema);
    }
    return browse({*objective, start_url.value_or(""), max_steps, std::move(output_schema), mode.value_or("")},
                  progress, notify);
  } else {
    return BadArguments{"unknown tool \"" + name + "\"; tools/list names them"};
  }
  return act(action, observe);
}

}  // namespace vimgpt::mcp
