#include "support/fake_model_server.h"

#include <httplib.h>
#include <stb_image.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cmath>
#include <regex>
#include <stdexcept>

#include "common/text.h"

namespace vimgpt::test {
namespace {

using nlohmann::json;

// Deliberately separate from the client's base64 so a bug there cannot hide itself.
std::optional<std::string> decode_base64(std::string_view text) {
  std::array<int, 256> table{};
  table.fill(-1);
  const std::string_view alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  for (std::size_t i = 0; i < alphabet.size(); ++i)
    table[static_cast<unsigned char>(alphabet[i])] = static_cast<int>(i);
  if (text.size() % 4 != 0) return std::nullopt;
  std::string out;
  unsigned buffer = 0;
  int bits = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] == '=') {
      if (i + 2 < text.size()) return std::nullopt;
      break;
    }
    const int value = table[static_cast<unsigned char>(text[i])];
    if (value < 0) return std::nullopt;
    buffer = (buffer << 6U) | static_cast<unsigned>(value);
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      out.push_back(static_cast<char>((buffer >> static_cast<unsigned>(bits)) & 0xFFU));
    }
  }
  return out;
}

ReceivedImage inspect_image(std::string declared_mime, std::string_view bytes, std::string detail, bool decode) {
  ReceivedImage image;
  image.declared_mime = std::move(declared_mime);
  image.sniffed_mime = sniff_image_mime(bytes);
  image.detail = std::move(detail);
  image.bytes = bytes.size();
  int width = 0;
  int height = 0;
  int channels = 0;
  const auto* data = reinterpret_cast<const stbi_uc*>(bytes.data());
  const int size = static_cast<int>(bytes.size());
  if (!decode) {
    if (stbi_info_from_memory(data, size, &width, &height, &channels) != 0) {
      image.width = width;
      image.height = height;
    }
    return image;
  }
  // A full decode, not just the header: a truncated or corrupt image must fail here as it would at the provider.
  stbi_uc* pixels = stbi_load_from_memory(data, size, &width, &height, &channels, 3);
  if (pixels != nullptr) {
    image.width = width;
    image.height = height;
    stbi_image_free(pixels);
  }
  return image;
}

// An image sent as base64 with its declared MIME type (Anthropic's source, Gemini's inlineData): kept with its size as
// sent; `problem` recorded when it is not base64.
void add_base64_image(ReceivedRequest& received, std::string mime, const std::string& base64, bool decode,
                      const char* problem) {
  auto bytes = decode_base64(base64);
  if (!bytes) {
    received.problems.emplace_back(problem);
    return;
  }
  received.images.push_back(inspect_image(std::move(mime), *bytes, "", decode));
  received.images.back().base64_bytes = base64.size();
}

void append_text(std::string& text, std::string_view part) {
  if (!text.empty()) text += '\n';
  text += part;
}

void read_openai(const json& body, ReceivedRequest& received, bool decode) {
  if (!body.contains("messages") || !body["messages"].is_array()) {
    received.problems.emplace_back("no messages array");
    return;
  }
  for (const auto& message : body["messages"]) {
    const auto& content = message.value("content", json());
    if (content.is_string()) {
      append_text(received.text, content.get<std::string>());
      continue;
    }
    if (!content.is_array()) continue;
    for (const auto& part : content) {
      const std::string type = part.value("type", "");
      if (type == "text") {
        append_text(received.text, part.value("text", ""));
      } else if (type == "image_url") {
        const auto& image_url = part.value("image_url", json::object());
        const std::string url = image_url.value("url", "");
        auto decoded = decode_data_url(url);
        if (!decoded) {
          received.problems.push_back("image_url is not a base64 data URL: " + url.substr(0, 40));
          continue;
        }
        received.images.push_back(
            inspect_image(decoded->first, decoded->second, image_url.value("detail", ""), decode));
        received.images.back().base64_bytes = url.size() - url.find(',') - 1;
      }
    }
  }
  const auto& format = body.value("response_format", json());
  received.structured = format.is_object() && format.value("type", "") == "json_schema" &&
                        format.contains("json_schema") && format["json_schema"].contains("schema") &&
                        format["json_schema"]["schema"].is_object();
  if (received.structured) received.schema = format["json_schema"]["schema"];
}

// OpenAI's Responses API: instructions, then input items whose content is a string or input_text / input_image parts;
// structured output is text.format.
void read_responses(const json& body, ReceivedRequest& received, bool decode) {
  if (body.value("instructions", json()).is_string())
    append_text(received.text, body["instructions"].get<std::string>());
  const json& input = body.value("input", json());
  if (input.is_string()) append_text(received.text, input.get<std::string>());
  for (const auto& item : input.is_array() ? input : json::array()) {
    json content = item.value("content", json());
    if (content.is_string()) append_text(received.text, content.get<std::string>());
    // A computer_call_output's screenshot counts as the request's image.
    if (item.value("type", "") == "computer_call_output") {
      // (It has no detail field: the API's own choice, "auto" for the rules here.)
      content = json::array({{{"type", "input_image"},
                              {"image_url", item.value("output", json::object()).value("image_url", json())},
                              {"detail", "auto"}}});
    }
    if (!content.is_array()) continue;
    for (const auto& part : content) {
      const std::string type = part.value("type", "");
      if (type == "input_text") append_text(received.text, part.value("text", ""));
      if (type != "input_image" || !part.value("image_url", json()).is_string()) continue;
      const std::string url = part["image_url"].get<std::string>();
      auto decoded = decode_data_url(url);
      if (!decoded) {
        received.problems.push_back("input_image is not a base64 data URL: " + url.substr(0, 40));
        continue;
      }
      received.images.push_back(inspect_image(decoded->first, decoded->second, part.value("detail", ""), decode));
      received.images.back().base64_bytes = url.size() - url.find(',') - 1;
    }
  }
  const json format = body.value("text", json::object()).value("format", json());
  received.structured =
      format.is_object() && format.value("type", "") == "json_schema" && format.value("schema", json()).is_object();
  if (received.structured) received.schema = format["schema"];
}

