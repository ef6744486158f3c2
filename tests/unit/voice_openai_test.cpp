// The openai speech-to-text backend against a loopback server that checks the multipart upload it receives.
#include <gtest/gtest.h>
#include <httplib.h>
#include <stdlib.h>
#include <unistd.h>

#include <cmath>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <numbers>

#include "support/site_server.h"
#include "voice/voice.h"

namespace vimgpt::voice {
namespace {

namespace fs = std::filesystem;

// What the fake endpoint saw in one request, recorded by the handler (on the server's thread).
struct Upload {
  std::string authorization;
  std::string content_type;
  bool multipart = false;
  std::string model;
  std::string language;
  std::string file_name;
  std::string file_type;
  std::string file_bytes;
};

class FakeTranscriptionServer {
 public:
  // Replies with each status in turn (the last one repeats); a 200 carries {"text": transcript}.
  FakeTranscriptionServer(std::vector<int> statuses, std::string transcript)
      : statuses_(std::move(statuses)), transcript_(std::move(transcript)), server_([this](httplib::Server& server) {
          server.Post("/v1/audio/transcriptions", [this](const httplib::Request& request, httplib::Response& response) {
            handle(request, response);
          });
        }) {}

  [[nodiscard]] std::string base_url() const { return server_.url("/v1"); }
  [[nodiscard]] std::vector<Upload> uploads() const {
    std::lock_guard lock(mutex_);
    return uploads_;
  }

 private:
  void handle(const httplib::Request& request, httplib::Response& response) {
    Upload upload;
    upload.authorization = request.get_header_value("Authorization");
    upload.content_type = request.get_header_value("Content-Type");
    upload.multipart = request.is_multipart_form_data();
    upload.model = request.get_file_value("model").content;
    upload.language = request.get_file_value("language").content;
    const auto file = request.get_file_value("file");
    upload.file_name = file.filename;
    upload.file_type = file.content_type;
    upload.file_bytes = file.content;
    int status = 0;
    {
      std::lock_guard lock(mutex_);
      uploads_.push_back(std::move(upload));
      status = statuses_[std::min(uploads_.size(), statuses_.size()) - 1];
    }
    response.status = status;
    if (status == 200) {
      response.set_content(R"({"text": ")" + transcript_ + R"("})", "application/json");
    } else if (status == 503) {
      response.set_header("Retry-After", "0");
      response.set_content(R"({"error": {"message": "overloaded, try again"}})", "application/json");
    } else {
      response.set_content(R"({"error": {"message": "Incorrect API key provided"}})", "application/json");
    }
  }

