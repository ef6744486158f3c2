// Without any audio device (CI machines have none), voice mode must fail at once with a message that says
// what to do, never hang or crash.
#include <gtest/gtest.h>

#include "voice/voice.h"

namespace vimgpt::voice {
namespace {

// Hiding sound cards with an empty ALSA_CONFIG_PATH is not an option: PortAudio 19.6 then fails an assert
// in its ALSA device scan and aborts. So these tests run where there is no device (CI) and skip elsewhere.
class VoiceNoDevice : public testing::Test {
 protected:
  void SetUp() override {
    Result<std::vector<Device>> devices = list_input_devices();
    ASSERT_TRUE(devices) << devices.error().describe();
    if (!devices->empty()) GTEST_SKIP() << "this machine has an input device:\n" << format_device_list(*devices);
  }
};

TEST_F(VoiceNoDevice, ListingSaysThereAreNone) {
  Result<std::vector<Device>> devices = list_input_devices();
  ASSERT_TRUE(devices);
  EXPECT_NE(format_device_list(*devices).find("no input devices found"), std::string::npos);
}

TEST_F(VoiceNoDevice, ListeningFailsWithTheNoInputDeviceMessage) {
  int level_reports = 0;
  VoiceOptions options;
  Result<std::string> text = listen_and_transcribe(options, [&](const ListenProgress&) { ++level_reports; });
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().kind, ErrorKind::Unsupported);
  const std::string& message = text.error().message;
  EXPECT_NE(message.find("no input device"), std::string::npos) << message;
  EXPECT_NE(message.find("--voice-file"), std::string::npos) << message;  // says what to do instead
  EXPECT_EQ(level_reports, 0);
}

TEST_F(VoiceNoDevice, ChoosingAMicrophoneByIndexOrNameFailsTheSameWay) {
  for (const char* mic : {"0", "USB"}) {
    CaptureOptions options;
    options.device = mic;
    Result<AudioBuffer> audio = record_utterance(options);
    ASSERT_FALSE(audio) << mic;
    EXPECT_EQ(audio.error().kind, ErrorKind::Unsupported) << mic;
    EXPECT_NE(audio.error().message.find("no input device"), std::string::npos) << audio.error().message;
  }
}

TEST_F(VoiceNoDevice, SpeakingFailsAndPointsToSpeakTo) {
  Status spoken = speak("done");
  ASSERT_FALSE(spoken);
  EXPECT_EQ(spoken.error().kind, ErrorKind::Unsupported);
  // A build without espeak-ng (-DVIMGPT_WITH_ESPEAK=OFF) cannot write speech either: it says how to get one that can.
  const char* what_to_do = speech_available() ? "--speak-to" : "-DVIMGPT_WITH_ESPEAK=ON";
  EXPECT_NE(spoken.error().message.find(what_to_do), std::string::npos) << spoken.error().message;
}

}  // namespace
}  // namespace vimgpt::voice