// Google's native API: systemInstruction and contents of parts (text, inlineData, and a functionResponse's own
// response words and inlineData parts).
void read_gemini(const json& body, ReceivedRequest& received, bool decode) {
  const auto read_parts = [&](const json& parts) {
    for (const auto& part : parts.is_array() ? parts : json::array()) {
      if (part.value("text", json()).is_string()) append_text(received.text, part["text"].get<std::string>());
      const json& data = part.value("inlineData", json());
      if (data.is_object()) {
        add_base64_image(received, data.value("mimeType", ""), data.value("data", ""), decode,
                         "inlineData is not base64");
      }
    }
  };
  read_parts(body.value("systemInstruction", json::object()).value("parts", json::array()));
  for (const auto& content : body.value("contents", json::array())) {
    const json parts = content.value("parts", json::array());
    read_parts(parts);
    for (const auto& part : parts.is_array() ? parts : json::array()) {
      const json& answer = part.value("functionResponse", json());
      if (!answer.is_object()) continue;
      append_text(received.text, answer.value("response", json::object()).dump());
      read_parts(answer.value("parts", json::array()));
    }
  }
}

void read_anthropic(const json& body, ReceivedRequest& received, bool decode) {
  const auto& system = body.value("system", json());
  if (system.is_string()) append_text(received.text, system.get<std::string>());
  if (system.is_array()) {
    for (const auto& block : system) append_text(received.text, block.value("text", ""));
  }
  if (!body.contains("messages") || !body["messages"].is_array()) {
    received.problems.emplace_back("no messages array");
    return;
  }
  if (!body.contains("max_tokens")) received.problems.emplace_back("Anthropic requires max_tokens");
  for (const auto& message : body["messages"]) {
    const auto& content = message.value("content", json());
    if (content.is_string()) {
      append_text(received.text, content.get<std::string>());
      continue;
    }
    if (!content.is_array()) continue;
    // A tool_result's own blocks (a computer tool's words and screenshot) count as the message's.
    json blocks = json::array();
    for (const auto& block : content) {
      if (block.value("type", "") == "tool_result" && block.value("content", json()).is_array()) {
        for (const auto& inner : block["content"]) blocks.push_back(inner);
      } else {
        blocks.push_back(block);
      }
    }
    for (const auto& block : blocks) {
      const std::string type = block.value("type", "");
      if (type == "text") {
        append_text(received.text, block.value("text", ""));
      } else if (type == "image") {
        const auto& source = block.value("source", json::object());
        if (source.value("type", "") != "base64") {
          received.problems.emplace_back("image source is not base64");
          continue;
        }
        add_base64_image(received, source.value("media_type", ""), source.value("data", ""), decode,
                         "image data is not valid base64");
      }
    }
  }
  const auto& format = body.value("output_config", json::object()).value("format", json());
  if (format.is_object() && format.value("schema", json()).is_object()) {
    received.structured = true;
    received.schema = format["schema"];
    return;
  }
  const auto& tools = body.value("tools", json());
  const auto& choice = body.value("tool_choice", json());
  received.structured = tools.is_array() && !tools.empty() && choice.is_object() &&
                        choice.value("type", "") == "tool" && tools[0].contains("input_schema") &&
                        tools[0]["input_schema"].is_object();
  if (received.structured) received.schema = tools[0]["input_schema"];
}

// One block of a prompt as a provider's cache sees it: what it holds, what it costs, and whether the request
// marks a cache breakpoint after it.
struct Block {
  std::size_t hash = 0;
  int tokens = 0;
  bool breakpoint = false;
};

int text_tokens(std::string_view text) {
  return static_cast<int>((text.size() + 3) / 4);
}

// OpenAI's published rule (https://platform.openai.com/docs/guides/vision#calculating-costs), counted as high.
int image_tokens(const ReceivedImage& image) {
  if (image.detail == "low") return 85;
  double w = image.width;
  double h = image.height;
  if (const double longest = std::max(w, h); longest > 2048) w *= 2048 / longest, h *= 2048 / longest;
  if (const double shortest = std::min(w, h); shortest > 768) w *= 768 / shortest, h *= 768 / shortest;
  return 170 * static_cast<int>(std::ceil(w / 512) * std::ceil(h / 512)) + 85;
}