  std::vector<int> statuses_;
  std::string transcript_;
  mutable std::mutex mutex_;
  std::vector<Upload> uploads_;
  test::SiteServer server_;  // last: stops (joins its thread) before the members the handler uses go away
};

AudioBuffer stereo_tone_44k(double seconds) {
  AudioBuffer audio{44100, 2, {}};
  for (std::size_t i = 0; i < static_cast<std::size_t>(seconds * 44100); ++i) {
    auto s = static_cast<float>(0.4 * std::sin(2.0 * std::numbers::pi * 440.0 * static_cast<double>(i) / 44100.0));
    audio.samples.push_back(s);
    audio.samples.push_back(s);
  }
  return audio;
}

// Records the backoff waits instead of sleeping them.
struct NoSleep {
  std::vector<std::chrono::milliseconds> waits;
  http::RetryPolicy policy() {
    http::RetryPolicy policy;
    policy.max_retries = 3;
    policy.base_delay = std::chrono::milliseconds(1);
    policy.sleep = [this](std::chrono::milliseconds wait) { waits.push_back(wait); };
    return policy;
  }
};

SttOptions openai_options(const FakeTranscriptionServer& server, NoSleep& no_sleep) {
  SttOptions options;
  options.backend = SttBackend::OpenAi;
  options.base_url = server.base_url();
  options.api_key = "sk-test-123";
  options.model = "whisper-large-v3";
  options.language = "en";
  options.retry = no_sleep.policy();
  return options;
}

TEST(VoiceOpenAiStt, UploadsA16kMonoWavAsMultipartWithTheModelField) {
  FakeTranscriptionServer server({200}, "search for the weather");
  NoSleep no_sleep;
  Result<std::string> text = transcribe(stereo_tone_44k(1.5), openai_options(server, no_sleep));
  ASSERT_TRUE(text) << text.error().describe();
  EXPECT_EQ(*text, "search for the weather");

  const auto uploads = server.uploads();
  ASSERT_EQ(uploads.size(), 1u);
  const Upload& upload = uploads[0];
  EXPECT_TRUE(upload.multipart);
  EXPECT_NE(upload.content_type.find("multipart/form-data; boundary="), std::string::npos);
  EXPECT_EQ(upload.authorization, "Bearer sk-test-123");
  EXPECT_EQ(upload.model, "whisper-large-v3");
  EXPECT_EQ(upload.language, "en");
  EXPECT_EQ(upload.file_name, "speech.wav");
  EXPECT_EQ(upload.file_type, "audio/wav");

  // The uploaded bytes are a WAV of the same sound, converted to what Whisper wants.
  std::string pattern = (fs::temp_directory_path() / "vimgpt-upload-XXXXXX").string();
  const int fd = ::mkstemp(pattern.data());
  ASSERT_GE(fd, 0);
  ::close(fd);
  std::ofstream(pattern, std::ios::binary) << upload.file_bytes;
  Result<AudioBuffer> received = read_audio_file(pattern);
  fs::remove(pattern);
  ASSERT_TRUE(received) << received.error().describe();
  EXPECT_EQ(received->sample_rate, 16000);
  EXPECT_EQ(received->channels, 1);
  EXPECT_NEAR(received->duration_seconds(), 1.5, 0.01);
  EXPECT_TRUE(no_sleep.waits.empty());
}

TEST(VoiceOpenAiStt, RetriesA503UntilItSucceeds) {
  FakeTranscriptionServer server({503, 503, 200}, "open the news");
  NoSleep no_sleep;
  Result<std::string> text = transcribe(stereo_tone_44k(0.5), openai_options(server, no_sleep));
  ASSERT_TRUE(text) << text.error().describe();
  EXPECT_EQ(*text, "open the news");
  const auto uploads = server.uploads();
  ASSERT_EQ(uploads.size(), 3u);
  EXPECT_EQ(no_sleep.waits.size(), 2u);
  EXPECT_EQ(uploads[2].file_bytes, uploads[0].file_bytes);  // the same upload each time
  EXPECT_EQ(uploads[2].model, "whisper-large-v3");
}

TEST(VoiceOpenAiStt, GivesUpAfterTheRetryBudgetWithAnHttpError) {
  FakeTranscriptionServer server({503}, "");
  NoSleep no_sleep;
  Result<std::string> text = transcribe(stereo_tone_44k(0.3), openai_options(server, no_sleep));
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().kind, ErrorKind::Http);
  EXPECT_EQ(server.uploads().size(), 4u);  // one try + max_retries
  EXPECT_NE(text.error().message.find("503"), std::string::npos) << text.error().message;
}

TEST(VoiceOpenAiStt, DoesNotRetryARejectedKeyAndNeverEchoesIt) {
  FakeTranscriptionServer server({401}, "");
  NoSleep no_sleep;
  Result<std::string> text = transcribe(stereo_tone_44k(0.3), openai_options(server, no_sleep));
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().kind, ErrorKind::Http);
  EXPECT_EQ(server.uploads().size(), 1u);
  EXPECT_EQ(text.error().message.find("sk-test-123"), std::string::npos);
}

TEST(VoiceOpenAiStt, EmptyTranscriptIsNotFound) {
  FakeTranscriptionServer server({200}, "  ");
  NoSleep no_sleep;
  Result<std::string> text = transcribe(stereo_tone_44k(0.3), openai_options(server, no_sleep));
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().kind, ErrorKind::NotFound);
}

TEST(VoiceOpenAiStt, OpenAiWithoutAKeyFailsBeforeUploading) {
  SttOptions options;
  options.backend = SttBackend::OpenAi;
  Result<std::string> text = transcribe(stereo_tone_44k(0.3), options);
  ASSERT_FALSE(text);
  EXPECT_EQ(text.error().kind, ErrorKind::InvalidArgument);
  EXPECT_NE(text.error().message.find("OPENAI_API_KEY"), std::string::npos);
}

}  // namespace
}  // namespace vimgpt::voice
