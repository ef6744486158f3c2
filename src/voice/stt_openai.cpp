// The OpenAI-compatible speech-to-text backend: POST {base_url}/audio/transcriptions (multipart), which
// OpenAI's Whisper and local Whisper servers (faster-whisper-server, whisper.cpp's server, LocalAI) share.
// https://platform.openai.com/docs/api-reference/audio/createTranscription
#include <nlohmann/json.hpp>

#include "voice/stt.h"

namespace vimgpt::voice {
namespace {

std::string transcription_url(std::string base_url) {
  while (!base_url.empty() && base_url.back() == '/') base_url.pop_back();
  return base_url + "/audio/transcriptions";
}

bool is_openai_host(std::string_view url) {
  return url.find("api.openai.com") != std::string_view::npos;
}

}  // namespace

Result<std::string> transcribe_openai(const AudioBuffer& speech, const SttOptions& options) {
  if (options.api_key.empty() && is_openai_host(options.base_url))
    return fail(ErrorKind::InvalidArgument,
                "--stt openai needs an API key: set OPENAI_API_KEY (or point --base-url at a local Whisper server)");
  VIMGPT_TRY(std::string wav, encode_wav(speech));

  http::HttpRequest request;
  request.method = http::Method::Post;
  request.url = transcription_url(options.base_url);
  request.total_timeout = options.timeout;
  if (!options.api_key.empty()) request.headers.set("Authorization", "Bearer " + options.api_key);
  request.parts.push_back({"file", "speech.wav", "audio/wav", std::move(wav)});
  request.parts.push_back({"model", "", "", options.model});
  request.parts.push_back({"response_format", "", "", "json"});
  if (!options.language.empty()) request.parts.push_back({"language", "", "", options.language});

  http::Client client;
  VIMGPT_TRY(http::HttpResponse response, http::perform_with_retry(client, request, options.retry));
  const std::string what = "transcription model " + options.model + " at " + options.base_url;
  VIMGPT_TRY_VOID(http::check_status(response, request, what));

  nlohmann::json body = nlohmann::json::parse(response.body, nullptr, /*allow_exceptions=*/false);
  if (!body.is_object() || !body.contains("text") || !body["text"].is_string())
    return fail(ErrorKind::Parse, "the " + what + " answered without a \"text\" field: " +
                                      http::redact(response.body.substr(0, 200), request));
  return body["text"].get<std::string>();
}

}  // namespace vimgpt::voice