// The prompt in the order a provider reads it: tools or schema, system, then each message's blocks.
std::vector<Block> prompt_blocks(const ReceivedRequest& received) {
  std::vector<Block> blocks;
  const json& body = received.body;
  const auto text_block = [&blocks](const std::string& text, bool breakpoint) {
    blocks.push_back({std::hash<std::string>{}(text), text_tokens(text), breakpoint});
  };
  const auto marked = [](const json& block) { return block.is_object() && block.contains("cache_control"); };
  if (body.contains("tools")) text_block(body["tools"].dump(), false);
  if (body.contains("response_format")) text_block(body["response_format"].dump(), false);
  if (body.contains("text")) text_block(body["text"].dump(), false);
  if (body.value("instructions", json()).is_string()) text_block(body["instructions"].get<std::string>(), false);
  if (body.contains("output_config")) text_block(body["output_config"].dump(), false);
  const auto& system = body.value("system", json());
  if (system.is_string()) text_block(system.get<std::string>(), false);
  if (system.is_array()) {
    for (const auto& block : system) text_block(block.value("text", ""), marked(block));
  }
  std::size_t image = 0;
  const json& messages = body.contains("input") ? body["input"] : body.value("messages", json::array());
  for (const auto& message : messages.is_array() ? messages : json::array()) {
    const auto& content = message.value("content", json());
    if (content.is_string()) text_block(content.get<std::string>(), false);
    if (!content.is_array()) continue;
    for (const auto& part : content) {
      const std::string type = part.value("type", "");
      if (type == "text" || type == "input_text") {
        text_block(part.value("text", ""), marked(part));
      } else if ((type == "image" || type == "image_url" || type == "input_image") && image < received.images.size()) {
        // The image's own bytes, as sent: its data URL or base64 text.
        const std::string data = type == "image"       ? part["source"].value("data", "")
                                 : type == "image_url" ? part["image_url"].value("url", "")
                                                       : part.value("image_url", "");
        blocks.push_back({std::hash<std::string>{}(data), image_tokens(received.images[image++]), marked(part)});
      }
    }
  }
  return blocks;
}

// Hashes of every prefix: element i stands for blocks [0, i].
std::vector<std::size_t> prefix_hashes(const std::vector<Block>& blocks) {
  std::vector<std::size_t> hashes;
  std::size_t hash = 0;
  for (const auto& block : blocks) {
    hash = hash * 1000003U ^ block.hash;
    hashes.push_back(hash);
  }
  return hashes;
}

constexpr int kMinimumCachedTokens = 1024;

// What the model spends: its reasoning first, then the answer, both out of the request's cap.
struct Spend {
  int reasoning = 0;
  int completion = 0;
  bool cut_off = false;  // the cap ran out before the answer: no answer at all
};

// Gemini thinks at the level sent (its default, medium, when none is): the fake's sizes, as reasoning_spend's.
int gemini_thinking_spend(const json& body) {
  const std::string level = body.value("generationConfig", json::object())
                                .value("thinkingConfig", json::object())
                                .value("thinkingLevel", "MEDIUM");
  return level == "LOW" ? 600 : level == "HIGH" ? 7000 : 2500;
}

Spend spend_of(ApiFlavor flavor, Service service, const ReceivedRequest& received, const ScriptedReply& reply) {
  Spend spend;
  // A compatible server's model is whatever it runs: it reasons only when the script says so.
  const bool provider = flavor == ApiFlavor::Anthropic || service != Service::Compatible;
  spend.reasoning = reply.reasoning_tokens >= 0         ? reply.reasoning_tokens
                    : flavor == ApiFlavor::GeminiNative ? gemini_thinking_spend(received.body)
                    : provider                          ? reasoning_spend(received.body, flavor == ApiFlavor::Anthropic)
                                                        : 0;
  spend.completion = spend.reasoning + reply.completion_tokens;
  const json& body = received.body;
  const json& generation = body.value("generationConfig", json::object());
  const json cap = generation.contains("maxOutputTokens")   ? generation["maxOutputTokens"]
                   : body.contains("max_output_tokens")     ? body["max_output_tokens"]
                   : body.contains("max_completion_tokens") ? body["max_completion_tokens"]
                                                            : body.value("max_tokens", json());
  if (cap.is_number_integer() && spend.completion > cap.get<int>()) {
    spend.cut_off = true;
    spend.completion = cap.get<int>();
    spend.reasoning = std::min(spend.reasoning, spend.completion);
  }
  return spend;
}

json usage_json(ApiFlavor flavor, const ScriptedReply& reply, const ReceivedRequest::Cache& cache, const Spend& spend) {
  const int prompt = cache.asked ? cache.prompt_tokens : reply.prompt_tokens;
  if (flavor == ApiFlavor::GeminiNative) {  // thoughts are counted apart from the candidates' tokens
    return {{"promptTokenCount", prompt},
            {"candidatesTokenCount", spend.completion - spend.reasoning},
            {"thoughtsTokenCount", spend.reasoning},
            {"totalTokenCount", prompt + spend.completion}};
  }
  if (flavor == ApiFlavor::OpenAIResponses) {
    return {{"input_tokens", prompt},
            {"input_tokens_details", {{"cached_tokens", cache.read}, {"cache_write_tokens", cache.written}}},
            {"output_tokens", spend.completion},
            {"output_tokens_details", {{"reasoning_tokens", spend.reasoning}}},
            {"total_tokens", prompt + spend.completion}};
  }
  if (flavor == ApiFlavor::OpenAI) {
    json usage = {{"prompt_tokens", prompt},
                  {"completion_tokens", spend.completion},
                  {"total_tokens", prompt + spend.completion},
                  {"completion_tokens_details", {{"reasoning_tokens", spend.reasoning}}}};
    if (cache.asked) {
      usage["prompt_tokens_details"] = {{"cached_tokens", cache.read}, {"cache_write_tokens", cache.written}};
    }
    return usage;
  }
  json usage = {{"input_tokens", prompt - cache.read - cache.written},
                {"output_tokens", spend.completion},
                {"output_tokens_details", {{"thinking_tokens", spend.reasoning}}}};
  if (cache.asked) {
    usage["cache_read_input_tokens"] = cache.read;
    usage["cache_creation_input_tokens"] = cache.written;
  }
  return usage;
}

