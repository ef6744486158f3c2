// Voice mode: say the objective instead of typing it, hear progress and the answer.
//
// Audio in (microphone through PortAudio, or a file through libsndfile) is mixed to mono and resampled to
// 16 kHz; voice activity detection cuts the utterance; a speech-to-text backend turns it into text (offline
// PocketSphinx by default, or an OpenAI-compatible /audio/transcriptions endpoint). Text-to-speech goes through
// the espeak-ng library, to the default output device or to a WAV file, in a build with -DVIMGPT_WITH_ESPEAK=ON.
//
// Third-party headers (PortAudio, PocketSphinx, libsndfile, libsamplerate, espeak-ng) stay in the .cpp files.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "common/result.h"
#include "http/http.h"

namespace vimgpt::voice {

// The rate every speech-to-text backend here is fed (PocketSphinx's en-us model is trained at 16 kHz).
inline constexpr int kSpeechSampleRate = 16000;

// ---------------------------------------------------------------------------------------------------------
// Audio buffers, files, resampling

// Interleaved float samples in [-1, 1].
struct AudioBuffer {
  int sample_rate = kSpeechSampleRate;
  int channels = 1;
  std::vector<float> samples;

  [[nodiscard]] std::size_t frames() const { return channels > 0 ? samples.size() / channels : 0; }
  [[nodiscard]] double duration_seconds() const {
    return sample_rate > 0 ? static_cast<double>(frames()) / sample_rate : 0.0;
  }
};

// Reads any format libsndfile knows (WAV, FLAC, OGG, AIFF, ...), keeping its rate and channels.
// NotFound when the file is missing, Unsupported when the format is unreadable, InvalidArgument when empty.
Result<AudioBuffer> read_audio_file(const std::filesystem::path& path);

// 16-bit PCM WAV, the format every transcription endpoint accepts.
Status write_wav(const AudioBuffer& audio, const std::filesystem::path& path);
Result<std::string> encode_wav(const AudioBuffer& audio);

// Averages the channels: a signal present on every channel keeps its amplitude.
AudioBuffer mix_to_mono(const AudioBuffer& audio);

// Band-limited (windowed-sinc, libsamplerate) conversion; keeps the channel count.
Result<AudioBuffer> resample(const AudioBuffer& audio, int target_rate);

// mix_to_mono + resample to kSpeechSampleRate: what the recognizers want.
Result<AudioBuffer> to_speech_format(const AudioBuffer& audio);

// Rounds and clips to int16 (PocketSphinx and WAV writers take 16-bit PCM).
std::vector<std::int16_t> to_pcm16(std::span<const float> samples);

// ---------------------------------------------------------------------------------------------------------
// Voice activity detection

struct VadOptions {
  double frame_seconds = 0.02;
  // A frame is speech when its level is this far above the noise floor...
  double start_margin_db = 10.0;
  // ...and speech continues while frames stay within `start_margin_db - hysteresis_db` of it.
  double hysteresis_db = 4.0;
  // Frames quieter than this are never speech, however quiet the room (a dead-silent input has no floor).
  double min_speech_dbfs = -50.0;
  // Consecutive speech frames needed to start, so a click or a cough-length pop does not count.
  double min_speech_seconds = 0.06;
  // Silence that ends the utterance.
  double end_silence_seconds = 1.0;
  // Stop listening after this much input, speech or not.
  double max_listen_seconds = 15.0;
  // How fast the noise floor may rise (it falls at once): slow enough that speech does not become "noise".
  double floor_rise_db_per_second = 2.0;
};

enum class VadState { WaitingForSpeech, Speaking, Ended };
enum class VadEnd { NotEnded, Silence, Cap, EndOfInput };

// Sample indices into the stream fed to the detector; end is exclusive.
struct SpeechSegment {
  std::size_t start_sample = 0;
  std::size_t end_sample = 0;
};

struct VadResult {
  std::optional<SpeechSegment> speech;  // empty when no speech was heard
  VadEnd end = VadEnd::NotEnded;
};

// The streaming form, for the microphone: feed mono chunks of any size as they arrive.
class VoiceActivityDetector {
 public:
  VoiceActivityDetector(int sample_rate, VadOptions options = {});

  VadState feed(std::span<const float> mono);
  // End of input: closes a segment still open.
  VadState finish();

  [[nodiscard]] VadState state() const { return state_; }
  [[nodiscard]] VadResult result() const;
  [[nodiscard]] double level_dbfs() const { return level_db_; }
  [[nodiscard]] double noise_floor_dbfs() const { return floor_db_; }
  [[nodiscard]] double elapsed_seconds() const { return static_cast<double>(consumed_) / sample_rate_; }
  [[nodiscard]] int sample_rate() const { return sample_rate_; }

 private:
  void process_frame(std::span<const float> frame);
  void end(VadEnd reason);

