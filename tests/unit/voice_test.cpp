// Audio plumbing and voice activity detection, checked on generated signals.
#include <gtest/gtest.h>
#include <stdlib.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <numbers>
#include <random>

#include "voice/voice.h"

namespace vimgpt::voice {
namespace {

namespace fs = std::filesystem;

// One tone; `channel_gain` scales it per channel (e.g. {1, -1} for opposite phase).
AudioBuffer sine(double hz, int rate, double seconds, float amplitude, std::vector<float> channel_gain = {1.0f}) {
  AudioBuffer audio;
  audio.sample_rate = rate;
  audio.channels = static_cast<int>(channel_gain.size());
  auto frames = static_cast<std::size_t>(seconds * rate);
  audio.samples.reserve(frames * channel_gain.size());
  for (std::size_t i = 0; i < frames; ++i) {
    auto s = static_cast<float>(amplitude * std::sin(2.0 * std::numbers::pi * hz * static_cast<double>(i) / rate));
    for (float gain : channel_gain) audio.samples.push_back(s * gain);
  }
  return audio;
}

// Mono samples [begin, end) of a buffer, skipping the resampler's start-up and tail transients.
std::vector<float> middle(const AudioBuffer& audio, double skip_seconds) {
  auto skip = static_cast<std::size_t>(skip_seconds * audio.sample_rate);
  EXPECT_EQ(audio.channels, 1);
  EXPECT_GT(audio.samples.size(), 2 * skip);
  return {audio.samples.begin() + static_cast<std::ptrdiff_t>(skip),
          audio.samples.end() - static_cast<std::ptrdiff_t>(skip)};
}

int zero_crossings(const std::vector<float>& samples) {
  int count = 0;
  for (std::size_t i = 1; i < samples.size(); ++i) count += (samples[i - 1] < 0.0f) != (samples[i] < 0.0f) ? 1 : 0;
  return count;
}

double rms(const std::vector<float>& samples) {
  double sum = 0.0;
  for (float s : samples) sum += static_cast<double>(s) * s;
  return std::sqrt(sum / static_cast<double>(samples.size()));
}

float peak(const std::vector<float>& samples) {
  float p = 0.0f;
  for (float s : samples) p = std::max(p, std::abs(s));
  return p;
}

class TempDir {
 public:
  TempDir() {
    std::string pattern = (fs::temp_directory_path() / "vimgpt-voice-XXXXXX").string();
    path_ = ::mkdtemp(pattern.data());
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(path_, ec);
  }
  [[nodiscard]] const fs::path& path() const { return path_; }

