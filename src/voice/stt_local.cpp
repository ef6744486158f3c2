// The offline speech-to-text backend: PocketSphinx with Debian's en-us model (pocketsphinx-en-us).
#include <pocketsphinx.h>
#include <sphinxbase/err.h>

#include <memory>
#include <mutex>

#include "voice/stt.h"

namespace vimgpt::voice {
namespace {

constexpr double kLeadingQuietSeconds = 0.3;

struct ConfigFree {
  void operator()(cmd_ln_t* config) const { cmd_ln_free_r(config); }
};
struct DecoderFree {
  void operator()(ps_decoder_t* decoder) const { ps_free(decoder); }
};

// PocketSphinx logs every parameter and search pass to stderr, which would bury the CLI's own output.
void silence_pocketsphinx_log() {
  static std::once_flag once;
  std::call_once(once, [] { err_set_logfp(nullptr); });
}

}  // namespace

Result<std::string> transcribe_local(const AudioBuffer& speech, const SttOptions& options) {
  const std::filesystem::path& dir = options.local_model_dir;
  const auto hmm = dir / "en-us";
  const auto lm = dir / "en-us.lm.bin";
  const auto dict = dir / "cmudict-en-us.dict";
  std::error_code ec;
  for (const auto& part : {hmm, lm, dict}) {
    if (!std::filesystem::exists(part, ec))
      return fail(ErrorKind::NotFound, "PocketSphinx model file missing: " + part.string() +
                                           " (install the Debian package pocketsphinx-en-us, or use --stt openai)");
  }
  silence_pocketsphinx_log();

  // Dither: digital silence (the padding below, synthesized or gated audio) has no energy to take a log of
  // and throws the feature normalisation off; measured on espeak-ng speech it cuts word errors by a third.
  // A fixed seed keeps a transcript reproducible.
  // The decoder holds ~30 MB of model; building it per call keeps this thread-safe and stateless, and costs
  // well under a second, once per objective.
  std::unique_ptr<cmd_ln_t, ConfigFree> config(cmd_ln_init(nullptr, ps_args(), TRUE,                     //
                                                           "-hmm", hmm.c_str(), "-lm", lm.c_str(),       //
                                                           "-dict", dict.c_str(), "-samprate", "16000",  //
                                                           "-logfn", "/dev/null",                        //
                                                           "-dither", "yes", "-seed", "1", nullptr));
  if (!config) return fail(ErrorKind::Internal, "PocketSphinx rejected its configuration");
  std::unique_ptr<ps_decoder_t, DecoderFree> decoder(ps_init(config.get()));
  if (!decoder) return fail(ErrorKind::Unsupported, "PocketSphinx could not load its model from " + dir.string());

  // PocketSphinx estimates the noise spectrum from the first frames of an utterance; audio that starts with
  // a word (a trimmed file, synthesized speech) would have that word subtracted as "noise". Lead with quiet.
  const auto pad = static_cast<std::size_t>(kLeadingQuietSeconds * kSpeechSampleRate);
  std::vector<float> padded(pad, 0.0f);
  padded.insert(padded.end(), speech.samples.begin(), speech.samples.end());
  padded.insert(padded.end(), pad, 0.0f);
  const std::vector<std::int16_t> pcm = to_pcm16(padded);
  if (ps_start_utt(decoder.get()) < 0) return fail(ErrorKind::Internal, "PocketSphinx could not start decoding");
  // full_utt = TRUE: the whole utterance is here, so cepstral mean normalisation can use all of it.
  if (ps_process_raw(decoder.get(), pcm.data(), pcm.size(), FALSE, TRUE) < 0)
    return fail(ErrorKind::Internal, "PocketSphinx failed while decoding");
  if (ps_end_utt(decoder.get()) < 0) return fail(ErrorKind::Internal, "PocketSphinx failed to finish decoding");
  int32 score = 0;
  const char* hyp = ps_get_hyp(decoder.get(), &score);
  return std::string(hyp ? hyp : "");
}

}  // namespace vimgpt::voice