std::string success_body(ApiFlavor flavor, Service service, const ReceivedRequest& received, const ScriptedReply& reply,
                         const std::string& content) {
  const Spend spend = spend_of(flavor, service, received, reply);
  const std::string finish = spend.cut_off ? "length" : reply.finish_reason;
  const std::string text = spend.cut_off ? "" : content;
  if (flavor == ApiFlavor::GeminiNative) {
    static std::atomic<int> signatures_made{0};
    json parts = json::array();
    if (!text.empty() && reply.fault == Fault::None) parts.push_back({{"text", text}});
    for (const auto& use : reply.tool_uses.is_array() && !spend.cut_off ? reply.tool_uses : json::array()) {
      parts.push_back({{"functionCall", {{"name", use.value("name", "")}, {"args", use.value("args", json::object())}}},
                       {"thoughtSignature", "sig-fake-" + std::to_string(++signatures_made)}});
    }
    if (reply.fault == Fault::NoChoices)
      return json{{"candidates", json::array()}, {"usageMetadata", usage_json(flavor, reply, received.cache, spend)}}
          .dump();
    const std::string reason = spend.cut_off || finish == "length" ? "MAX_TOKENS"
                               : reply.fault == Fault::Refusal     ? "SAFETY"
                                                                   : "STOP";
    json candidate = {{"finishReason", reason}, {"index", 0}};
    if (!parts.empty()) candidate["content"] = {{"role", "model"}, {"parts", std::move(parts)}};
    return json{{"candidates", json::array({std::move(candidate)})},
                {"usageMetadata", usage_json(flavor, reply, received.cache, spend)},
                {"modelVersion", received.model}}
        .dump();
  }
  if (flavor == ApiFlavor::OpenAIResponses) {
    json output = json::array();
    static std::atomic<int> items_made{0};
    const std::string n = std::to_string(++items_made);
    // With store false the reasoning is only sent back encrypted, when the request asks for it (include).
    const json include = received.body.value("include", json::array());
    const bool encrypted = std::find(include.begin(), include.end(), "reasoning.encrypted_content") != include.end();
    if (spend.reasoning > 0 || reply.tool_uses.is_array()) {
      json reasoning = {{"type", "reasoning"}, {"id", "rs_fake" + n}, {"summary", json::array()}};
      if (encrypted) reasoning["encrypted_content"] = "sealed-rs_fake" + n;
      output.push_back(std::move(reasoning));
    }
    const bool incomplete = finish == "length";
    if (reply.tool_uses.is_array()) {
      // A computer tool's calls: {"name": "computer", "actions": [...], "pending_safety_checks": [...]} or
      // {"name": "browser", "arguments": {...}}.
      int call = 0;
      for (const auto& use : reply.tool_uses) {
        const std::string id = n + "_" + std::to_string(++call);
        if (use.value("name", "") == "computer") {
          output.push_back({{"type", "computer_call"},
                            {"id", "cu_fake" + id},
                            {"call_id", "call_fake" + id},
                            {"actions", use.value("actions", json::array())},
                            {"pending_safety_checks", use.value("pending_safety_checks", json::array())},
                            {"status", "completed"}});
        } else {
          output.push_back({{"type", "function_call"},
                            {"id", "fc_fake" + id},
                            {"call_id", "call_fake" + id},
                            {"name", use.value("name", "")},
                            {"arguments", use.value("arguments", json::object()).dump()},
                            {"status", "completed"}});
        }
      }
    } else if (reply.fault != Fault::NoChoices && !spend.cut_off) {
      json part = reply.fault == Fault::Refusal
                      ? json{{"type", "refusal"}, {"refusal", content}}
                      : json{{"type", "output_text"}, {"text", text}, {"annotations", json::array()}};
      output.push_back({{"type", "message"},
                        {"id", "msg_fake"},
                        {"role", "assistant"},
                        {"status", incomplete ? "incomplete" : "completed"},
                        {"content", json::array({part})}});
    }
    return json{{"id", "resp_fake"},
                {"object", "response"},
                {"created_at", 0},
                {"model", received.model},
                {"status", incomplete ? "incomplete" : "completed"},
                {"incomplete_details", incomplete ? json{{"reason", "max_output_tokens"}} : json()},
                {"error", nullptr},
                {"output", output},
                {"usage", usage_json(flavor, reply, received.cache, spend)}}
        .dump();
  }
  if (flavor == ApiFlavor::OpenAI) {
    json choices = json::array();
    if (reply.fault != Fault::NoChoices) {
      json message = {{"role", "assistant"}, {"content", text}};
      if (reply.fault == Fault::Refusal) message = {{"role", "assistant"}, {"content", nullptr}, {"refusal", content}};
      choices.push_back({{"index", 0}, {"message", message}, {"finish_reason", finish}});
    }
    return json{{"id", "chatcmpl-fake"}, {"object", "chat.completion"},
                {"created", 0},          {"model", received.model},
                {"choices", choices},    {"usage", usage_json(flavor, reply, received.cache, spend)}}
        .dump();
  }
  json blocks = json::array();
  std::string stop_reason = finish == "length" ? "max_tokens" : "end_turn";
  json stop_details = nullptr;
  // Thinking comes first, its text empty as the current models send it by default (display "omitted").
  if (spend.reasoning > 0) blocks.push_back({{"type", "thinking"}, {"thinking", ""}, {"signature", "fake-signature"}});
  if (reply.fault == Fault::Refusal) {
    stop_reason = "refusal";
    stop_details = {{"type", "refusal"}, {"category", nullptr}, {"explanation", content}};
  } else if (reply.fault != Fault::NoChoices && !spend.cut_off) {
    json input = json::parse(text, nullptr, false);
    if (reply.tool_uses.is_array()) {
      // A tool loop's calls, each with an id of its own as the real ones have.
      if (!text.empty()) blocks.push_back({{"type", "text"}, {"text", text}});
      static std::atomic<int> calls_made{0};
      for (const auto& call : reply.tool_uses) {
        const std::string name = call.value("name", "computer");
        json block = {{"type", "tool_use"},
                      {"id", "toolu_fake" + std::to_string(++calls_made)},
                      {"name", name},
                      {"input", call.value("input", json::object())}};
        if (std::string toolset = anthropic_toolset_of(received.body, name); !toolset.empty()) {
          block["toolset_name"] = std::move(toolset);
        }
        blocks.push_back(std::move(block));
      }
      stop_reason = "tool_use";
    } else if (received.structured && received.body.contains("tools") && input.is_object()) {
      const std::string tool = received.body["tools"][0].value("name", "");
      blocks.push_back({{"type", "tool_use"}, {"id", "toolu_fake"}, {"name", tool}, {"input", input}});
      stop_reason = "tool_use";
    } else {
      blocks.push_back({{"type", "text"}, {"text", text}});
    }
  }
  if (reply.fault == Fault::NoChoices) blocks = json::array();
  return json{{"id", "msg_fake"},
              {"type", "message"},
              {"role", "assistant"},
              {"model", received.model},
              {"content", blocks},
              {"stop_reason", stop_reason},
              {"stop_details", stop_details},
              {"usage", usage_json(flavor, reply, received.cache, spend)}}
      .dump();
}

