// Audio files (libsndfile), channel mixing and resampling (libsamplerate).
#include <samplerate.h>
#include <sndfile.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <memory>
#include <system_error>

#include "voice/voice.h"

namespace vimgpt::voice {
namespace {

struct SndfileCloser {
  void operator()(SNDFILE* file) const { sf_close(file); }
};
using SndfilePtr = std::unique_ptr<SNDFILE, SndfileCloser>;

// An in-memory file for libsndfile's virtual I/O, so a WAV can be built for an upload without a temp file.
struct MemoryFile {
  std::string bytes;
  sf_count_t position = 0;
};

sf_count_t memory_length(void* user) {
  return static_cast<sf_count_t>(static_cast<MemoryFile*>(user)->bytes.size());
}
sf_count_t memory_seek(sf_count_t offset, int whence, void* user) {
  auto* file = static_cast<MemoryFile*>(user);
  sf_count_t base = whence == SEEK_SET ? 0 : whence == SEEK_CUR ? file->position : memory_length(user);
  file->position = std::max<sf_count_t>(0, base + offset);
  return file->position;
}
sf_count_t memory_read(void* out, sf_count_t count, void* user) {
  auto* file = static_cast<MemoryFile*>(user);
  sf_count_t available = std::max<sf_count_t>(0, memory_length(user) - file->position);
  sf_count_t n = std::min(count, available);
  std::memcpy(out, file->bytes.data() + file->position, static_cast<std::size_t>(n));
  file->position += n;
  return n;
}
sf_count_t memory_write(const void* in, sf_count_t count, void* user) {
  auto* file = static_cast<MemoryFile*>(user);
  auto end = static_cast<std::size_t>(file->position + count);
  if (end > file->bytes.size()) file->bytes.resize(end);
  std::memcpy(file->bytes.data() + file->position, in, static_cast<std::size_t>(count));
  file->position += count;
  return count;
}
sf_count_t memory_tell(void* user) {
  return static_cast<MemoryFile*>(user)->position;
}

SF_INFO wav_info(const AudioBuffer& audio) {
  SF_INFO info{};
  info.samplerate = audio.sample_rate;
  info.channels = audio.channels;
  info.format = SF_FORMAT_WAV | SF_FORMAT_PCM_16;
  return info;
}

Status check_writable(const AudioBuffer& audio) {
  if (audio.sample_rate <= 0 || audio.channels <= 0 || audio.samples.size() % audio.channels != 0)
    return fail(ErrorKind::InvalidArgument, "audio buffer has no valid rate/channel layout");
  return ok();
}

Status write_frames(SNDFILE* file, const AudioBuffer& audio, const std::string& where) {
  // libsndfile clips float → PCM16 only when asked; without it a sample at exactly 1.0 wraps around.
  sf_command(file, SFC_SET_CLIPPING, nullptr, SF_TRUE);
  auto frames = static_cast<sf_count_t>(audio.frames());
  if (sf_writef_float(file, audio.samples.data(), frames) != frames)
    return fail(ErrorKind::Io, "cannot write audio to " + where + ": " + sf_strerror(file));
  return ok();
}

}  // namespace

Result<AudioBuffer> read_audio_file(const std::filesystem::path& path) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec))
    return fail(ErrorKind::NotFound, "no audio file at " + path.string());
  SF_INFO info{};
  SndfilePtr file(sf_open(path.c_str(), SFM_READ, &info));
  if (!file)
    return fail(ErrorKind::Unsupported, "cannot read " + path.string() + " as audio (" + sf_strerror(nullptr) +
                                            "); use WAV, FLAC, OGG or AIFF");
  if (info.frames <= 0 || info.channels <= 0 || info.samplerate <= 0)
    return fail(ErrorKind::InvalidArgument, path.string() + " holds no audio");
  AudioBuffer audio;
  audio.sample_rate = info.samplerate;
  audio.channels = info.channels;
  audio.samples.resize(static_cast<std::size_t>(info.frames) * info.channels);
  sf_count_t read = sf_readf_float(file.get(), audio.samples.data(), info.frames);
  if (read <= 0)
    return fail(ErrorKind::Io, "cannot read samples from " + path.string() + ": " + sf_strerror(file.get()));
  audio.samples.resize(static_cast<std::size_t>(read) * info.channels);
  return audio;
}

