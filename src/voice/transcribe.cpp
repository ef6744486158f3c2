// transcribe(): normalises any audio to 16 kHz mono and hands it to the chosen backend.
#include <algorithm>
#include <cctype>

#include "voice/stt.h"

namespace vimgpt::voice {
namespace {

std::string trim_spaces(std::string_view text) {
  auto begin = std::find_if_not(text.begin(), text.end(), [](unsigned char c) { return std::isspace(c); });
  auto end = std::find_if_not(text.rbegin(), text.rend(), [](unsigned char c) { return std::isspace(c); }).base();
  return begin < end ? std::string(begin, end) : std::string();
}

}  // namespace

std::string_view to_string(SttBackend backend) {
  switch (backend) {
    case SttBackend::Local: return "local";
    case SttBackend::OpenAi: return "openai";
  }
  return "unknown";
}

Result<SttBackend> parse_stt_backend(std::string_view name) {
  if (name == "local") return SttBackend::Local;
  if (name == "openai") return SttBackend::OpenAi;
  return fail(ErrorKind::InvalidArgument, "unknown speech-to-text backend \"" + std::string(name) +
                                              "\": use --stt local (offline) or --stt openai");
}

Result<std::string> transcribe(const AudioBuffer& audio, const SttOptions& options) {
  if (audio.samples.empty()) return fail(ErrorKind::InvalidArgument, "nothing to transcribe: the audio is empty");
  VIMGPT_TRY(AudioBuffer speech, to_speech_format(audio));
  Result<std::string> text =
      options.backend == SttBackend::OpenAi ? transcribe_openai(speech, options) : transcribe_local(speech, options);
  if (!text) return text;
  std::string cleaned = trim_spaces(*text);
  if (cleaned.empty())
    return fail(ErrorKind::NotFound,
                "recognized no words in the audio; speak closer to the microphone and more slowly, or type the "
                "objective instead");
  return cleaned;
}

Result<std::string> transcribe_file(const std::filesystem::path& path, const SttOptions& options) {
  VIMGPT_TRY(AudioBuffer audio, read_audio_file(path));
  return transcribe(audio, options);
}

Result<std::string> listen_and_transcribe(const VoiceOptions& options, const LevelCallback& on_level) {
  VIMGPT_TRY(AudioBuffer speech, record_utterance(options.capture, on_level));
  return transcribe(speech, options.stt);
}

}  // namespace vimgpt::voice