std::string error_body(ApiFlavor flavor, Service service, int status, const std::string& message) {
  if (flavor == ApiFlavor::GeminiNative || (flavor != ApiFlavor::Anthropic && service == Service::Gemini)) {
    const std::string google_status = status == 400   ? "INVALID_ARGUMENT"
                                      : status == 403 ? "PERMISSION_DENIED"
                                      : status == 404 ? "NOT_FOUND"
                                      : status == 429 ? "RESOURCE_EXHAUSTED"
                                      : status == 503 ? "UNAVAILABLE"
                                                      : "INTERNAL";
    if (flavor == ApiFlavor::GeminiNative) return gemini_native_error(status, google_status, message).body.dump();
    return gemini_error(status, google_status, message).body.dump();
  }
  if (flavor != ApiFlavor::Anthropic) {
    return json{{"error", {{"message", message}, {"type", "invalid_request_error"}, {"code", status}}}}.dump();
  }
  return json{{"type", "error"}, {"error", {{"type", "invalid_request_error"}, {"message", message}}}}.dump();
}

}  // namespace

std::string ReceivedRequest::header(std::string_view name) const {
  const std::string wanted = ascii_lower(std::string(name));
  for (const auto& [key, value] : headers) {
    if (key == wanted) return value;
  }
  return {};
}

ScriptedReply ScriptedReply::text(std::string content) {
  ScriptedReply reply;
  reply.content = std::move(content);
  return reply;
}

ScriptedReply ScriptedReply::status_code(int status, std::string message,
                                         std::vector<std::pair<std::string, std::string>> headers) {
  ScriptedReply reply;
  reply.status = status;
  reply.content = message.empty() ? "fake error " + std::to_string(status) : std::move(message);
  reply.headers = std::move(headers);
  return reply;
}

ScriptedReply ScriptedReply::slow(std::chrono::milliseconds delay, std::string content) {
  ScriptedReply reply = text(std::move(content));
  reply.delay = delay;
  return reply;
}

ScriptedReply ScriptedReply::tool_use(json calls, std::string text) {
  ScriptedReply reply = ScriptedReply::text(std::move(text));
  reply.tool_uses = std::move(calls);
  return reply;
}

ScriptedReply ScriptedReply::cut_connection() {
  ScriptedReply reply;
  reply.fault = Fault::CutConnection;
  return reply;
}

ScriptedReply ScriptedReply::no_choices() {
  ScriptedReply reply;
  reply.fault = Fault::NoChoices;
  return reply;
}

ScriptedReply ScriptedReply::oversized(std::size_t bytes) {
  ScriptedReply reply = text(R"({"type": ")" + std::string(bytes, 'x') + R"("})");
  return reply;
}

ScriptedReply ScriptedReply::reject_response_format() {
  ScriptedReply reply;
  reply.fault = Fault::RejectResponseFormat;
  return reply;
}

ScriptedReply ScriptedReply::refusal(std::string explanation) {
  ScriptedReply reply = text(std::move(explanation));
  reply.fault = Fault::Refusal;
  return reply;
}

