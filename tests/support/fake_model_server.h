// A fake model provider on 127.0.0.1 speaking OpenAI Chat Completions (POST /v1/chat/completions), OpenAI's
// Responses API (POST /v1/responses), Anthropic Messages (POST /v1/messages) and Google's native Gemini API (POST
// /v1beta/models/MODEL:generateContent, for Gemini's computer tool). It checks every request it receives
// (credentials, model, that each image decodes and its declared MIME type matches its bytes, image width,
// structured-output schema), refuses what the real service refuses (provider_contract.h: the parameters a model does
// not take, schemas outside strict mode's rules, empty blocks, oversized images; each refusal is also a problem),
// spends reasoning tokens from the cap as reasoning models do, and replies from a script, including faults: error
// statuses with Retry-After, slow replies, connections cut mid-reply, replies without choices, oversized replies, a 400
// that rejects response_format, a refusal. A structured reply is sent in the form the request's schema asks for.
//
//   Expectations want;
//   want.api_key = "sk-test";
//   want.image_width = 1080;
//   FakeModelServer server(want);
//   server.push_reply(R"({"click": "A"})");
//   options.base_url = server.url();  // "http://127.0.0.1:PORT/v1", valid for both providers
//   ...
//   EXPECT_EQ(server.problems(), std::vector<std::string>{});
#pragma once

#include <chrono>
#include <condition_variable>
#include <deque>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "support/provider_contract.h"

namespace httplib {
class Server;
struct Request;
struct Response;
}  // namespace httplib

namespace vimgpt::test {

enum class ApiFlavor { OpenAI, OpenAIResponses, Anthropic, GeminiNative };

enum class Requirement { Any, Required, Forbidden };

// What every request must satisfy; empty / zero fields are not checked.
struct Expectations {
  std::string api_key;                        // OpenAI: "Authorization: Bearer KEY"; Anthropic: "x-api-key: KEY"
  std::string model;                          // body "model"
  int image_width = 0;                        // every image's decoded width
  std::size_t images = 0;                     // number of images per request (0: any, including none)
  Requirement structured = Requirement::Any;  // response_format json_schema / output_config.format / forced tool
  // Who the fake plays on /v1/chat/completions: OpenAI's own API holds each model to its rules.
  Service service = Service::Compatible;
  // Every image is decoded in full (a truncated or corrupt one is a problem). false: only its header is
  // read, for its size: the benchmark's model, whose own time should be small next to the client's.
  bool decode_images = true;
};

struct ReceivedImage {
  std::string declared_mime;  // from the data URL or the Anthropic media_type
  std::string sniffed_mime;   // from the magic bytes; empty when unknown
  std::string detail;         // OpenAI image_url.detail, if any
  std::size_t bytes = 0;
  std::size_t base64_bytes = 0;  // as sent
  int width = 0;                 // 0 when the bytes did not decode
  int height = 0;
};

struct ReceivedRequest {
  ApiFlavor flavor = ApiFlavor::OpenAI;
  std::string path;
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string raw_body;
  nlohmann::json body;  // null when the body was not JSON
  std::string model;
  std::string text;  // all text parts of all messages (and the Anthropic system prompt), newline-joined
  std::vector<ReceivedImage> images;
  bool structured = false;  // response_format json_schema (OpenAI), output_config.format or a forced tool (Anthropic)
  nlohmann::json schema;    // the schema a structured request sent; null otherwise
  std::vector<std::string> problems;  // failed checks for this request
  // The provider's prompt cache, simulated when the request asks for it (OpenAI: a prompt_cache_key;
  // Anthropic: cache_control breakpoints): the usage reported is then these counts, not the script's.
  // Tokens are estimated (text: a token per 4 bytes; images: OpenAI's tile rule) and a prefix is matched
  // whole block by whole block, as the providers document: OpenAI from 1,024 tokens in steps of 128, against
  // any earlier request with the same key; Anthropic at a breakpoint or up to 20 blocks before it, against
  // what an earlier breakpoint wrote, from 1,024 tokens.
  struct Cache {
    bool asked = false;
    int prompt_tokens = 0;  // all input tokens
    int read = 0;           // of them, read from the cache
    int written = 0;        // of them, written to it
  } cache;