 private:
  fs::path path_;
};

TEST(VoiceResample, StereoSineAt44kBecomes16kMonoKeepingFrequencyAndAmplitude) {
  const AudioBuffer stereo = sine(1000.0, 44100, 2.0, 0.5f, {1.0f, 1.0f});
  Result<AudioBuffer> speech = to_speech_format(stereo);
  ASSERT_TRUE(speech) << speech.error().describe();
  EXPECT_EQ(speech->sample_rate, 16000);
  EXPECT_EQ(speech->channels, 1);
  EXPECT_NEAR(speech->duration_seconds(), 2.0, 0.01);

  const std::vector<float> body = middle(*speech, 0.1);  // 1.8 s of steady tone
  const double seconds = static_cast<double>(body.size()) / 16000.0;
  const double measured_hz = zero_crossings(body) / (2.0 * seconds);
  EXPECT_NEAR(measured_hz, 1000.0, 2.0);
  EXPECT_NEAR(rms(body), 0.5 / std::sqrt(2.0), 0.005);
  EXPECT_NEAR(peak(body), 0.5f, 0.01f);
}

TEST(VoiceResample, UpsamplingKeepsFrequency) {
  Result<AudioBuffer> up = resample(sine(440.0, 8000, 1.0, 0.8f), 16000);
  ASSERT_TRUE(up);
  EXPECT_EQ(up->frames(), 16000u);
  const std::vector<float> body = middle(*up, 0.05);
  EXPECT_NEAR(zero_crossings(body) / (2.0 * static_cast<double>(body.size()) / 16000.0), 440.0, 2.0);
  EXPECT_NEAR(rms(body), 0.8 / std::sqrt(2.0), 0.01);
}

// A tone above the target's Nyquist frequency must be filtered out, not folded back as a false tone
// (a plain linear interpolator leaves most of it, at 16 kHz - 10 kHz = 6 kHz).
TEST(VoiceResample, RemovesContentAboveTheNewNyquistFrequency) {
  Result<AudioBuffer> down = resample(sine(10000.0, 44100, 1.0, 0.5f), 16000);
  ASSERT_TRUE(down);
  EXPECT_LT(rms(middle(*down, 0.1)), 0.5 / std::sqrt(2.0) * 0.001);  // at least 60 dB down
}

TEST(VoiceResample, SameRateIsAnExactCopyAndBadRatesAreRejected) {
  const AudioBuffer tone = sine(300.0, 16000, 0.1, 0.3f);
  Result<AudioBuffer> same = resample(tone, 16000);
  ASSERT_TRUE(same);
  EXPECT_EQ(same->samples, tone.samples);
  Result<AudioBuffer> bad = resample(tone, 0);
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, ErrorKind::InvalidArgument);
}

TEST(VoiceMix, AveragesChannels) {
  const std::vector<float> alone = sine(1000.0, 16000, 0.5, 0.6f).samples;
  const AudioBuffer both = mix_to_mono(sine(1000.0, 16000, 0.5, 0.6f, {1.0f, 1.0f}));
  const AudioBuffer left_only = mix_to_mono(sine(1000.0, 16000, 0.5, 0.6f, {1.0f, 0.0f}));
  const AudioBuffer opposite = mix_to_mono(sine(1000.0, 16000, 0.5, 0.6f, {1.0f, -1.0f}));
  ASSERT_EQ(both.channels, 1);
  ASSERT_EQ(both.samples.size(), alone.size());
  EXPECT_NEAR(peak(both.samples), 0.6f, 1e-4f);
  EXPECT_NEAR(peak(left_only.samples), 0.3f, 1e-4f);
  EXPECT_LT(peak(opposite.samples), 1e-6f);
  EXPECT_EQ(zero_crossings(both.samples), zero_crossings(alone));
  const AudioBuffer mono = sine(1000.0, 16000, 0.1, 0.6f);
  EXPECT_EQ(mix_to_mono(mono).samples, mono.samples);
}

TEST(VoiceWav, RoundTripsThroughAFileAndMemory) {
  TempDir dir;
  const AudioBuffer stereo = sine(523.0, 22050, 0.5, 0.9f, {1.0f, 0.5f});
  const fs::path path = dir.path() / "tone.wav";
  ASSERT_TRUE(write_wav(stereo, path));
  Result<AudioBuffer> back = read_audio_file(path);
  ASSERT_TRUE(back) << back.error().describe();
  EXPECT_EQ(back->sample_rate, 22050);
  EXPECT_EQ(back->channels, 2);
  ASSERT_EQ(back->samples.size(), stereo.samples.size());
  for (std::size_t i = 0; i < stereo.samples.size(); ++i) ASSERT_NEAR(back->samples[i], stereo.samples[i], 1.0 / 32000);

  Result<std::string> bytes = encode_wav(stereo);
  ASSERT_TRUE(bytes);
  std::ifstream file(path, std::ios::binary);
  const std::string on_disk((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  EXPECT_EQ(bytes->substr(0, 4), "RIFF");
  EXPECT_EQ(bytes->substr(8, 4), "WAVE");
  EXPECT_EQ(*bytes, on_disk);  // same encoder, same bytes
}

TEST(VoiceWav, FullScaleSamplesClipInsteadOfWrapping) {
  const std::vector<std::int16_t> pcm = to_pcm16(std::vector<float>{1.5f, 1.0f, -1.0f, -1.5f, 0.5f});
  EXPECT_EQ(pcm, (std::vector<std::int16_t>{32767, 32767, -32767, -32767, 16384}));
}

TEST(VoiceWav, MissingAndUnreadableFilesAreClearErrors) {
  TempDir dir;
  Result<AudioBuffer> missing = read_audio_file(dir.path() / "nope.wav");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::NotFound);
  EXPECT_NE(missing.error().message.find("nope.wav"), std::string::npos);

  const fs::path text = dir.path() / "notes.wav";
  std::ofstream(text) << "this is not audio at all, just some text pretending to be a wave file\n";
  Result<AudioBuffer> garbage = read_audio_file(text);
  ASSERT_FALSE(garbage);
  EXPECT_EQ(garbage.error().kind, ErrorKind::Unsupported);
}

// ---------------------------------------------------------------------------------------------------------
// Voice activity detection

constexpr int kRate = 16000;

// Room noise at `noise_dbfs` (RMS) with a 300 Hz tone burst added over [burst_start, burst_end).
std::vector<float> noise_with_burst(double total, double burst_start, double burst_end, double noise_dbfs,
                                    float tone_amplitude) {
  std::mt19937 engine(42);
  const double noise_rms = std::pow(10.0, noise_dbfs / 20.0);
  std::normal_distribution<double> noise(0.0, noise_rms);
  std::vector<float> out(static_cast<std::size_t>(total * kRate));
  for (std::size_t i = 0; i < out.size(); ++i) {
    double t = static_cast<double>(i) / kRate;
    double s = noise(engine);
    if (t >= burst_start && t < burst_end) s += tone_amplitude * std::sin(2.0 * std::numbers::pi * 300.0 * t);
    out[i] = static_cast<float>(s);
  }
  return out;
}

double seconds(std::size_t sample) {
  return static_cast<double>(sample) / kRate;
}

TEST(VoiceVad, FindsToneBurstBoundariesInQuietRoom) {
  const auto audio = noise_with_burst(4.5, 1.0, 2.5, -60.0, 0.3f);
  const VadResult result = detect_speech(audio, kRate);
  ASSERT_TRUE(result.speech.has_value());
  EXPECT_NEAR(seconds(result.speech->start_sample), 1.0, 0.1);
  EXPECT_NEAR(seconds(result.speech->end_sample), 2.5, 0.1);
  EXPECT_EQ(result.end, VadEnd::Silence);
}

// At -35 dBFS the room alone is louder than the absolute minimum for speech: only a floor learned from the
// room keeps it from counting as speech.
TEST(VoiceVad, AdaptsToALoudRoom) {
  const auto audio = noise_with_burst(5.0, 2.0, 3.0, -35.0, 0.5f);
  const VadResult result = detect_speech(audio, kRate);
  ASSERT_TRUE(result.speech.has_value());
  EXPECT_NEAR(seconds(result.speech->start_sample), 2.0, 0.1);
  EXPECT_NEAR(seconds(result.speech->end_sample), 3.0, 0.1);
}

TEST(VoiceVad, StopsAboutOneSecondAfterSpeechAndStreamsInAnyChunkSize) {
  const auto audio = noise_with_burst(6.0, 1.0, 2.0, -60.0, 0.3f);
  VoiceActivityDetector detector(kRate);
  std::size_t fed = 0;
  const std::size_t chunk = 333;  // not a multiple of the 320-sample frame
  while (fed < audio.size() && detector.state() != VadState::Ended) {
    std::size_t n = std::min(chunk, audio.size() - fed);
    detector.feed(std::span<const float>(audio).subspan(fed, n));
    fed += n;
  }
  ASSERT_EQ(detector.state(), VadState::Ended);
  EXPECT_NEAR(detector.elapsed_seconds(), 3.0, 0.1);  // burst end + 1 s of silence
  EXPECT_LT(fed, audio.size());                       // it did not need the rest of the input

  const VadResult streamed = detector.result();
  const VadResult whole = detect_speech(audio, kRate);
  ASSERT_TRUE(streamed.speech && whole.speech);
  EXPECT_EQ(streamed.speech->start_sample, whole.speech->start_sample);
  EXPECT_EQ(streamed.speech->end_sample, whole.speech->end_sample);
  EXPECT_EQ(streamed.end, VadEnd::Silence);
}

TEST(VoiceVad, SilenceUntilTheCapHearsNothing) {
  VadOptions options;
  options.max_listen_seconds = 3.0;
  VoiceActivityDetector detector(kRate, options);
  const auto audio = noise_with_burst(10.0, 99.0, 99.0, -55.0, 0.0f);
  EXPECT_EQ(detector.feed(audio), VadState::Ended);
  EXPECT_NEAR(detector.elapsed_seconds(), 3.0, 0.021);
  EXPECT_EQ(detector.result().end, VadEnd::Cap);
  EXPECT_FALSE(detector.result().speech.has_value());
}

TEST(VoiceVad, SpeechStillGoingAtTheCapEndsThere) {
  VadOptions options;
  options.max_listen_seconds = 2.0;
  const auto audio = noise_with_burst(5.0, 0.5, 5.0, -60.0, 0.3f);
  const VadResult result = detect_speech(audio, kRate, options);
  ASSERT_TRUE(result.speech.has_value());
  EXPECT_EQ(result.end, VadEnd::Cap);
  EXPECT_NEAR(seconds(result.speech->start_sample), 0.5, 0.1);
  EXPECT_NEAR(seconds(result.speech->end_sample), 2.0, 0.021);
}

TEST(VoiceVad, IgnoresAClickShorterThanTheMinimumSpeech) {
  auto audio = noise_with_burst(3.0, 99.0, 99.0, -60.0, 0.0f);
  for (std::size_t i = kRate; i < kRate + 160; ++i) audio[i] = 0.8f;  // a 10 ms pop
  const VadResult result = detect_speech(audio, kRate);
  EXPECT_FALSE(result.speech.has_value());
  EXPECT_EQ(result.end, VadEnd::EndOfInput);
}

TEST(VoiceLevelMeter, BarFollowsTheLevel) {
  ListenProgress progress;
  progress.level_dbfs = -30.0;
  progress.elapsed_seconds = 2.0;
  progress.max_listen_seconds = 15.0;
  const std::string waiting = render_level_meter(progress, 20);
  EXPECT_NE(waiting.find("listening"), std::string::npos);
  EXPECT_NE(waiting.find("[##########..........]"), std::string::npos) << waiting;
  progress.state = VadState::Speaking;
  progress.level_dbfs = 0.0;
  const std::string speaking = render_level_meter(progress, 20);
  EXPECT_NE(speaking.find("hearing speech"), std::string::npos);
  EXPECT_NE(speaking.find("[####################]"), std::string::npos) << speaking;
}

TEST(VoiceStt, ParsesBackendNames) {
  EXPECT_EQ(*parse_stt_backend("local"), SttBackend::Local);
  EXPECT_EQ(*parse_stt_backend("openai"), SttBackend::OpenAi);
  Result<SttBackend> bad = parse_stt_backend("whisper");
  ASSERT_FALSE(bad);
  EXPECT_EQ(bad.error().kind, ErrorKind::InvalidArgument);
  EXPECT_NE(bad.error().message.find("--stt local"), std::string::npos);
}

}  // namespace
}  // namespace vimgpt::voice
