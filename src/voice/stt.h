// Private to src/voice: the speech-to-text backends behind transcribe(). Each takes 16 kHz mono audio.
#pragma once

#include <string>

#include "voice/voice.h"

namespace vimgpt::voice {

Result<std::string> transcribe_local(const AudioBuffer& speech, const SttOptions& options);
Result<std::string> transcribe_openai(const AudioBuffer& speech, const SttOptions& options);

}  // namespace vimgpt::voice