ScriptedReply ScriptedReply::truncated(std::string content) {
  ScriptedReply reply = text(std::move(content));
  reply.finish_reason = "length";
  return reply;
}

std::optional<std::pair<std::string, std::string>> decode_data_url(std::string_view url) {
  constexpr std::string_view kPrefix = "data:";
  constexpr std::string_view kMarker = ";base64,";
  if (!url.starts_with(kPrefix)) return std::nullopt;
  const auto marker = url.find(kMarker);
  if (marker == std::string_view::npos) return std::nullopt;
  auto bytes = decode_base64(url.substr(marker + kMarker.size()));
  if (!bytes) return std::nullopt;
  return std::make_pair(std::string(url.substr(kPrefix.size(), marker - kPrefix.size())), std::move(*bytes));
}

std::string sniff_image_mime(std::string_view bytes) {
  if (bytes.starts_with("\x89PNG\r\n\x1a\n")) return "image/png";
  if (bytes.starts_with("\xFF\xD8\xFF")) return "image/jpeg";
  if (bytes.starts_with("GIF87a") || bytes.starts_with("GIF89a")) return "image/gif";
  if (bytes.size() >= 12 && bytes.substr(0, 4) == "RIFF" && bytes.substr(8, 4) == "WEBP") return "image/webp";
  return {};
}

FakeModelServer::FakeModelServer(Expectations expectations)
    : server_(std::make_unique<httplib::Server>()), expectations_(std::move(expectations)) {
  server_->Post("/v1/chat/completions", [this](const httplib::Request& request, httplib::Response& response) {
    handle(ApiFlavor::OpenAI, request, response);
  });
  server_->Post("/v1beta/openai/chat/completions",
                [this](const httplib::Request& request, httplib::Response& response) {
                  handle(ApiFlavor::OpenAI, request, response);
                });
  server_->Post("/v1/responses", [this](const httplib::Request& request, httplib::Response& response) {
    handle(ApiFlavor::OpenAIResponses, request, response);
  });
  server_->Post("/v1/messages", [this](const httplib::Request& request, httplib::Response& response) {
    handle(ApiFlavor::Anthropic, request, response);
  });
  server_->Post(R"(/v1beta/models/([^/:]+):generateContent)",
                [this](const httplib::Request& request, httplib::Response& response) {
                  handle(ApiFlavor::GeminiNative, request, response);
                });
  server_->set_payload_max_length(std::size_t{64} * 1024 * 1024);
  // Headers and body go out in separate writes; without NODELAY, Nagle plus the client's delayed ACK adds
  // ~40 ms to every reply.
  server_->set_tcp_nodelay(true);
  port_ = server_->bind_to_any_port("127.0.0.1");
  if (port_ <= 0) throw std::runtime_error("fake model server: cannot bind 127.0.0.1");
  thread_ = std::thread([this] { server_->listen_after_bind(); });
  // The socket already listens (connections queue in the backlog); wait for the accept loop so stop() in the
  // destructor cannot race its start.
  while (!server_->is_running()) std::this_thread::yield();
}

FakeModelServer::~FakeModelServer() {
  {
    std::scoped_lock lock(mutex_);
    stopping_ = true;
  }
  stopping_cv_.notify_all();
  server_->stop();
  thread_.join();
}

void FakeModelServer::push_reply(std::string content) {
  push(ScriptedReply::text(std::move(content)));
}

void FakeModelServer::push(ScriptedReply reply) {
  std::scoped_lock lock(mutex_);
  script_.push_back(std::move(reply));
}

void FakeModelServer::set_default_reply(std::string content) {
  std::scoped_lock lock(mutex_);
  default_reply_ = std::move(content);
}

void FakeModelServer::set_responder(Responder responder) {
  std::scoped_lock lock(mutex_);
  responder_ = std::move(responder);
}

void FakeModelServer::expect(Expectations expectations) {
  std::scoped_lock lock(mutex_);
  expectations_ = std::move(expectations);
}

std::string FakeModelServer::url() const {
  return "http://127.0.0.1:" + std::to_string(port_) + "/v1";
}

std::string FakeModelServer::gemini_url() const {
  return "http://127.0.0.1:" + std::to_string(port_) + "/v1beta/openai";
}

std::vector<ReceivedRequest> FakeModelServer::requests() const {
  std::scoped_lock lock(mutex_);
  return requests_;
}

std::size_t FakeModelServer::request_count() const {
  std::scoped_lock lock(mutex_);
  return requests_.size();
}

std::size_t FakeModelServer::pending_replies() const {
  std::scoped_lock lock(mutex_);
  return script_.size();
}

std::vector<std::string> FakeModelServer::problems() const {
  std::scoped_lock lock(mutex_);
  std::vector<std::string> all;
  for (std::size_t i = 0; i < requests_.size(); ++i) {
    for (const auto& problem : requests_[i].problems)
      all.push_back("request " + std::to_string(i + 1) + ": " + problem);
  }
  return all;
}

