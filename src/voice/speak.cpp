// Text to speech with the espeak-ng library (offline), and playback on the default output device.
// espeak-ng is GPL-3.0-or-later, so it is linked only in a build with -DVIMGPT_WITH_ESPEAK=ON (THIRD-PARTY-NOTICES.md);
// without it synthesis is Unsupported, with a message that says how to get a build that speaks.
#if VIMGPT_WITH_ESPEAK
#include <espeak-ng/speak_lib.h>
#endif

#include <algorithm>
#include <cctype>
#include <cmath>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>

#include "voice/portaudio_session.h"

namespace vimgpt::voice {
namespace {

#if VIMGPT_WITH_ESPEAK
// espeak-ng keeps global state and is not re-entrant: one synthesis at a time, one initialisation per process.
std::mutex espeak_mutex;
int espeak_rate = 0;  // guarded by espeak_mutex; 0 = not initialised yet

Status ensure_espeak() {
  if (espeak_rate > 0) return ok();
  // DONT_EXIT: without it espeak-ng calls exit() when its data files are missing.
  int rate = espeak_Initialize(AUDIO_OUTPUT_SYNCHRONOUS, 0, nullptr, espeakINITIALIZE_DONT_EXIT);
  if (rate <= 0)
    return fail(ErrorKind::Unsupported, "espeak-ng could not start (is the Debian package espeak-ng-data installed?)");
  espeak_rate = rate;
  return ok();
}

int collect_samples(short* wav, int count, espeak_EVENT* events) {
  if (wav && count > 0 && events) {
    auto* out = static_cast<std::vector<float>*>(events->user_data);
    for (int i = 0; i < count; ++i) out->push_back(static_cast<float>(wav[i]) / 32768.0f);
  }
  return 0;  // 0 = keep synthesizing
}
#endif

struct Playback {
  const AudioBuffer* audio = nullptr;
  std::size_t position = 0;  // in samples; touched only by PortAudio's thread until `finished`
  std::mutex mutex;
  std::condition_variable done;
  bool finished = false;
};

int on_output(const void*, void* output, unsigned long frames, const PaStreamCallbackTimeInfo*, PaStreamCallbackFlags,
              void* user) {
  auto* playback = static_cast<Playback*>(user);
  auto* out = static_cast<float*>(output);
  const auto& samples = playback->audio->samples;
  const std::size_t wanted = frames * static_cast<std::size_t>(playback->audio->channels);
  const std::size_t n = std::min(wanted, samples.size() - playback->position);
  std::memcpy(out, samples.data() + playback->position, n * sizeof(float));
  std::fill(out + n, out + wanted, 0.0f);
  playback->position += n;
  return playback->position >= samples.size() ? paComplete : paContinue;
}

void on_finished(void* user) {
  auto* playback = static_cast<Playback*>(user);
  {
    std::lock_guard lock(playback->mutex);
    playback->finished = true;
  }
  playback->done.notify_one();
}

struct StreamAborter {
  void operator()(PaStream* stream) const {
    Pa_AbortStream(stream);
    Pa_CloseStream(stream);
  }
};

std::string no_output_message() {
  return "no audio output device: PortAudio found no speakers on this machine; write the speech to a file "
         "instead with --speak-to FILE.wav";
}

}  // namespace

#if VIMGPT_WITH_ESPEAK
Status speech_available() {
  return ok();
}

Result<AudioBuffer> synthesize(std::string_view text, const SpeakOptions& options) {
  if (std::none_of(text.begin(), text.end(), [](unsigned char c) { return std::isalnum(c) || c >= 0x80; }))
    return fail(ErrorKind::InvalidArgument, "nothing to say: the text has no words");
  std::lock_guard lock(espeak_mutex);
  VIMGPT_TRY_VOID(ensure_espeak());
  if (espeak_SetVoiceByName(options.voice.c_str()) != EE_OK)
    return fail(ErrorKind::NotFound,
                "espeak-ng has no voice \"" + options.voice + "\" (`espeak-ng --voices` lists them)");
  espeak_SetParameter(espeakRATE, std::clamp(options.words_per_minute, 80, 450), 0);
  espeak_SetSynthCallback(collect_samples);

  AudioBuffer audio{espeak_rate, 1, {}};
  const std::string utf8(text);
  espeak_ERROR error =
      espeak_Synth(utf8.c_str(), utf8.size() + 1, 0, POS_CHARACTER, 0, espeakCHARS_UTF8, nullptr, &audio.samples);
  if (error != EE_OK) return fail(ErrorKind::Internal, "espeak-ng failed to synthesize the text");
  if (audio.samples.empty()) return fail(ErrorKind::InvalidArgument, "nothing to say: the text has no speakable words");
  return audio;
}
#else
Status speech_available() {
  return fail(ErrorKind::Unsupported,
              "spoken replies need a vimgpt built with -DVIMGPT_WITH_ESPEAK=ON, which links espeak-ng and makes the "
              "binary GPL-3.0-or-later; this one was built without it (the MIT-licensed default). Run without "
              "--speak and --speak-to, or rebuild: cmake -S . -B build -DVIMGPT_WITH_ESPEAK=ON && cmake --build build");
}

Result<AudioBuffer> synthesize(std::string_view, const SpeakOptions&) {
  return speech_available().failure();
}
#endif

Status speak_to_file(std::string_view text, const std::filesystem::path& path, const SpeakOptions& options) {
  VIMGPT_TRY(AudioBuffer audio, synthesize(text, options));
  return write_wav(audio, path);
}

Status speak(std::string_view text, const SpeakOptions& options) {
  VIMGPT_TRY(AudioBuffer audio, synthesize(text, options));
  return play(audio);
}

Status play(const AudioBuffer& audio) {
  if (audio.samples.empty()) return ok();
  PortAudioSession session;
  VIMGPT_TRY_VOID(session.status());
  PaDeviceIndex index = Pa_GetDefaultOutputDevice();
  if (index == paNoDevice || Pa_GetDeviceCount() <= 0) return fail(ErrorKind::Unsupported, no_output_message());
  const PaDeviceInfo* info = Pa_GetDeviceInfo(index);
  if (!info || info->maxOutputChannels <= 0) return fail(ErrorKind::Unsupported, no_output_message());

  // Play at the buffer's own rate when the device takes it, else convert to the device's rate.
  PaStreamParameters params{index, audio.channels, paFloat32, info->defaultHighOutputLatency, nullptr};
  AudioBuffer converted;
  const AudioBuffer* source = &audio;
  if (Pa_IsFormatSupported(nullptr, &params, audio.sample_rate) != paFormatIsSupported) {
    VIMGPT_TRY(converted, resample(audio, static_cast<int>(std::lround(info->defaultSampleRate))));
    source = &converted;
  }
  Playback playback;
  playback.audio = source;
  PaStream* raw = nullptr;
  PaError error = Pa_OpenStream(&raw, nullptr, &params, source->sample_rate, paFramesPerBufferUnspecified, paClipOff,
                                on_output, &playback);
  if (error != paNoError)
    return fail(ErrorKind::Unsupported, "cannot play on \"" + std::string(info->name) + "\" (PortAudio: " +
                                            pa_error_text(error) + "); use --speak-to FILE.wav instead");
  std::unique_ptr<PaStream, StreamAborter> stream(raw);
  Pa_SetStreamFinishedCallback(raw, on_finished);
  if ((error = Pa_StartStream(raw)) != paNoError)
    return fail(ErrorKind::Unsupported, "cannot start playback (PortAudio: " + pa_error_text(error) + ")");

  // The sound's own length plus slack: a device that stops consuming must not hang the agent.
  auto limit =
      std::chrono::milliseconds(static_cast<long long>(source->duration_seconds() * 1000.0)) + std::chrono::seconds(5);
  std::unique_lock lock(playback.mutex);
  if (!playback.done.wait_for(lock, limit, [&] { return playback.finished; }))
    return fail(ErrorKind::Timeout, "the audio output stopped playing; use --speak-to FILE.wav instead");
  return ok();
}

}  // namespace vimgpt::voice
