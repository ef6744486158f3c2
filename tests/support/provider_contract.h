// What the real providers refuse, and how their models spend and report tokens, for the fake model server: a
// request the real service would answer with a 400 or 404 gets that answer here (and the test a problem), so a
// regression against a documented rule fails a test. The rules are written here from the providers' references
// (cited beside each), not taken from vimgpt's code; the per-model facts (which efforts a model takes, whether its
// thinking can be turned off, whether it is retired) are read from src/vision/models.json by this file's own
// parser, so the fake checks the client against the catalogue's documented facts.
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace vimgpt::test {

// Who the fake plays on /v1/chat/completions: any OpenAI-compatible server (generic rules), or OpenAI's own API
// (its rules for the model named); on /v1beta/openai/chat/completions, Google's OpenAI-compatible endpoint
// (Service::Gemini). On /v1/messages it is always Anthropic's API.
enum class Service { Compatible, OpenAI, Gemini };

// One model as the catalogue describes it (the fields the contracts need).
struct CatalogueModel {
  std::string id;
  std::string provider;  // "openai" | "anthropic"
  std::string api;       // "chat" | "messages" | "responses"
  std::string status;    // "active" | "legacy" | "deprecated" | "retired"
  std::vector<std::string> efforts;
  std::string temperature;  // "yes" | "no" | "without_reasoning"
  std::string thinking;     // "off" | "always" | "disabled" | "between_tools"
  bool has_cache_write_price = false;
  std::string computer_tool;  // the computer tool's type it takes ("computer_20251124"); empty: none
};
// The catalogue's entry for a name (id, alias, or a dated snapshot of either); nullopt when unknown.
std::optional<CatalogueModel> catalogue_model(std::string_view name);
// Every model id in the catalogue.
std::vector<std::string> catalogue_ids();

// A refusal as the provider sends it: status and JSON body.
struct Refusal {
  int status = 400;
  nlohmann::json body;
  std::string message;  // the provider's words, for the test's problem list
};

struct ImageFacts {
  std::size_t base64_bytes = 0;
  int width = 0;
  int height = 0;
  std::string detail;
};

// The first rule of OpenAI's Chat Completions the request breaks (for `service` OpenAI: the model's own rules
// too), or nullopt.
std::optional<Refusal> openai_refusal(const nlohmann::json& body, Service service,
                                      const std::vector<ImageFacts>& images);
// The first rule of OpenAI's Responses API (POST /v1/responses) the request breaks (for `service` OpenAI: the model's
// own rules too), or nullopt.
std::optional<Refusal> responses_refusal(const nlohmann::json& body, Service service,
                                         const std::vector<ImageFacts>& images);
// Google's error as its OpenAI-compatible endpoint sends it: a list of one {"error": {"code", "message", "status"}}.
Refusal gemini_error(int status, std::string google_status, std::string message, std::string reason = {});
// The first rule of Google's OpenAI-compatible endpoint the request breaks (`authorization` is the header sent,
// `key` the one that works; `body_bytes` the request's size), or nullopt.
std::optional<Refusal> gemini_refusal(const nlohmann::json& body, const std::string& authorization,
                                      const std::string& key, std::size_t body_bytes, std::size_t images);
// The first rule of Anthropic's Messages API the request breaks, or nullopt.
std::optional<Refusal> anthropic_refusal(const nlohmann::json& body, const std::vector<ImageFacts>& images);
// What Anthropic refuses of a tool loop (https://platform.claude.com/docs/en/agents-and-tools/tool-use/ as stored,
// read 2026-12-06): a computer tool without its beta header (`beta`: the anthropic-beta header as sent) or with
// another version than the model takes, a display size that is not a positive whole number, a custom tool without
// its input_schema, and a tool_use left without its tool_result in the next user message (or a tool_result
// answering no tool_use of the message before). The computer toolset (computer_toolset_20260801, the same pages): on a
// model that does not take it, with the single tool's fields (name, display size, enable_zoom) or a config key that
// is no member's, and a member's tool_result without the toolset_name of its tool_use.
std::optional<Refusal> anthropic_tool_refusal(const nlohmann::json& body, const std::string& beta);
// The toolset_name Anthropic gives a tool_use block named `name` under the request's tools: "computer" for a member
// of the computer toolset when the request offers it; empty for a tool of its own.
std::string anthropic_toolset_of(const nlohmann::json& body, const std::string& name);
// What OpenAI's Responses API refuses of a computer tool loop (openai-python's types at e43b422 and
// openai-agents-python's loop at 7f7a44f, read 2026-12-06): the tool on a model that does not take it, or with
// another version; a computer_call or function_call sent back without its output, or an output answering no call; a
// computer_call sent back without the reasoning item before it (encrypted, when nothing is stored); a computer call's
// pending safety checks not acknowledged in its output.
std::optional<Refusal> responses_tool_refusal(const nlohmann::json& body);

// What Google's native Gemini API (POST /v1beta/models/MODEL:generateContent) refuses of Gemini's computer-use loop
// (`key_header` is the x-goog-api-key header sent, `key` the one that works; errors as {"error": {"code", "message",
// "status"}}): a key that is not valid, a model it does not serve, the computerUse tool on a model whose page says it
// does not take it or without an environment, a role other than user and model, a thinking level the model does not
// take, a model's functionCall sent back without its thoughtSignature (Gemini 3's rule: the API's own words as
// reported in lbjlaq/Antigravity-Manager#3202 and BigPizzaV3/CodexPlusPlus#332, 2026), a call turn not answered
// by as many functionResponse parts naming its calls, and a call that carried a safety_decision answered without
// safety_acknowledgement (Google's reference agent sends it; the wording of these last refusals is the fake's).
std::optional<Refusal> gemini_native_refusal(const nlohmann::json& body, const std::string& model,
                                             const std::string& key_header, const std::string& key);
// Google's native error body: {"error": {"code", "message", "status"}}.
Refusal gemini_native_error(int status, std::string google_status, std::string message, std::string reason = {});

// Reasoning tokens a model spends before it answers, as the fake makes them up: nothing at OpenAI's "none" or with
// Anthropic's thinking off; otherwise more the higher the effort (the model's default effort when none is sent).
// Documented only in kind ("reasoning tokens count against max_completion_tokens", "thinking tokens count toward
// max_tokens"); the sizes are the fake's, stated in provider_contract.cpp.
int reasoning_spend(const nlohmann::json& body, bool anthropic);

// Whether `value` fits `schema` (type, properties, required, additionalProperties, anyOf, enum, items, minItems): what
// a provider's structured output guarantees of its replies.
bool fits_schema(const nlohmann::json& value, const nlohmann::json& schema);

}  // namespace vimgpt::test