void FakeModelServer::check(ReceivedRequest& received) const {
  const Expectations& want = expectations_;
  const bool google = want.service == Service::Gemini;
  if (google && received.flavor != ApiFlavor::GeminiNative && !received.path.starts_with("/v1beta/openai/")) {
    received.problems.push_back("sent to " + received.path + ", not Google's /v1beta/openai/chat/completions");
  }
  // (Google answers a wrong key itself: gemini_refusal, gemini_native_refusal.)
  if (!want.api_key.empty() && !google && received.flavor != ApiFlavor::GeminiNative) {
    if (received.flavor != ApiFlavor::Anthropic && received.header("authorization") != "Bearer " + want.api_key) {
      received.problems.emplace_back("missing or wrong Authorization: Bearer header");
    }
    if (received.flavor == ApiFlavor::Anthropic && received.header("x-api-key") != want.api_key) {
      received.problems.emplace_back("missing or wrong x-api-key header");
    }
  }
  if (received.flavor == ApiFlavor::Anthropic && received.header("anthropic-version").empty()) {
    received.problems.emplace_back("missing anthropic-version header");
  }
  if (!want.model.empty() && received.model != want.model) {
    received.problems.push_back("model is \"" + received.model + "\", expected \"" + want.model + "\"");
  }
  if (want.images != 0 && received.images.size() != want.images) {
    received.problems.push_back(std::to_string(received.images.size()) + " images, expected " +
                                std::to_string(want.images));
  }
  for (const auto& image : received.images) {
    if (image.width == 0) received.problems.emplace_back("an image does not decode");
    if (image.sniffed_mime.empty() || image.sniffed_mime != image.declared_mime) {
      received.problems.push_back("image declared " + image.declared_mime + " but its bytes are " +
                                  (image.sniffed_mime.empty() ? "unknown" : image.sniffed_mime));
    }
    if (want.image_width != 0 && image.width != 0 && image.width != want.image_width) {
      received.problems.push_back("image width " + std::to_string(image.width) + ", expected " +
                                  std::to_string(want.image_width));
    }
  }
  if (want.structured == Requirement::Required && !received.structured) {
    received.problems.emplace_back("structured output (schema) missing");
  }
  if (want.structured == Requirement::Forbidden && received.structured) {
    received.problems.emplace_back("structured output sent but not wanted");
  }
}

ScriptedReply FakeModelServer::next_reply(const ReceivedRequest& received) {
  // Called with mutex_ held.
  if (!script_.empty()) {
    ScriptedReply reply = std::move(script_.front());
    script_.pop_front();
    return reply;
  }
  if (responder_) return responder_(received);
  if (default_reply_) return ScriptedReply::text(*default_reply_);
  ScriptedReply reply = ScriptedReply::status_code(500, "fake model server: the script ran out of replies");
  return reply;
}

void FakeModelServer::handle(ApiFlavor flavor, const httplib::Request& request, httplib::Response& response) {
  ReceivedRequest received;
  received.flavor = flavor;
  received.path = request.path;
  received.raw_body = request.body;
  for (const auto& [name, value] : request.headers) received.headers.emplace_back(ascii_lower(name), value);
  received.body = json::parse(request.body, nullptr, false);
  if (received.body.is_discarded() || !received.body.is_object()) {
    received.body = nullptr;
    received.problems.emplace_back("body is not a JSON object");
  } else {
    // Google's native API names the model in the path.
    received.model = flavor == ApiFlavor::GeminiNative && request.matches.size() > 1 ? std::string(request.matches[1])
                                                                                     : received.body.value("model", "");
    bool decode = true;
    {
      std::scoped_lock lock(mutex_);
      decode = expectations_.decode_images;
    }
    if (flavor == ApiFlavor::OpenAI) {
      read_openai(received.body, received, decode);
    } else if (flavor == ApiFlavor::OpenAIResponses) {
      read_responses(received.body, received, decode);
    } else if (flavor == ApiFlavor::GeminiNative) {
      read_gemini(received.body, received, decode);
    } else {
      read_anthropic(received.body, received, decode);
    }
  }

  std::unique_lock lock(mutex_);
  check(received);
  // What the real service refuses, it refuses here, and says so in its own words; the script is kept for the
  // request that follows.
  std::optional<Refusal> refusal;
  if (received.problems.empty() && !received.body.is_null()) {
    std::vector<ImageFacts> images;
    for (const auto& image : received.images)
      images.push_back({image.base64_bytes, image.width, image.height, image.detail});
    if (flavor == ApiFlavor::Anthropic) {
      refusal = anthropic_refusal(received.body, images);
      if (!refusal) refusal = anthropic_tool_refusal(received.body, received.header("anthropic-beta"));
    } else if (flavor == ApiFlavor::OpenAIResponses) {
      refusal = responses_refusal(received.body, expectations_.service, images);
      if (!refusal) refusal = responses_tool_refusal(received.body);
    } else if (flavor == ApiFlavor::GeminiNative) {
      refusal = gemini_native_refusal(received.body, received.model, received.header("x-goog-api-key"),
                                      expectations_.api_key);
    } else if (expectations_.service == Service::Gemini) {
      refusal = gemini_refusal(received.body, received.header("authorization"), expectations_.api_key,
                               received.raw_body.size(), images.size());
    } else {
      refusal = openai_refusal(received.body, expectations_.service, images);
    }
    if (refusal) received.problems.push_back("refused as the real service would: " + refusal->message);
  }
  if (refusal) {
    requests_.push_back(received);
    lock.unlock();
    response.status = refusal->status;
    response.set_content(refusal->body.dump(), "application/json");
    return;
  }
  if (!received.body.is_null()) simulate_cache(received);
  const bool rejected = !received.problems.empty();
  ScriptedReply reply;
  if (rejected) {
    std::string all;
    for (const auto& problem : received.problems) all += (all.empty() ? "" : "; ") + problem;
    reply = ScriptedReply::status_code(422, "fake model server check failed: " + all);
  } else if (script_.empty() && !responder_ && !default_reply_) {
    received.problems.emplace_back("unexpected request: the script ran out of replies");
    reply = next_reply(received);
  } else {
    reply = next_reply(received);
  }
  // A structured reply is what the schema allows: the scripted action, put in the schema's form when it needs to be.
  std::string content = reply.content;
  if (received.structured && reply.fault == Fault::None && reply.finish_reason == "stop" && reply.raw_body.empty() &&
      reply.status < 400) {
    const json scripted = json::parse(reply.content, nullptr, false);
    if (scripted.is_object() && !fits_schema(scripted, received.schema)) {
      const json wrapped = {{"action", scripted}};
      if (fits_schema(wrapped, received.schema)) {
        content = wrapped.dump();
      } else if (flavor == ApiFlavor::Anthropic || expectations_.service == Service::OpenAI) {
        // These services guarantee schema-valid replies; a compatible server may ignore the schema.
        received.problems.push_back("the scripted reply does not fit the schema sent: " + reply.content);
      }
    }
  }
  requests_.push_back(received);
  if (reply.delay.count() > 0) {
    stopping_cv_.wait_for(lock, reply.delay, [this] { return stopping_; });
  }
  lock.unlock();
  if (reply.hold) reply.hold();

  for (const auto& [name, value] : reply.headers) response.set_header(name, value);
  if (reply.fault == Fault::RejectResponseFormat) {
    if (received.structured) {
      response.status = 400;
      response.set_content(
          error_body(flavor, expectations_.service, 400, "Unrecognized request argument supplied: response_format"),
          "application/json");
      return;
    }
    reply.fault = Fault::None;
    content = R"({"done": null})";
  }
  if (reply.fault == Fault::CutConnection) {
    response.set_chunked_content_provider("application/json", [](std::size_t, httplib::DataSink& sink) {
      sink.write("{\"choi", 6);
      return false;  // abort: httplib closes the connection mid-body
    });
    return;
  }
  response.status = reply.status;
  if (!reply.raw_body.empty()) {
    response.set_content(reply.raw_body, "application/json");
  } else if (reply.status >= 400) {
    response.set_content(error_body(flavor, expectations_.service, reply.status, reply.content), "application/json");
  } else {
    response.set_content(success_body(flavor, expectations_.service, received, reply, content), "application/json");
  }
}