  [[nodiscard]] std::string header(std::string_view name) const;
};

enum class Fault {
  None,
  CutConnection,         // headers sent, then the connection is closed mid-body
  NoChoices,             // 200 with "choices": [] (OpenAI) / "content": [] (Anthropic)
  RejectResponseFormat,  // 400 like a server that does not know response_format, if the request has it
  Refusal,               // the model declines: message.refusal (OpenAI), stop_reason "refusal" (Anthropic)
};

struct ScriptedReply {
  std::string content;  // assistant text; with a forced Anthropic tool, parsed as the tool input when it is JSON
  int status = 200;
  std::string raw_body;  // sent verbatim instead of a generated body when not empty
  std::vector<std::pair<std::string, std::string>> headers;
  Fault fault = Fault::None;
  std::chrono::milliseconds delay{0};  // wait before answering (cut short when the server stops)
  std::function<void()> hold;          // runs before answering, outside the server's lock (a test's gate)
  int prompt_tokens = 1000;
  int completion_tokens = 12;  // the visible answer's
  // Tokens spent reasoning before the answer; -1: as the model would at the effort sent (reasoning_spend). When
  // reasoning and answer pass the request's cap, the reply is cut off with no answer, as the real ones are.
  int reasoning_tokens = -1;
  std::string finish_reason = "stop";  // "length" simulates a reply cut off by max_tokens
  // Anthropic tool calls, [{"name", "input"}], answered as tool_use blocks after `content` (when not empty); on
  // Gemini's native API [{"name", "args"}], answered as functionCall parts with thought signatures.
  nlohmann::json tool_uses;

  static ScriptedReply text(std::string content);
  static ScriptedReply status_code(int status, std::string message = {},
                                   std::vector<std::pair<std::string, std::string>> headers = {});
  static ScriptedReply slow(std::chrono::milliseconds delay, std::string content = R"({"done": null})");
  static ScriptedReply cut_connection();
  static ScriptedReply no_choices();
  static ScriptedReply oversized(std::size_t bytes);
  static ScriptedReply reject_response_format();
  static ScriptedReply truncated(std::string content);  // finish_reason "length"
  static ScriptedReply refusal(std::string explanation);
  static ScriptedReply tool_use(nlohmann::json calls, std::string text = {});
};

class FakeModelServer {
 public:
  using Responder = std::function<ScriptedReply(const ReceivedRequest&)>;

  explicit FakeModelServer(Expectations expectations = {});
  ~FakeModelServer();
  FakeModelServer(const FakeModelServer&) = delete;
  FakeModelServer& operator=(const FakeModelServer&) = delete;

  // Replies are used in order, one per request; when the script is empty the responder answers, then the
  // default reply, else a 500 saying the script ran out (and a problem is recorded).
  void push_reply(std::string content);
  void push(ScriptedReply reply);
  void set_default_reply(std::string content);
  void set_responder(Responder responder);
  void expect(Expectations expectations);

  // Base URL for either provider: "http://127.0.0.1:PORT/v1".
  [[nodiscard]] std::string url() const;
  // Google's OpenAI-compatible base URL on this server: "http://127.0.0.1:PORT/v1beta/openai" (Service::Gemini).
  [[nodiscard]] std::string gemini_url() const;
  [[nodiscard]] int port() const { return port_; }
  [[nodiscard]] std::vector<ReceivedRequest> requests() const;
  [[nodiscard]] std::size_t request_count() const;
  [[nodiscard]] std::size_t pending_replies() const;
  // Every failed check so far, "request N: what"; empty when all requests were as expected.
  [[nodiscard]] std::vector<std::string> problems() const;

 private:
  void handle(ApiFlavor flavor, const httplib::Request& request, httplib::Response& response);
  ScriptedReply next_reply(const ReceivedRequest& received);
  void check(ReceivedRequest& received) const;

  std::unique_ptr<httplib::Server> server_;
  std::thread thread_;
  int port_ = 0;
  mutable std::mutex mutex_;
  std::condition_variable stopping_cv_;
  bool stopping_ = false;
  Expectations expectations_;
  std::deque<ScriptedReply> script_;
  std::optional<std::string> default_reply_;
  Responder responder_;
  std::vector<ReceivedRequest> requests_;
  // The simulated prompt caches: OpenAI's earlier prompts by key (each as its blocks' prefix hashes), and the
  // prefixes Anthropic's breakpoints wrote.
  std::map<std::string, std::vector<std::vector<std::size_t>>> openai_prompts_;
  std::set<std::size_t> anthropic_written_;
  void simulate_cache(ReceivedRequest& received);
};

// Decodes an OpenAI "data:MIME;base64,..." URL; nullopt when it is not one.
std::optional<std::pair<std::string, std::string>> decode_data_url(std::string_view url);
// "image/png", "image/jpeg", "image/gif", "image/webp" from the magic bytes, or "".
std::string sniff_image_mime(std::string_view bytes);

// The label a hybrid prompt's hint list gives an element (lines look like `[AB] role "name" ...`), or
// "NOT-FOUND", which any run then reports as an unknown label.
std::string label_in_prompt(const std::string& prompt_text, const std::string& name);

}  // namespace vimgpt::test