  int sample_rate_;
  VadOptions options_;
  std::size_t frame_size_;
  std::size_t max_samples_;
  std::vector<float> pending_;
  std::size_t consumed_ = 0;  // samples of complete frames processed
  VadState state_ = VadState::WaitingForSpeech;
  VadEnd end_ = VadEnd::NotEnded;
  double level_db_ = -120.0;
  double floor_db_ = 0.0;
  bool floor_known_ = false;
  std::size_t run_start_ = 0;   // first sample of the current run of loud frames
  std::size_t run_frames_ = 0;  // length of that run
  std::size_t speech_start_ = 0;
  std::size_t last_voiced_end_ = 0;  // end of the last frame that counted as speech
};

// The pure form, for a whole recording.
VadResult detect_speech(std::span<const float> mono, int sample_rate, const VadOptions& options = {});

// ---------------------------------------------------------------------------------------------------------
// Devices and microphone capture

struct Device {
  int index = -1;
  std::string name;
  std::string host_api;  // ALSA, JACK, PulseAudio, ...
  int max_input_channels = 0;
  int max_output_channels = 0;
  double default_sample_rate = 0.0;
  bool is_default_input = false;
  bool is_default_output = false;
};

// Input devices, for `vimgpt devices`. Empty (not an error) when there are none.
Result<std::vector<Device>> list_input_devices();
// One line per device: "  2  USB Microphone (ALSA, 1 ch, 48000 Hz) [default]".
std::string format_device_list(const std::vector<Device>& devices);

struct ListenProgress {
  VadState state = VadState::WaitingForSpeech;
  double level_dbfs = -120.0;
  double noise_floor_dbfs = -120.0;
  double elapsed_seconds = 0.0;
  double max_listen_seconds = 0.0;
};
// Called from the listening thread about every 50 ms; must be quick.
using LevelCallback = std::function<void(const ListenProgress&)>;

// "listening… [#######.............] -32 dB" / "hearing speech… [...]", for a \r-redrawn terminal line.
std::string render_level_meter(const ListenProgress& progress, int width = 20);

struct CaptureOptions {
  std::string device;  // "" = default input; a number = device index; otherwise a (sub)string of its name
  VadOptions vad;      // vad.max_listen_seconds is the --max-listen cap
  // Kept before the detected start and after the end, so soft word edges are not clipped.
  double pre_roll_seconds = 0.3;
  double post_roll_seconds = 0.2;
  // A device that delivers nothing for this long is an error, not a hang.
  std::chrono::milliseconds stall_timeout{3000};
};

// Records one utterance, returned as 16 kHz mono. Unsupported: no input device, or it cannot be opened
// (busy, wrong format); NotFound: --mic names no device; Timeout: only silence until the cap.
Result<AudioBuffer> record_utterance(const CaptureOptions& options, const LevelCallback& on_level = {});

// ---------------------------------------------------------------------------------------------------------
// Speech to text

enum class SttBackend { Local, OpenAi };

std::string_view to_string(SttBackend backend);
// "local" | "openai"
Result<SttBackend> parse_stt_backend(std::string_view name);

struct SttOptions {
  SttBackend backend = SttBackend::Local;
  // local: PocketSphinx model folder holding `en-us/`, `en-us.lm.bin`, `cmudict-en-us.dict`.
  std::filesystem::path local_model_dir = "/usr/share/pocketsphinx/model/en-us";
  // openai: POST {base_url}/audio/transcriptions, the same --base-url family as the vision client.
  std::string base_url = "https://api.openai.com/v1";
  std::string api_key;
  std::string model = "whisper-1";
  std::string language;  // ISO-639-1 hint, optional
  std::chrono::milliseconds timeout{120'000};
  // The vision client's rules: 429, 5xx and transport errors retried with backoff, Retry-After honoured.
  http::RetryPolicy retry;
};

// Transcribes a buffer of any rate and channels. NotFound when nothing was recognized.
Result<std::string> transcribe(const AudioBuffer& audio, const SttOptions& options);
// --voice-file: read_audio_file + transcribe.
Result<std::string> transcribe_file(const std::filesystem::path& path, const SttOptions& options);

struct VoiceOptions {
  CaptureOptions capture;
  SttOptions stt;
};

// --voice: record_utterance + transcribe.
Result<std::string> listen_and_transcribe(const VoiceOptions& options, const LevelCallback& on_level = {});

// ---------------------------------------------------------------------------------------------------------
// Text to speech

struct SpeakOptions {
  // espeak-ng's US English with its Klatt-synthesis variant "edward": measured clearer than the default
  // formant voice (every word of a test answer recognized by PocketSphinx, against two thirds).
  std::string voice = "en-us+edward";
  int words_per_minute = 175;
};

// ok() when this build can speak: it links espeak-ng (-DVIMGPT_WITH_ESPEAK=ON, which makes a distributed binary
// GPL-3.0-or-later). Otherwise Unsupported, saying how to get such a build; synthesize, speak and speak_to_file then
// fail with the same error.
Status speech_available();
// Synthesizes with the espeak-ng library (offline), at its native rate (22050 Hz), mono.
Result<AudioBuffer> synthesize(std::string_view text, const SpeakOptions& options = {});
// --speak: plays on the default output device; Unsupported when there is none.
Status speak(std::string_view text, const SpeakOptions& options = {});
// --speak-to FILE.wav
Status speak_to_file(std::string_view text, const std::filesystem::path& path, const SpeakOptions& options = {});

// Plays a buffer on the default output device (blocks until it has been played).
Status play(const AudioBuffer& audio);

}  // namespace vimgpt::voice
