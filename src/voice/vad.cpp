// Energy-based voice activity detection over an adaptive noise floor.
//
// Why energy and not a trained model: the recognizers downstream already reject non-speech; the detector only
// has to decide when a person started and stopped talking, robustly against a steady room noise (the floor
// follows it) and without a dependency. Frames are ~20 ms; levels are RMS in dBFS.
#include <algorithm>
#include <cmath>

#include "voice/voice.h"

namespace vimgpt::voice {
namespace {

constexpr double kSilentDb = -120.0;

double rms_dbfs(std::span<const float> frame) {
  double sum = 0.0;
  for (float s : frame) sum += static_cast<double>(s) * s;
  double mean = frame.empty() ? 0.0 : sum / static_cast<double>(frame.size());
  return mean > 1e-12 ? 10.0 * std::log10(mean) : kSilentDb;
}

std::size_t seconds_to_samples(double seconds, int rate) {
  return static_cast<std::size_t>(std::llround(std::max(0.0, seconds) * rate));
}

}  // namespace

VoiceActivityDetector::VoiceActivityDetector(int sample_rate, VadOptions options)
    : sample_rate_(std::max(1, sample_rate)),
      options_(options),
      frame_size_(std::max<std::size_t>(1, seconds_to_samples(options.frame_seconds, sample_rate_))),
      max_samples_(seconds_to_samples(options.max_listen_seconds, sample_rate_)) {
  pending_.reserve(frame_size_);
}

VadState VoiceActivityDetector::feed(std::span<const float> mono) {
  std::size_t i = 0;
  while (i < mono.size() && state_ != VadState::Ended) {
    std::size_t take = std::min(frame_size_ - pending_.size(), mono.size() - i);
    if (pending_.empty() && take == frame_size_) {
      process_frame(mono.subspan(i, frame_size_));  // whole frame in place: no copy
    } else {
      pending_.insert(pending_.end(), mono.begin() + static_cast<std::ptrdiff_t>(i),
                      mono.begin() + static_cast<std::ptrdiff_t>(i + take));
      if (pending_.size() == frame_size_) {
        process_frame(pending_);
        pending_.clear();
      }
    }
    i += take;
  }
  return state_;
}

void VoiceActivityDetector::process_frame(std::span<const float> frame) {
  const double frame_seconds = static_cast<double>(frame.size()) / sample_rate_;
  const std::size_t frame_start = consumed_;
  consumed_ += frame.size();
  level_db_ = rms_dbfs(frame);
  if (!floor_known_) {
    floor_db_ = level_db_;
    floor_known_ = true;
  }

  const double start_threshold = std::max(options_.min_speech_dbfs, floor_db_ + options_.start_margin_db);
  const double keep_threshold =
      std::max(options_.min_speech_dbfs, floor_db_ + options_.start_margin_db - options_.hysteresis_db);
  const double threshold = state_ == VadState::Speaking ? keep_threshold : start_threshold;
  const bool loud = level_db_ >= threshold;

  // The floor drops at once to a quieter frame (the room is at most that loud) and rises slowly otherwise,
  // so a fan switched on is learned in seconds while a sentence is not.
  if (level_db_ < floor_db_) {
    floor_db_ = level_db_;
  } else {
    floor_db_ = std::min(level_db_, floor_db_ + options_.floor_rise_db_per_second * frame_seconds);
  }

  if (state_ == VadState::WaitingForSpeech) {
    if (loud) {
      if (run_frames_ == 0) run_start_ = frame_start;
      ++run_frames_;
      if (static_cast<double>(run_frames_) * frame_seconds >= options_.min_speech_seconds - 1e-9) {
        state_ = VadState::Speaking;
        speech_start_ = run_start_;
        last_voiced_end_ = consumed_;
      }
    } else {
      run_frames_ = 0;
    }
  } else if (state_ == VadState::Speaking) {
    if (loud) {
      last_voiced_end_ = consumed_;
    } else if (static_cast<double>(consumed_ - last_voiced_end_) / sample_rate_ >=
               options_.end_silence_seconds - 1e-9) {
      end(VadEnd::Silence);
      return;
    }
  }
  if (state_ != VadState::Ended && max_samples_ > 0 && consumed_ >= max_samples_) end(VadEnd::Cap);
}

void VoiceActivityDetector::end(VadEnd reason) {
  if (state_ == VadState::Ended) return;
  end_ = reason;
  state_ = VadState::Ended;
}

VadState VoiceActivityDetector::finish() {
  // A trailing partial frame is too short to judge alone; it belongs to the speech if speech is open.
  if (!pending_.empty() && state_ == VadState::Speaking) {
    consumed_ += pending_.size();
    if (rms_dbfs(pending_) >= options_.min_speech_dbfs) last_voiced_end_ = consumed_;
  }
  pending_.clear();
  end(VadEnd::EndOfInput);
  return state_;
}

VadResult VoiceActivityDetector::result() const {
  VadResult result;
  result.end = end_;
  bool heard = state_ == VadState::Speaking || (state_ == VadState::Ended && last_voiced_end_ > 0);
  if (heard) result.speech = SpeechSegment{speech_start_, last_voiced_end_};
  return result;
}

VadResult detect_speech(std::span<const float> mono, int sample_rate, const VadOptions& options) {
  VoiceActivityDetector detector(sample_rate, options);
  if (detector.feed(mono) != VadState::Ended) detector.finish();
  return detector.result();
}

}  // namespace vimgpt::voice
