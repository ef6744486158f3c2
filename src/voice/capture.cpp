// Microphone capture: PortAudio delivers audio on its own thread; this thread waits on it (never polls),
// runs voice activity detection, reports the level, and stops on silence, the cap, or a stalled device.
#include <algorithm>
#include <cmath>
#include <condition_variable>
#include <cstdio>
#include <memory>
#include <mutex>

#include "voice/portaudio_session.h"

namespace vimgpt::voice {
namespace {

// Filled by PortAudio's callback thread, drained by record_utterance.
struct CaptureQueue {
  std::mutex mutex;
  std::condition_variable ready;
  std::vector<float> samples;  // interleaved, `channels` per frame
  int channels = 1;            // set before the stream starts, read-only after
};

int on_input(const void* input, void*, unsigned long frames, const PaStreamCallbackTimeInfo*, PaStreamCallbackFlags,
             void* user) {
  auto* queue = static_cast<CaptureQueue*>(user);
  const auto* samples = static_cast<const float*>(input);
  {
    std::lock_guard lock(queue->mutex);
    if (samples)
      queue->samples.insert(queue->samples.end(), samples,
                            samples + frames * static_cast<unsigned long>(queue->channels));
  }
  queue->ready.notify_one();
  return paContinue;
}

struct StreamStopper {
  void operator()(PaStream* stream) const {
    Pa_StopStream(stream);
    Pa_CloseStream(stream);
  }
};
using StreamPtr = std::unique_ptr<PaStream, StreamStopper>;

struct OpenedStream {
  StreamPtr stream;
  int channels = 1;
  double sample_rate = kSpeechSampleRate;
};

// Asks for 16 kHz mono first (no conversion needed); hardware devices often only do 44.1/48 kHz stereo,
// so falls back to the device's own rate and up to two channels, and converts afterwards.
Result<OpenedStream> open_input(PaDeviceIndex index, CaptureQueue& queue) {
  const Device device = describe_device(index);
  const PaDeviceInfo* info = Pa_GetDeviceInfo(index);
  if (!info) return fail(ErrorKind::NotFound, "audio device " + std::to_string(index) + " vanished");
  PaError last = paNoError;
  for (int channels : {1, std::min(2, device.max_input_channels)}) {
    for (double rate : {static_cast<double>(kSpeechSampleRate), device.default_sample_rate}) {
      if (rate <= 0 || channels <= 0) continue;
      PaStreamParameters params{index, channels, paFloat32, info->defaultLowInputLatency, nullptr};
      last = Pa_IsFormatSupported(&params, nullptr, rate);
      if (last != paFormatIsSupported) continue;
      queue.channels = channels;
      PaStream* raw = nullptr;
      auto frames_per_buffer = static_cast<unsigned long>(rate / 50);  // 20 ms: one VAD frame per callback
      last = Pa_OpenStream(&raw, &params, nullptr, rate, frames_per_buffer, paClipOff, on_input, &queue);
      if (last != paNoError) break;
      OpenedStream opened{StreamPtr(raw), channels, rate};
      last = Pa_StartStream(raw);
      if (last != paNoError) break;
      return opened;
    }
    if (last == paDeviceUnavailable) break;
  }
  if (last == paDeviceUnavailable)
    return fail(ErrorKind::Unsupported, "the microphone \"" + device.name +
                                            "\" is busy (another program is using it); close that program or "
                                            "choose another with --mic (see `vimgpt devices`)");
  return fail(ErrorKind::Unsupported, "cannot record from \"" + device.name + "\" (PortAudio: " + pa_error_text(last) +
                                          "); choose another input with --mic (see `vimgpt devices`)");
}

}  // namespace

std::string render_level_meter(const ListenProgress& progress, int width) {
  width = std::max(1, width);
  // -60 dBFS (a quiet room) to 0 dBFS (full scale) across the bar.
  double fraction = std::clamp((progress.level_dbfs + 60.0) / 60.0, 0.0, 1.0);
  auto filled = static_cast<int>(std::lround(fraction * width));
  std::string line = progress.state == VadState::Speaking ? "hearing speech\u2026 [" : "listening\u2026      [";
  line.append(static_cast<std::size_t>(filled), '#');
  line.append(static_cast<std::size_t>(width - filled), '.');
  char tail[64];
  std::snprintf(tail, sizeof tail, "] %4.0f dB  %4.1f/%.0f s", std::max(-99.0, progress.level_dbfs),
                progress.elapsed_seconds, progress.max_listen_seconds);
  return line + tail;
}

Result<AudioBuffer> record_utterance(const CaptureOptions& options, const LevelCallback& on_level) {
  PortAudioSession session;
  VIMGPT_TRY_VOID(session.status());
  VIMGPT_TRY(PaDeviceIndex index, resolve_input_device(options.device));

  CaptureQueue queue;
  VIMGPT_TRY(OpenedStream opened, open_input(index, queue));
  const int rate = static_cast<int>(std::lround(opened.sample_rate));

  VoiceActivityDetector detector(rate, options.vad);
  AudioBuffer recorded{rate, 1, {}};
  std::vector<float> chunk;
  auto last_data = std::chrono::steady_clock::now();
  while (detector.state() != VadState::Ended) {
    {
      std::unique_lock lock(queue.mutex);
      // The wait ends on data; the timeout exists only to notice a device that stopped delivering.
      queue.ready.wait_for(lock, std::chrono::milliseconds(100), [&] { return !queue.samples.empty(); });
      chunk.swap(queue.samples);
      queue.samples.clear();
    }
    auto now = std::chrono::steady_clock::now();
    if (chunk.empty()) {
      if (now - last_data > options.stall_timeout)
        return fail(ErrorKind::Timeout,
                    "the microphone \"" + describe_device(index).name +
                        "\" stopped delivering audio; check the device or choose another with --mic");
      continue;
    }
    last_data = now;
    AudioBuffer interleaved{rate, opened.channels, std::move(chunk)};
    AudioBuffer mono = mix_to_mono(interleaved);
    chunk = std::move(interleaved.samples);
    chunk.clear();
    recorded.samples.insert(recorded.samples.end(), mono.samples.begin(), mono.samples.end());
    detector.feed(mono.samples);
    if (on_level) {
      on_level(ListenProgress{detector.state(), detector.level_dbfs(), detector.noise_floor_dbfs(),
                              detector.elapsed_seconds(), options.vad.max_listen_seconds});
    }
  }
  opened.stream.reset();  // stop the device before the (slower) conversion

  VadResult vad = detector.result();
  if (!vad.speech)
    return fail(ErrorKind::Timeout, "heard no speech in " +
                                        std::to_string(static_cast<int>(options.vad.max_listen_seconds)) +
                                        " s; check that the microphone is not muted and its level moves when you "
                                        "speak, or raise --max-listen");
  auto pre = static_cast<std::size_t>(options.pre_roll_seconds * rate);
  auto post = static_cast<std::size_t>(options.post_roll_seconds * rate);
  std::size_t begin = vad.speech->start_sample > pre ? vad.speech->start_sample - pre : 0;
  std::size_t end = std::min(recorded.samples.size(), vad.speech->end_sample + post);
  AudioBuffer utterance{rate, 1,
                        std::vector<float>(recorded.samples.begin() + static_cast<std::ptrdiff_t>(begin),
                                           recorded.samples.begin() + static_cast<std::ptrdiff_t>(end))};
  return resample(utterance, kSpeechSampleRate);
}

}  // namespace vimgpt::voice