Status write_wav(const AudioBuffer& audio, const std::filesystem::path& path) {
  VIMGPT_TRY_VOID(check_writable(audio));
  SF_INFO info = wav_info(audio);
  SndfilePtr file(sf_open(path.c_str(), SFM_WRITE, &info));
  if (!file) return fail(ErrorKind::Io, "cannot create " + path.string() + ": " + sf_strerror(nullptr));
  return write_frames(file.get(), audio, path.string());
}

Result<std::string> encode_wav(const AudioBuffer& audio) {
  VIMGPT_TRY_VOID(check_writable(audio));
  MemoryFile memory;
  SF_VIRTUAL_IO io{memory_length, memory_seek, memory_read, memory_write, memory_tell};
  SF_INFO info = wav_info(audio);
  {
    SndfilePtr file(sf_open_virtual(&io, SFM_WRITE, &info, &memory));
    if (!file) return fail(ErrorKind::Internal, std::string("cannot encode WAV: ") + sf_strerror(nullptr));
    VIMGPT_TRY_VOID(write_frames(file.get(), audio, "memory"));
  }  // closing writes the final header sizes
  return std::move(memory.bytes);
}

AudioBuffer mix_to_mono(const AudioBuffer& audio) {
  if (audio.channels <= 1) return audio;
  AudioBuffer mono;
  mono.sample_rate = audio.sample_rate;
  mono.channels = 1;
  std::size_t frames = audio.frames();
  mono.samples.resize(frames);
  const float scale = 1.0f / static_cast<float>(audio.channels);
  for (std::size_t i = 0; i < frames; ++i) {
    float sum = 0.0f;
    for (int c = 0; c < audio.channels; ++c) sum += audio.samples[i * audio.channels + c];
    mono.samples[i] = sum * scale;
  }
  return mono;
}

Result<AudioBuffer> resample(const AudioBuffer& audio, int target_rate) {
  if (target_rate <= 0 || audio.sample_rate <= 0 || audio.channels <= 0)
    return fail(ErrorKind::InvalidArgument, "resample: rates and channels must be positive");
  if (audio.sample_rate == target_rate || audio.samples.empty()) {
    AudioBuffer same = audio;
    same.sample_rate = target_rate;
    return same;
  }
  double ratio = static_cast<double>(target_rate) / audio.sample_rate;
  AudioBuffer out;
  out.sample_rate = target_rate;
  out.channels = audio.channels;
  auto out_frames = static_cast<long>(std::ceil(static_cast<double>(audio.frames()) * ratio)) + 16;
  out.samples.resize(static_cast<std::size_t>(out_frames) * audio.channels);

  SRC_DATA data{};
  data.data_in = audio.samples.data();
  data.input_frames = static_cast<long>(audio.frames());
  data.data_out = out.samples.data();
  data.output_frames = out_frames;
  data.src_ratio = ratio;
  // Medium quality: 97 dB stop band, far past what a 16-bit recognizer input needs, at a fraction of BEST's cost.
  if (int error = src_simple(&data, SRC_SINC_MEDIUM_QUALITY, audio.channels); error != 0)
    return fail(ErrorKind::Internal, std::string("resample: ") + src_strerror(error));
  out.samples.resize(static_cast<std::size_t>(data.output_frames_gen) * audio.channels);
  return out;
}

Result<AudioBuffer> to_speech_format(const AudioBuffer& audio) {
  return resample(mix_to_mono(audio), kSpeechSampleRate);
}

std::vector<std::int16_t> to_pcm16(std::span<const float> samples) {
  std::vector<std::int16_t> pcm(samples.size());
  std::transform(samples.begin(), samples.end(), pcm.begin(), [](float s) {
    float scaled = std::clamp(s, -1.0f, 1.0f) * 32767.0f;
    return static_cast<std::int16_t>(std::lround(scaled));
  });
  return pcm;
}

}  // namespace vimgpt::voice