void FakeModelServer::simulate_cache(ReceivedRequest& received) {
  // Called with mutex_ held.
  const auto blocks = prompt_blocks(received);
  const auto hashes = prefix_hashes(blocks);
  std::vector<int> tokens;  // tokens[i]: of blocks [0, i]
  for (const auto& block : blocks) tokens.push_back((tokens.empty() ? 0 : tokens.back()) + block.tokens);
  ReceivedRequest::Cache& cache = received.cache;
  cache.prompt_tokens = tokens.empty() ? 0 : tokens.back();
  if (received.flavor != ApiFlavor::Anthropic) {
    const auto key = received.body.find("prompt_cache_key");
    if (key == received.body.end() || !key->is_string()) return;
    cache.asked = true;
    auto& earlier = openai_prompts_[key->get<std::string>()];
    std::size_t common = 0;  // blocks in common with the closest earlier prompt
    for (const auto& prompt : earlier) {
      std::size_t n = 0;
      while (n < prompt.size() && n < hashes.size() && prompt[n] == hashes[n]) ++n;
      common = std::max(common, n);
    }
    const int matched = common == 0 ? 0 : tokens[common - 1];
    if (matched >= kMinimumCachedTokens) cache.read = matched - (matched - kMinimumCachedTokens) % 128;
    // OpenAI's own API reports what it wrote (billed from GPT-5.6 on): the rest of a cacheable prompt.
    if (expectations_.service == Service::OpenAI && cache.prompt_tokens >= kMinimumCachedTokens) {
      cache.written = cache.prompt_tokens - cache.read;
    }
    earlier.push_back(hashes);
    return;
  }
  std::vector<std::size_t> breakpoints;
  for (std::size_t i = 0; i < blocks.size(); ++i) {
    if (blocks[i].breakpoint) breakpoints.push_back(i);
  }
  if (breakpoints.empty()) return;
  cache.asked = true;
  for (const std::size_t at : breakpoints) {
    for (std::size_t back = 0; back < 20 && back <= at; ++back) {
      if (anthropic_written_.contains(hashes[at - back])) cache.read = std::max(cache.read, tokens[at - back]);
    }
  }
  for (const std::size_t at : breakpoints) {
    if (tokens[at] < kMinimumCachedTokens || anthropic_written_.contains(hashes[at])) continue;
    anthropic_written_.insert(hashes[at]);
    cache.written = std::max(cache.written, tokens[at] - cache.read);
  }
}

std::string label_in_prompt(const std::string& prompt_text, const std::string& name) {
  const std::regex line(R"(\[([A-Z]+)\][^\n]*)" + name);
  std::smatch match;
  return std::regex_search(prompt_text, match, line) ? std::string(match[1]) : "NOT-FOUND";
}

}  // namespace vimgpt::test
