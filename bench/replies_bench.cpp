// The reply each action costs: for every kind of action, the original's flat reply (as its documentation
// writes it), the reply a provider's structured output gives under vimgpt's schema (the action wrapped as the
// schema's "action" member: OpenAI's strict json_schema and Anthropic's output_config.format produce the same
// JSON for it), checked against that schema, and the flat strict form earlier versions asked for (every key
// listed, the unused ones null). Not a Google Benchmark: it prints one JSON line per action for
// bench/cost/replies.mjs, which counts their tokens with a real tokenizer.
#include <iostream>
#include <string>

#include "support/provider_contract.h"
#include "vision/vision.h"

using nlohmann::json;

// The original's replies are written with a space after each colon and comma, as its documentation shows them.
std::string spaced(const json& action) {
  std::string text;
  bool in_string = false;
  for (const char c : action.dump()) {
    text += c;
    if (c == '"') in_string = !in_string;
    if (!in_string && (c == ':' || c == ',')) text += ' ';
  }
  return text;
}

int main() {
  const json examples[] = {
      {{"kind", "click"}, {"action", {{"click", "AB"}}}},
      {{"kind", "click+type"}, {"action", {{"click", "SD"}, {"type", "cheap flights to Lisbon"}}}},
      {{"kind", "type"}, {"action", {{"type", "quantum computing"}}}},
      {{"kind", "navigate"}, {"action", {{"navigate", "https://www.wikipedia.org"}}}},
      {{"kind", "done (answer)"}, {"action", {{"done", "The museum opens at 9am."}}}},
      {{"kind", "done (true)"}, {"action", {{"done", true}}}},
      {{"kind", "scroll"}, {"action", {{"scroll", "down"}}}},
      {{"kind", "back"}, {"action", {{"back", true}}}},
      {{"kind", "key"}, {"action", {{"key", "Escape"}}}},
      {{"kind", "select"}, {"action", {{"select", "AB"}, {"option", "Portugal"}}}},
      {{"kind", "upload"}, {"action", {{"upload", "F"}, {"file", "report.pdf"}}}},
      {{"kind", "tab"}, {"action", {{"tab", 2}}}},
      {{"kind", "close_tab"}, {"action", {{"close_tab", true}}}},
      {{"kind", "ask"}, {"action", {{"ask", "Which date do you want?"}}}},
      {{"kind", "wait"}, {"action", {{"wait", 2}}}},
      {{"kind", "click_at"}, {"action", {{"click_at", {512, 300}}}}},
      {{"kind", "click+type, enter"}, {"action", {{"click", "SD"}, {"type", "Ada"}, {"enter", false}}}},
  };
  const json& schema = vimgpt::vision::action_schema();
  int failures = 0;
  for (const auto& example : examples) {
    const json& action = example["action"];
    const json structured = {{"action", action}};
    json flat_strict = json::object();
    for (const auto& key : vimgpt::vision::action_keys()) flat_strict[key] = key == "done" ? json(false) : json();
    flat_strict.update(action);
    const bool fits =
        vimgpt::test::fits_schema(structured, schema) && vimgpt::vision::structured_action(structured) == action;
    failures += fits ? 0 : 1;
    std::cout << json{{"kind", example["kind"]},
                      {"original", spaced(action)},
                      {"structured", structured.dump()},
                      {"flat_strict", flat_strict.dump()},
                      {"fits_schema", fits}}
                     .dump()
              << "\n";
  }
  return failures == 0 ? 0 : 1;
}
