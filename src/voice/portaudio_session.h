// Private to src/voice: PortAudio set-up shared by capture, playback and device listing.
#pragma once

#include <portaudio.h>

#include <string>

#include "voice/voice.h"

namespace vimgpt::voice {

// Pa_Initialize / Pa_Terminate as a scope. PortAudio counts initialisations, so sessions may nest.
// Probing prints pages of ALSA and JACK complaints to stderr on machines without sound hardware; they are
// silenced here because the user gets one clear message from us instead.
class PortAudioSession {
 public:
  PortAudioSession();
  ~PortAudioSession();
  PortAudioSession(const PortAudioSession&) = delete;
  PortAudioSession& operator=(const PortAudioSession&) = delete;

  [[nodiscard]] const Status& status() const { return status_; }

 private:
  Status status_;
};

Device describe_device(PaDeviceIndex index);

// "" → the default input; digits → that index; otherwise the first device whose name contains the text
// (case-insensitive), preferring an exact match.
Result<PaDeviceIndex> resolve_input_device(const std::string& spec);

std::string pa_error_text(PaError error);

}  // namespace vimgpt::voice
