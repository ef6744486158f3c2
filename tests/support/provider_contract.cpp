#include "support/provider_contract.h"

#include <algorithm>
#include <array>
#include <cctype>
#include <fstream>
#include <map>
#include <set>
#include <sstream>

namespace vimgpt::test {
namespace {

using nlohmann::json;

// ---- The catalogue, read here with nothing of vimgpt's -----------------------------------------------------

struct Entry {
  CatalogueModel model;
  std::vector<std::string> aliases;
  std::string default_effort;
};

const std::vector<Entry>& catalogue() {
  static const std::vector<Entry> kEntries = [] {
    std::ifstream in(std::string(VIMGPT_SOURCE_DIR) + "/src/vision/models.json");
    const json file = json::parse(in);
    std::vector<Entry> entries;
    for (const auto& model : file.at("models")) {
      json merged = model.contains("family") ? file["families"][model["family"].get<std::string>()] : json::object();
      for (const auto& [key, value] : model.items()) merged[key] = value;
      Entry entry;
      entry.model.id = merged.at("id").get<std::string>();
      entry.model.provider = merged.at("provider").get<std::string>();
      entry.model.api = merged.at("api").get<std::string>();
      entry.model.status = merged.value("status", "active");
      entry.model.efforts = merged.value("efforts", std::vector<std::string>{});
      entry.model.temperature = merged.value("temperature", "yes");
      entry.model.thinking = merged.value("thinking", "off");
      const auto& price = merged.value("price", json());
      entry.model.has_cache_write_price = price.is_object() && price.contains("cache_write");
      entry.model.computer_tool = merged.value("computer_tool", json::object()).value("type", "");
      entry.aliases = merged.value("aliases", std::vector<std::string>{});
      entry.default_effort = merged.value("default_effort", entry.model.efforts.empty() ? "" : "medium");
      entries.push_back(std::move(entry));
    }
    return entries;
  }();
  return kEntries;
}

const Entry* entry_for(std::string_view name) {
  const auto named = [](const Entry& entry, std::string_view wanted) {
    return entry.model.id == wanted ||
           std::find(entry.aliases.begin(), entry.aliases.end(), wanted) != entry.aliases.end();
  };
  for (const auto& entry : catalogue()) {
    if (named(entry, name)) return &entry;
  }
  // Dated snapshots: -YYYY-MM-DD (OpenAI), -YYYYMMDD (Anthropic).
  for (const std::size_t length : {std::size_t{11}, std::size_t{9}}) {
    if (name.size() <= length) continue;
    const std::string_view date = name.substr(name.size() - length + 1);
    if (name[name.size() - length] != '-' || !std::all_of(date.begin(), date.end(), [](char c) {
          return std::isdigit(static_cast<unsigned char>(c)) || c == '-';
        }))
      continue;
    for (const auto& entry : catalogue()) {
      if (named(entry, name.substr(0, name.size() - length))) return &entry;
    }
  }
  return nullptr;
}

bool has(const std::vector<std::string>& list, const std::string& item) {
  return std::find(list.begin(), list.end(), item) != list.end();
}

// ---- OpenAI ------------------------------------------------------------------------------------------------
// https://platform.openai.com/docs/api-reference/chat/create and the error shapes its API sends:
// {"error": {"message", "type": "invalid_request_error", "param", "code"}}.

Refusal openai_error(int status, std::string message, std::string param, std::string code) {
  Refusal refusal;
  refusal.status = status;
  refusal.message = message;
  refusal.body = {{"error",
                   {{"message", std::move(message)},
                    {"type", "invalid_request_error"},
                    {"param", param.empty() ? json() : json(param)},
                    {"code", code.empty() ? json() : json(code)}}}};
  return refusal;
}

// Structured Outputs' supported subset (https://platform.openai.com/docs/guides/structured-outputs#supported-
// schemas): the root an object and not anyOf; every object with additionalProperties false and every property
// required; no allOf, not, if/then/else, dependentRequired/dependentSchemas; at most 10 levels and 5000
// properties. A schema outside it: 400 "Invalid schema for response_format ...".
std::optional<std::string> strict_schema_problem(const json& schema, const std::string& context, int depth,
                                                 int& properties) {
  if (!schema.is_object()) return "In context=(" + context + "), schema must be a JSON object.";
  if (depth > 10) return "In context=(" + context + "), schema exceeds the maximum nesting depth of 10.";
  for (const char* keyword : {"allOf", "not", "if", "then", "else", "dependentRequired", "dependentSchemas",
                              "minLength", "maxLength", "patternProperties"}) {
    if (schema.contains(keyword)) return "In context=(" + context + "), '" + keyword + "' is not permitted.";
  }
  if (schema.contains("anyOf")) {
    if (context.empty()) return "In context=(), 'anyOf' is not permitted at the root: the root must be an object.";
    int index = 0;
    for (const auto& option : schema["anyOf"]) {
      if (auto problem = strict_schema_problem(option, context + "'anyOf', " + std::to_string(index++) + ", ",
                                               depth + 1, properties))
        return problem;
    }
    return std::nullopt;
  }
  if (!schema.contains("type") && !schema.contains("enum") && !schema.contains("const") && !schema.contains("$ref")) {
    return "In context=(" + context + "), schema must have a 'type' key.";
  }
  const json types = schema.value("type", json::array());
  const auto is = [&types](const char* type) {
    return types == type || (types.is_array() && std::find(types.begin(), types.end(), type) != types.end());
  };
  if (context.empty() && types != "object") return "In context=(), schema must be a JSON Schema of 'type: \"object\"'.";
  if (is("object")) {
    if (schema.value("additionalProperties", json()) != false) {
      return "In context=(" + context + "), 'additionalProperties' is required to be supplied and to be false.";
    }
    const json& props = schema.value("properties", json::object());
    const json& required = schema.value("required", json::array());
    for (const auto& [key, value] : props.items()) {
      if (!required.is_array() || std::find(required.begin(), required.end(), key) == required.end()) {
        return "In context=(" + context +
               "), 'required' is required to be supplied and to be an array including "
               "every key in properties. Missing '" +
               key + "'.";
      }
      if (++properties > 5000) return "A schema may have up to 5000 object properties total.";
      if (auto problem = strict_schema_problem(value, context + "'properties', '" + key + "', ", depth + 1, properties))
        return problem;
    }
  }
  if (is("array")) {
    if (!schema.contains("items")) return "In context=(" + context + "), array schema missing items.";
    if (auto problem = strict_schema_problem(schema["items"], context + "'items', ", depth + 1, properties))
      return problem;
  }
  return std::nullopt;
}

std::string effective_effort(const json& body, const Entry& entry) {
  const auto& sent =
      body.contains("reasoning") ? body["reasoning"].value("effort", json()) : body.value("reasoning_effort", json());
  return sent.is_string() ? sent.get<std::string>() : entry.default_effort;
}

// ---- Anthropic ---------------------------------------------------------------------------------------------
// https://docs.anthropic.com/en/api/messages and https://docs.anthropic.com/en/api/errors:
// {"type": "error", "error": {"type", "message"}}.

Refusal anthropic_error(int status, std::string type, std::string message) {
  Refusal refusal;
  refusal.status = status;
  refusal.message = message;
  refusal.body = {{"type", "error"}, {"error", {{"type", std::move(type)}, {"message", std::move(message)}}}};
  return refusal;
}

// output_config.format's limits (anthropics/skills tool-use-concepts.md; the SDKs' schema transformer): no numeric
// or string length bounds, no array bounds beyond minItems 0 or 1, additionalProperties false on every object, no
// recursion.
std::optional<std::string> anthropic_schema_problem(const json& schema, const std::string& path) {
  if (!schema.is_object()) return path + ": schema must be an object";
  for (const char* keyword : {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minLength",
                              "maxLength", "maxItems"}) {
    if (schema.contains(keyword)) return path + ": '" + keyword + "' is not supported";
  }
  if (schema.contains("minItems") && schema["minItems"].is_number() && schema["minItems"].get<int>() > 1) {
    return path + ": 'minItems' values other than 0 or 1 are not supported";
  }
  if (schema.value("$ref", "") == "#") return path + ": recursive schemas are not supported";
  const json types = schema.value("type", json());
  const bool object =
      types == "object" || (types.is_array() && std::find(types.begin(), types.end(), "object") != types.end());
  if (object && schema.value("additionalProperties", json()) != false) {
    return path + ": 'additionalProperties' must be explicitly set to false for object types";
  }
  for (const char* list : {"anyOf", "allOf"}) {
    if (!schema.contains(list)) continue;
    int index = 0;
    for (const auto& option : schema[list]) {
      if (auto problem = anthropic_schema_problem(option, path + "." + list + "." + std::to_string(index++)))
        return problem;
    }
  }
  const json properties = schema.value("properties", json::object());
  for (const auto& [key, value] : properties.items()) {
    if (auto problem = anthropic_schema_problem(value, path + ".properties." + key)) return problem;
  }
  if (schema.contains("items")) return anthropic_schema_problem(schema["items"], path + ".items");
  return std::nullopt;
}

bool blank(const std::string& text) {
  return text.find_first_not_of(" \t\r\n") == std::string::npos;
}

std::optional<Refusal> text_block_refusal(const json& block, const std::string& where) {
  if (block.value("type", "") != "text") return std::nullopt;
  const std::string text = block.value("text", "");
  if (text.empty())
    return anthropic_error(400, "invalid_request_error", where + ": text content blocks must be non-empty");
  if (blank(text)) {
    return anthropic_error(400, "invalid_request_error",
                           where + ": text content blocks must contain non-whitespace text");
  }
  return std::nullopt;
}

bool thinking_on(const json& body, const Entry* entry) {
  const std::string type = body.value("thinking", json::object()).value("type", "");
  if (type == "disabled" || type == "between_tools") return false;
  if (type == "enabled" || type == "adaptive") return true;
  return entry != nullptr && entry->model.thinking != "off";  // on by default on every model that thinks unasked
}

// OpenAI's own API refuses a model it does not serve (unknown, retired, another provider's) as it does: a 404. Else
// `entry` is the model's.
std::optional<Refusal> unknown_openai_model(const json& body, const Entry*& entry) {
  const std::string model = body.value("model", "");
  entry = entry_for(model);
  if (entry == nullptr || entry->model.status == "retired" || entry->model.provider != "openai") {
    return openai_error(404, "The model `" + model + "` does not exist or you do not have access to it.", "",
                        "model_not_found");
  }
  return std::nullopt;
}

// What the model itself refuses on either OpenAI wire: an effort it does not take, a temperature while it reasons,
// a strict schema outside Structured Outputs' subset. `effort` is the effort sent (null: none) and `schema_spec` the
// format's {name, strict, schema} (null: none), under their names on this wire.
std::optional<Refusal> model_refusal(const json& body, const Entry& entry, const json& effort,
                                     const std::string& effort_param, const json& schema_spec,
                                     const std::string& schema_param) {
  if (!effort.is_null()) {
    const std::string sent = effort.is_string() ? effort.get<std::string>() : "";
    if (entry.model.efforts.empty()) {
      return openai_error(400, "Unsupported parameter: '" + effort_param + "' is not supported with this model.",
                          effort_param, "unsupported_parameter");
    }
    if (!has(entry.model.efforts, sent)) {
      return openai_error(400,
                          "Unsupported value: '" + effort_param + "' does not support '" + sent + "' with this model.",
                          effort_param, "unsupported_value");
    }
  }
  if (body.contains("temperature") && body["temperature"] != 1) {
    const std::string rule = entry.model.temperature;
    if (rule == "no" || (rule == "without_reasoning" && effective_effort(body, entry) != "none")) {
      return openai_error(400,
                          "Unsupported value: 'temperature' does not support " + body["temperature"].dump() +
                              " with this model. Only the default (1) value is supported.",
                          "temperature", "unsupported_value");
    }
  }
  if (schema_spec.is_object() && schema_spec.value("strict", false)) {
    int properties = 0;
    if (auto problem = strict_schema_problem(schema_spec.value("schema", json()), "", 0, properties)) {
      return openai_error(
          400, "Invalid schema for " + schema_param + " '" + schema_spec.value("name", "") + "': " + *problem,
          schema_param, "invalid_json_schema");
    }
  }
  return std::nullopt;
}

}  // namespace

std::optional<CatalogueModel> catalogue_model(std::string_view name) {
  const Entry* entry = entry_for(name);
  if (entry == nullptr) return std::nullopt;
  return entry->model;
}

std::vector<std::string> catalogue_ids() {
  std::vector<std::string> ids;
  for (const auto& entry : catalogue()) ids.push_back(entry.model.id);
  return ids;
}

std::optional<Refusal> openai_refusal(const json& body, Service service, const std::vector<ImageFacts>& images) {
  for (const auto& image : images) {
    if (!image.detail.empty() && image.detail != "low" && image.detail != "high" && image.detail != "auto") {
      return openai_error(400,
                          "Invalid value: '" + image.detail + "'. Supported values are: 'low', 'high', and 'auto'.",
                          "messages.content.image_url.detail", "invalid_value");
    }
  }
  if (service == Service::Compatible) return std::nullopt;
  const Entry* entry = nullptr;
  if (auto unknown = unknown_openai_model(body, entry)) return unknown;
  if (entry->model.api == "responses") {
    return openai_error(400, "This model is only supported in v1/responses and not in v1/chat/completions.", "model",
                        "");
  }
  const bool reasons = !entry->model.efforts.empty();
  if (reasons && body.contains("max_tokens")) {
    return openai_error(400,
                        "Unsupported parameter: 'max_tokens' is not supported with this model. Use "
                        "'max_completion_tokens' instead.",
                        "max_tokens", "unsupported_parameter");
  }
  const auto& format = body.value("response_format", json());
  return model_refusal(body, *entry, body.value("reasoning_effort", json()), "reasoning_effort",
                       format.is_object() && format.value("type", "") == "json_schema"
                           ? format.value("json_schema", json::object())
                           : json(),
                       "response_format");
}

// ---- OpenAI's Responses API ---------------------------------------------------------------------------------
// The request as the official SDK types it (openai-python src/openai/types/responses at e43b422): what Chat
// Completions calls messages, max_tokens / max_completion_tokens, reasoning_effort and response_format are input,
// max_output_tokens, reasoning.effort and text.format here; its content parts are input_text and input_image (a
// Chat Completions text or image_url part is not one), and input_image's detail is required. The errors' wording is
// the fake's (OpenAI's own for this endpoint was not read): their status and param are what a client reads. But for
// this one, quoted as Azure relays OpenAI's reply in vectorize-io/hindsight issue #58 (2025-12-19): "Invalid
// 'max_output_tokens': integer below minimum value. Expected a value >= 16, but got 10 instead."
constexpr int kMinimumOutputTokens = 16;

std::optional<Refusal> responses_refusal(const json& body, Service service, const std::vector<ImageFacts>& images) {
  for (const auto& [chat, here] :
       std::array<std::pair<std::string, std::string>, 5>{{{"messages", "input"},
                                                           {"max_tokens", "max_output_tokens"},
                                                           {"max_completion_tokens", "max_output_tokens"},
                                                           {"reasoning_effort", "reasoning.effort"},
                                                           {"response_format", "text.format"}}}) {
    if (body.contains(chat)) {
      return openai_error(
          400,
          "Unsupported parameter: '" + chat + "'. In the Responses API, this parameter has moved to '" + here + "'.",
          chat, "unsupported_parameter");
    }
  }
  if (!body.contains("input"))
    return openai_error(400, "Missing required parameter: 'input'.", "input", "missing_required_parameter");
  const json& input = body["input"];
  for (std::size_t i = 0; input.is_array() && i < input.size(); ++i) {
    const json& content = input[i].value("content", json());
    for (std::size_t j = 0; content.is_array() && j < content.size(); ++j) {
      const json& part = content[j];
      const std::string where = "input[" + std::to_string(i) + "].content[" + std::to_string(j) + "]";
      const std::string type = part.value("type", "");
      if (type != "input_text" && type != "input_image" && type != "input_file") {
        return openai_error(
            400, "Invalid value: '" + type + "'. Supported values are: 'input_text', 'input_image', and 'input_file'.",
            where + ".type", "invalid_value");
      }
      if (type != "input_image") continue;
      if (!part.contains("detail")) {
        return openai_error(400, "Missing required parameter: '" + where + ".detail'.", where + ".detail",
                            "missing_required_parameter");
      }
      if (!part.value("image_url", json()).is_string()) {
        return openai_error(400, "Invalid type for '" + where + ".image_url': expected a string.", where + ".image_url",
                            "invalid_type");
      }
    }
  }
  for (const auto& image : images) {
    if (image.detail != "low" && image.detail != "high" && image.detail != "auto" && image.detail != "original") {
      return openai_error(
          400, "Invalid value: '" + image.detail + "'. Supported values are: 'low', 'high', 'auto', and 'original'.",
          "input.content.detail", "invalid_value");
    }
  }
  const json& cap = body.value("max_output_tokens", json());
  if (cap.is_number_integer() && cap.get<int>() < kMinimumOutputTokens) {
    return openai_error(400,
                        "Invalid 'max_output_tokens': integer below minimum value. Expected a value >= " +
                            std::to_string(kMinimumOutputTokens) + ", but got " + cap.dump() + " instead.",
                        "max_output_tokens", "integer_below_min_value");
  }
  if (service == Service::Compatible) return std::nullopt;
  const Entry* entry = nullptr;
  if (auto unknown = unknown_openai_model(body, entry)) return unknown;
  const auto& format = body.value("text", json::object()).value("format", json());
  return model_refusal(
      body, *entry, body.value("reasoning", json::object()).value("effort", json()), "reasoning.effort",
      format.is_object() && format.value("type", "") == "json_schema" ? format : json(), "text.format");
}

// ---- Google's OpenAI-compatible endpoint -------------------------------------------------------------------
// https://ai.google.dev/gemini-api/docs/openai (the endpoint), .../generate-content/api-errors (the statuses);
// the list-shaped body and the 400 for a wrong key are what its users report (models.json "gem-errors"), and the
// efforts it refuses are the catalogue's (models.json "gem-effort": 'Invalid reasoning_effort: minimal. Valid
// values are: high, low, medium, none'). 20 MB of inline data a request, 3,600 images ("gem-media").

Refusal gemini_error(int status, std::string google_status, std::string message, std::string reason) {
  Refusal refusal;
  refusal.status = status;
  refusal.message = message;
  json error = {{"code", status}, {"message", std::move(message)}, {"status", std::move(google_status)}};
  if (!reason.empty()) {
    error["details"] = json::array({{{"@type", "type.googleapis.com/google.rpc.ErrorInfo"}, {"reason", reason}}});
  }
  refusal.body = json::array({{{"error", std::move(error)}}});
  return refusal;
}

Refusal gemini_native_error(int status, std::string google_status, std::string message, std::string reason) {
  Refusal refusal = gemini_error(status, std::move(google_status), std::move(message), std::move(reason));
  refusal.body = json(refusal.body[0]);  // the native API's error is the object itself, not a list of one
  return refusal;
}

std::optional<Refusal> gemini_native_refusal(const json& body, const std::string& model, const std::string& key_header,
                                             const std::string& key) {
  const auto refuse = [](const std::string& message) { return gemini_native_error(400, "INVALID_ARGUMENT", message); };
  if (!key.empty() && key_header != key) {
    return gemini_native_error(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.",
                               "API_KEY_INVALID");
  }
  const Entry* entry = entry_for(model);
  if (entry == nullptr || entry->model.status == "retired" || entry->model.provider != "gemini") {
    return gemini_native_error(
        404, "NOT_FOUND",
        "models/" + model + " is not found for API version v1beta, or is not supported for generateContent.");
  }
  for (const auto& tool : body.value("tools", json::array())) {
    if (!tool.contains("computerUse")) continue;
    if (entry->model.computer_tool.empty()) return refuse("Computer Use is not supported by models/" + model + ".");
    const std::string environment = tool["computerUse"].value("environment", "");
    if (environment != "ENVIRONMENT_BROWSER" && environment != "ENVIRONMENT_DESKTOP" &&
        environment != "ENVIRONMENT_MOBILE") {
      return refuse("Invalid value at 'tools[0].computer_use.environment'.");
    }
  }
  const json level = body.value("generationConfig", json::object())
                         .value("thinkingConfig", json::object())
                         .value("thinkingLevel", json());
  if (level.is_string()) {
    std::string lower_level = level.get<std::string>();
    std::transform(lower_level.begin(), lower_level.end(), lower_level.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    if (!has(entry->model.efforts, lower_level)) {
      return refuse("Thinking level " + level.get<std::string>() + " is not supported for this model.");
    }
  }
  const json contents = body.value("contents", json::array());
  if (!contents.is_array() || contents.empty())
    return refuse("* GenerateContentRequest.contents: contents is not specified");
  for (std::size_t i = 0; i < contents.size(); ++i) {
    const std::string role = contents[i].value("role", "");
    if (role != "user" && role != "model") return refuse("Please use a valid role: user, model.");
    const json parts = contents[i].value("parts", json::array());
    if (!parts.is_array() || parts.empty()) {
      return refuse("* GenerateContentRequest.contents[" + std::to_string(i) +
                    "].parts: contents.parts must not be empty.");
    }
    if (role != "model") continue;
    std::vector<json> calls;
    for (const auto& part : parts) {
      if (!part.value("functionCall", json()).is_object()) continue;
      if (!part.value("thoughtSignature", json()).is_string()) {
        return refuse(
            "Function call is missing a thought_signature in functionCall parts. This is required for tools "
            "to work correctly, and missing thought_signature may lead to degraded model performance. "
            "Additional data, function call `" +
            part["functionCall"].value("name", "") + "` , position " + std::to_string(i + 1) +
            ". Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.");
      }
      calls.push_back(part["functionCall"]);
    }
    if (calls.empty()) continue;
    const json answers = i + 1 < contents.size() ? contents[i + 1].value("parts", json::array()) : json::array();
    std::vector<json> responses;
    for (const auto& part : answers) {
      if (part.value("functionResponse", json()).is_object()) responses.push_back(part["functionResponse"]);
    }
    if (i + 1 == contents.size())
      return refuse("The last content's function calls are not answered: send their responses.");
    if (responses.size() != calls.size()) {
      return refuse(
          "Please ensure that the number of function response parts is equal to the number of function call "
          "parts of the function call turn.");
    }
    for (std::size_t c = 0; c < calls.size(); ++c) {
      const json& response = responses[c];
      if (response.value("name", "") != calls[c].value("name", "")) {
        return refuse("Function response " + response.value("name", "") + " does not answer function call " +
                      calls[c].value("name", "") + ".");
      }
      const json& args = calls[c].value("args", json::object());
      if (args.is_object() && args.contains("safety_decision") &&
          response.value("response", json::object()).value("safety_acknowledgement", "") != "true") {
        return refuse(
            "Function call " + calls[c].value("name", "") +
            " carried a safety_decision: its function response must acknowledge it (safety_acknowledgement).");
      }
      for (const auto& shot : response.value("parts", json::array())) {
        const json& data = shot.value("inlineData", json());
        if (!data.is_object() || !data.value("mimeType", json()).is_string() ||
            !data.value("data", json()).is_string()) {
          return refuse("Function response parts must hold inlineData with its mimeType and data.");
        }
      }
    }
  }
  return std::nullopt;
}

std::optional<Refusal> gemini_refusal(const json& body, const std::string& authorization, const std::string& key,
                                      std::size_t body_bytes, std::size_t images) {
  if (!key.empty() && authorization != "Bearer " + key) {
    return gemini_error(400, "INVALID_ARGUMENT", "API key not valid. Please pass a valid API key.", "API_KEY_INVALID");
  }
  if (body_bytes > std::size_t{20} * 1024 * 1024) {
    return gemini_error(400, "INVALID_ARGUMENT", "Request payload size exceeds the limit: 20971520 bytes.");
  }
  if (images > 3600) return gemini_error(400, "INVALID_ARGUMENT", "Too many images: at most 3600 a request.");
  const std::string model = body.value("model", "");
  const Entry* entry = entry_for(model);
  if (entry == nullptr || entry->model.status == "retired" || entry->model.provider != "gemini") {
    return gemini_error(404, "NOT_FOUND",
                        "models/" + model +
                            " is not found for API version v1beta, or is not supported for "
                            "generateContent.");
  }
  if (body.contains("reasoning_effort")) {
    const std::string effort = body["reasoning_effort"].is_string() ? body["reasoning_effort"].get<std::string>() : "";
    if (effort != "none" && !has(entry->model.efforts, effort)) {
      std::string valid;
      for (const auto& known : entry->model.efforts) valid += known + ", ";
      return gemini_error(400, "INVALID_ARGUMENT",
                          "Invalid reasoning_effort: " + effort + ". Valid values are: " + valid + "none");
    }
    const json google = body.value("extra_body", json::object()).value("google", json::object());
    if (google.contains("thinking_config")) {
      return gemini_error(400, "INVALID_ARGUMENT",
                          "reasoning_effort and thinking_config cannot be used at the same time.");
    }
  }
  return std::nullopt;
}

std::optional<Refusal> anthropic_refusal(const json& body, const std::vector<ImageFacts>& images) {
  if (!body.contains("max_tokens")) return anthropic_error(400, "invalid_request_error", "max_tokens: Field required");
  const auto& system = body.value("system", json());
  if (system.is_array()) {
    for (std::size_t i = 0; i < system.size(); ++i) {
      if (auto refused = text_block_refusal(system[i], "system." + std::to_string(i))) return refused;
    }
  }
  std::size_t image_count = 0;
  const auto& messages = body.value("messages", json::array());
  for (std::size_t m = 0; m < messages.size(); ++m) {
    const auto& content = messages[m].value("content", json());
    if (content.is_string() && content.get<std::string>().empty()) {
      return anthropic_error(400, "invalid_request_error", "messages: text content blocks must be non-empty");
    }
    if (!content.is_array()) continue;
    for (std::size_t b = 0; b < content.size(); ++b) {
      if (auto refused =
              text_block_refusal(content[b], "messages." + std::to_string(m) + ".content." + std::to_string(b)))
        return refused;
      if (content[b].value("type", "") == "image") ++image_count;
    }
  }
  // https://docs.anthropic.com/en/docs/build-with-claude/vision: 5 MB of base64 an image (the API's own error
  // text), 8000x8000 px, 2000x2000 px when a request has more than 20 images.
  const int max_edge = image_count > 20 ? 2000 : 8000;
  for (std::size_t i = 0; i < images.size(); ++i) {
    if (images[i].base64_bytes > 5242880) {
      return anthropic_error(400, "invalid_request_error",
                             "messages.0.content." + std::to_string(i) +
                                 ".image.source.base64: image exceeds 5 MB maximum: " +
                                 std::to_string(images[i].base64_bytes) + " bytes > 5242880 bytes");
    }
    if (images[i].width > max_edge || images[i].height > max_edge) {
      return anthropic_error(400, "invalid_request_error",
                             "messages.0.content." + std::to_string(i) +
                                 ".image.source.base64.data: At least one of the image dimensions exceed max allowed "
                                 "size: " +
                                 std::to_string(max_edge) + " pixels");
    }
  }
  const std::string model = body.value("model", "");
  const Entry* entry = entry_for(model);
  if (entry != nullptr && (entry->model.status == "retired" || entry->model.provider != "anthropic")) {
    return anthropic_error(404, "not_found_error", "model: " + model);
  }
  const json config = body.value("output_config", json::object());
  if (config.contains("format")) {
    const auto& format = config["format"];
    if (format.value("type", "") != "json_schema" || !format.contains("schema")) {
      return anthropic_error(400, "invalid_request_error",
                             "output_config.format: type must be json_schema with a schema");
    }
    if (auto problem = anthropic_schema_problem(format["schema"], "output_config.format.schema")) {
      return anthropic_error(400, "invalid_request_error", *problem);
    }
  }
  if (entry == nullptr) return std::nullopt;  // a model nobody documented: only the API's own rules
  const CatalogueModel& facts = entry->model;
  const std::string effort = config.value("effort", "");
  if (!effort.empty() && !has(facts.efforts, effort)) {
    return anthropic_error(400, "invalid_request_error",
                           facts.efforts.empty() ? "output_config.effort: effort is not supported for this model"
                                                 : "output_config.effort: \"" + effort + "\" is not a supported value");
  }
  // Claude 5.x (and Opus 4.7 on): sampling parameters other than the default are refused.
  if (body.contains("temperature") && facts.temperature == "no" && body["temperature"] != 1) {
    return anthropic_error(400, "invalid_request_error", "`temperature` is not supported for this model.");
  }
  const std::string thinking = body.value("thinking", json::object()).value("type", "");
  const bool above_high = effort == "xhigh" || effort == "max";
  if (thinking == "enabled" && facts.thinking != "off") {
    return anthropic_error(400, "invalid_request_error",
                           "\"thinking.type.enabled\" is not supported for this model. Use \"thinking.type.adaptive\" "
                           "and \"output_config.effort\" to control thinking behavior.");
  }
  if (thinking == "disabled") {
    if (facts.thinking == "always") {
      return anthropic_error(
          400, "invalid_request_error",
          "\"thinking.type.disabled\" is not supported for this model. Use \"thinking.type.adaptive\" "
          "and \"output_config.effort\" to control thinking behavior.");
    }
    if (facts.thinking == "between_tools") {
      return anthropic_error(400, "invalid_request_error",
                             "To turn thinking off on this model, send \"thinking\": {\"type\": \"between_tools\"} "
                             "instead of {\"type\": \"disabled\"}.");
    }
    if (facts.thinking == "disabled" && above_high) {
      return anthropic_error(400, "invalid_request_error",
                             "thinking: disabled thinking is only supported at effort high or below");
    }
  }
  if (thinking == "between_tools" && (facts.thinking != "between_tools" || above_high)) {
    return anthropic_error(400, "invalid_request_error", "thinking: \"between_tools\" is not supported here");
  }
  const std::string choice = body.value("tool_choice", json::object()).value("type", "");
  if (choice == "tool" || choice == "any") {
    if (facts.thinking == "always" || facts.thinking == "between_tools") {
      return anthropic_error(400, "invalid_request_error",
                             "tool_choice: type \"tool\" and \"any\" are not supported for this model.");
    }
    if (thinking_on(body, entry)) {
      return anthropic_error(400, "invalid_request_error",
                             "Thinking may not be enabled when tool_choice forces tool use.");
    }
  }
  return std::nullopt;
}

int reasoning_spend(const json& body, bool anthropic) {
  const Entry* entry = entry_for(body.value("model", ""));
  if (entry == nullptr) return 0;
  if (anthropic) {
    if (!thinking_on(body, entry)) return 0;
    // Thinking at each effort (Anthropic: low "skips thinking for simple tasks"; the fake still thinks a little).
    const std::string effort = body.value("output_config", json::object()).value("effort", entry->default_effort);
    if (effort == "low") return 300;
    if (effort == "medium") return 1500;
    if (effort == "high") return 4000;
    if (effort == "xhigh") return 8000;
    return effort == "max" ? 16000 : 4000;
  }
  // A model that reasons at a level of its own (the Responses-only pro models) spends at its default.
  if (entry->model.efforts.empty() && entry->default_effort.empty()) return 0;
  const std::string effort = effective_effort(body, *entry);
  // gpt-5-nano spent 448 reasoning tokens on a one-line prompt at its default (llmbus notes, 2026-07-17): the
  // fake's sizes are of that order at low and grow with the effort.
  if (effort == "none") return 0;
  if (effort == "minimal") return 120;
  if (effort == "low") return 600;
  if (effort == "medium") return 2500;
  if (effort == "high") return 7000;
  if (effort == "xhigh") return 15000;
  return 30000;
}

bool fits_schema(const json& value, const json& schema) {
  if (!schema.is_object()) return false;
  if (schema.contains("anyOf")) {
    return std::any_of(schema["anyOf"].begin(), schema["anyOf"].end(),
                       [&value](const json& option) { return fits_schema(value, option); });
  }
  if (schema.contains("enum")) {
    const auto& options = schema["enum"];
    if (std::find(options.begin(), options.end(), value) == options.end()) return false;
  }
  if (!schema.contains("type")) return true;
  const json types = schema["type"].is_array() ? schema["type"] : json::array({schema["type"]});
  const auto type_fits = [&value](const std::string& type) {
    if (type == "object") return value.is_object();
    if (type == "array") return value.is_array();
    if (type == "string") return value.is_string();
    if (type == "boolean") return value.is_boolean();
    if (type == "integer") return value.is_number_integer();
    if (type == "number") return value.is_number();
    return type == "null" && value.is_null();
  };
  if (std::none_of(types.begin(), types.end(), [&](const json& type) { return type_fits(type.get<std::string>()); }))
    return false;
  if (value.is_object()) {
    const json& properties = schema.value("properties", json::object());
    for (const auto& key : schema.value("required", json::array())) {
      if (!value.contains(key.get<std::string>())) return false;
    }
    for (const auto& [key, member] : value.items()) {
      if (!properties.contains(key)) {
        if (schema.value("additionalProperties", json(true)) == false) return false;
        continue;
      }
      if (!fits_schema(member, properties[key])) return false;
    }
  }
  // Both services' grammars keep minItems (Anthropic's only up to 1).
  if (value.is_array() && value.size() < schema.value("minItems", std::size_t{0})) return false;
  if (value.is_array() && schema.contains("items")) {
    return std::all_of(value.begin(), value.end(),
                       [&schema](const json& item) { return fits_schema(item, schema["items"]); });
  }
  return true;
}

namespace {

// Anthropic's computer toolset (computer_toolset_20260801): its 17 members, the only keys its configs take.
constexpr std::array<std::string_view, 17> kToolsetMembers = {
    "cursor_position", "double_click",  "hold_key",     "key",        "left_click",  "left_click_drag",
    "left_mouse_down", "left_mouse_up", "middle_click", "mouse_move", "right_click", "screenshot",
    "scroll",          "triple_click",  "type",         "wait",       "zoom"};

std::optional<Refusal> toolset_entry_refusal(const json& tool, const std::string& where) {
  // The entry "carries only type, configs and cache_control": the single tool's fields are refused.
  for (const char* field : {"name", "display_width_px", "display_height_px", "display_number", "enable_zoom"}) {
    if (tool.contains(field)) {
      return anthropic_error(400, "invalid_request_error", where + "." + field + ": Extra inputs are not permitted");
    }
  }
  const json& configs = tool.value("configs", json::object());
  if (!configs.is_object()) return anthropic_error(400, "invalid_request_error", where + ".configs: not an object");
  for (const auto& [member, config] : configs.items()) {
    if (std::find(kToolsetMembers.begin(), kToolsetMembers.end(), member) == kToolsetMembers.end()) {
      return anthropic_error(400, "invalid_request_error",
                             where + ".configs." + member + ": Extra inputs are not permitted");
    }
    if (!config.is_object() && !config.is_null()) {
      return anthropic_error(400, "invalid_request_error", where + ".configs." + member + ": not an object");
    }
    const json& fields = config.is_object() ? config : json::object();
    for (const auto& [key, value] : fields.items()) {
      if ((key != "enabled" && key != "defer_loading") || !(value.is_boolean() || value.is_null())) {
        return anthropic_error(400, "invalid_request_error",
                               where + ".configs." + member + "." + key + ": Extra inputs are not permitted");
      }
    }
  }
  return std::nullopt;
}

}  // namespace

std::string anthropic_toolset_of(const json& body, const std::string& name) {
  for (const auto& tool : body.value("tools", json::array())) {
    if (tool.is_object() && tool.value("type", "").starts_with("computer_toolset_") &&
        std::find(kToolsetMembers.begin(), kToolsetMembers.end(), name) != kToolsetMembers.end()) {
      return "computer";
    }
  }
  return {};
}

std::optional<Refusal> anthropic_tool_refusal(const json& body, const std::string& beta) {
  const auto& tools = body.value("tools", json());
  if (!tools.is_null() && !tools.is_array())
    return anthropic_error(400, "invalid_request_error", "tools: Input should be a valid list");
  const Entry* entry = entry_for(body.value("model", ""));
  for (std::size_t i = 0; tools.is_array() && i < tools.size(); ++i) {
    const json& tool = tools[i];
    const std::string where = "tools." + std::to_string(i);
    const std::string type = tool.value("type", "");
    if (type.starts_with("computer_") && entry != nullptr && entry->model.computer_tool != type) {
      return anthropic_error(400, "invalid_request_error",
                             "'" + entry->model.id + "' does not support tool types: " + type + ".");
    }
    if (type.starts_with("computer_toolset_")) {
      if (auto refused = toolset_entry_refusal(tool, where)) return refused;
    } else if (type.starts_with("computer_")) {
      // computer_20251124 is turned on by computer-use-2025-11-24.
      const std::string date = type.substr(9);
      const std::string wanted =
          date.size() == 8 ? "computer-use-" + date.substr(0, 4) + "-" + date.substr(4, 2) + "-" + date.substr(6, 2)
                           : "";
      if (wanted.empty() || beta.find(wanted) == std::string::npos) {
        return anthropic_error(
            400, "invalid_request_error",
            where + ": the " + type + " tool needs the beta header \"anthropic-beta: " + wanted + "\"");
      }
      for (const char* side : {"display_width_px", "display_height_px"}) {
        const json& value = tool.value(side, json());
        if (!value.is_number_integer() || value.get<long long>() < 1) {
          return anthropic_error(400, "invalid_request_error",
                                 where + "." + side + ": Input should be a valid integer greater than 0");
        }
      }
      if (tool.value("name", "") != "computer") {
        return anthropic_error(400, "invalid_request_error", where + ".name: Input should be 'computer'");
      }
    } else if (type.empty() || type == "custom") {
      if (!tool.value("input_schema", json()).is_object() || tool.value("name", "").empty()) {
        return anthropic_error(400, "invalid_request_error", where + ": a tool needs a name and an input_schema");
      }
    }
  }
  // Each assistant message's tool_use blocks are answered, id by id, by tool_result blocks at the start of the next
  // user message; a tool_result answers only a tool_use of the message before it.
  const auto& messages = body.value("messages", json::array());
  std::vector<std::string> open;
  std::map<std::string, std::string> open_toolsets;  // a toolset member's tool_use id → its toolset_name
  for (std::size_t m = 0; m < messages.size(); ++m) {
    const auto& content = messages[m].value("content", json());
    const std::string role = messages[m].value("role", "");
    std::vector<std::string> used;
    std::map<std::string, std::string> used_toolsets;
    std::vector<std::string> answered;
    bool after_other = false;
    for (std::size_t b = 0; content.is_array() && b < content.size(); ++b) {
      const std::string type = content[b].value("type", "");
      if (type == "tool_use") {
        used.push_back(content[b].value("id", ""));
        if (content[b].contains("toolset_name")) {
          used_toolsets[used.back()] = content[b].value("toolset_name", "");
        }
      }
      if (type == "tool_result") {
        if (after_other || role != "user") {
          return anthropic_error(400, "invalid_request_error",
                                 "messages." + std::to_string(m) + ".content." + std::to_string(b) +
                                     ": tool_result blocks must come first in a user message");
        }
        const std::string id = content[b].value("tool_use_id", "");
        if (std::find(open.begin(), open.end(), id) == open.end()) {
          return anthropic_error(400, "invalid_request_error",
                                 "messages." + std::to_string(m) + ".content." + std::to_string(b) +
                                     ": unexpected `tool_use_id` found in `tool_result` blocks: " + id +
                                     ". Each `tool_result` block must have a corresponding `tool_use` block in the "
                                     "previous message.");
        }
        answered.push_back(id);
        // "For a toolset member tool_result, the toolset family of the paired tool_use": required, and only there.
        const auto paired = open_toolsets.find(id);
        const std::string wanted = paired == open_toolsets.end() ? std::string() : paired->second;
        if (content[b].value("toolset_name", json("")) != json(wanted)) {
          return anthropic_error(400, "invalid_request_error",
                                 "messages." + std::to_string(m) + ".content." + std::to_string(b) + ".toolset_name: " +
                                     (wanted.empty() ? "the paired tool_use belongs to no toolset"
                                                     : "must be '" + wanted + "', the paired tool_use's toolset"));
        }
        for (const auto& inner : content[b].value("content", json::array())) {
          if (auto refused = text_block_refusal(
                  inner, "messages." + std::to_string(m) + ".content." + std::to_string(b) + ".content")) {
            return refused;
          }
        }
      } else {
        after_other = true;
      }
    }
    for (const auto& id : open) {
      if (std::find(answered.begin(), answered.end(), id) == answered.end()) {
        return anthropic_error(400, "invalid_request_error",
                               "messages." + std::to_string(m) +
                                   ": `tool_use` ids were found without `tool_result` blocks immediately after: " + id +
                                   ". Each `tool_use` block must have a corresponding `tool_result` block in the next "
                                   "message.");
      }
    }
    open = role == "assistant" ? used : std::vector<std::string>{};
    open_toolsets = role == "assistant" ? used_toolsets : std::map<std::string, std::string>{};
  }
  if (!open.empty()) {
    return anthropic_error(400, "invalid_request_error",
                           "the last message is the assistant's, with a `tool_use` and no `tool_result` after it");
  }
  return std::nullopt;
}

std::optional<Refusal> responses_tool_refusal(const json& body) {
  const auto refuse = [](const std::string& message) { return openai_error(400, message, "", ""); };
  const Entry* entry = entry_for(body.value("model", ""));
  for (const auto& tool : body.value("tools", json::array())) {
    const std::string type = tool.value("type", "");
    if (type != "computer" && type != "computer_use_preview") continue;
    if (entry != nullptr && entry->model.computer_tool != type) {
      return refuse("Tool '" + type + "' is not supported with " + entry->model.id + ".");
    }
    if (type == "computer_use_preview" &&
        (!tool.value("display_width", json()).is_number_integer() || tool.value("environment", "").empty())) {
      return refuse("Missing required parameter: 'tools[0].display_width'.");
    }
  }
  const json input = body.value("input", json::array());
  const bool stored = body.value("store", true);
  std::map<std::string, json> calls;  // call_id → the call, until its output comes
  for (std::size_t i = 0; i < input.size(); ++i) {
    const json& item = input[i];
    const std::string type = item.value("type", "");
    if (type == "reasoning" && !stored && !item.contains("encrypted_content")) {
      return refuse("Item with id '" + item.value("id", "") +
                    "' not found. Items are not persisted when `store` is set to false. Try again with `store` set "
                    "to true, or remove this item from your input.");
    }
    if (type == "computer_call") {
      // The reasoning that led to the call comes right before it (before the first of a reply's calls).
      std::size_t before = i;
      while (before > 0 && (input[before - 1].value("type", "") == "computer_call" ||
                            input[before - 1].value("type", "") == "function_call")) {
        --before;
      }
      if (before == 0 || input[before - 1].value("type", "") != "reasoning") {
        return refuse("Item '" + item.value("id", "") +
                      "' of type 'computer_call' was provided without its required "
                      "'reasoning' item.");
      }
    }
    if (type == "computer_call" || type == "function_call") calls[item.value("call_id", "")] = item;
    if (type == "computer_call_output" || type == "function_call_output") {
      const std::string id = item.value("call_id", "");
      const auto call = calls.find(id);
      if (call == calls.end()) return refuse("No tool call found for " + type + " with call_id " + id + ".");
      if (type == "computer_call_output") {
        const json& shot = item.value("output", json());
        if (!shot.is_object() || shot.value("type", "") != "computer_screenshot" ||
            !shot.value("image_url", json()).is_string()) {
          return refuse("Missing required parameter: 'input[" + std::to_string(i) + "].output.image_url'.");
        }
        const json pending = call->second.value("pending_safety_checks", json::array());
        const json acknowledged = item.value("acknowledged_safety_checks", json::array());
        for (const auto& check : pending) {
          const bool named = std::any_of(acknowledged.begin(), acknowledged.end(), [&](const json& given) {
            return given.value("id", "") == check.value("id", "");
          });
          if (!named) return refuse("Safety check " + check.value("id", "") + " was not acknowledged.");
        }
      }
      calls.erase(call);
    }
  }
  if (!calls.empty()) return refuse("No tool output found for computer call " + calls.begin()->first + ".");
  return std::nullopt;
}

}  // namespace vimgpt::test
