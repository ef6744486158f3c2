// PortAudio set-up (with its stderr noise silenced) and input device listing / selection.
#include <fcntl.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cstdio>
#include <mutex>
#include <optional>

#if __has_include(<alsa/asoundlib.h>)
#include <alsa/asoundlib.h>
#define VIMGPT_HAVE_ALSA 1
#endif

#include "common/text.h"
#include "voice/portaudio_session.h"

namespace vimgpt::voice {
namespace {

std::mutex pa_init_mutex;

#ifdef VIMGPT_HAVE_ALSA
void ignore_alsa_error(const char*, int, const char*, int, const char*, ...) {}
#endif

// Points fd 2 at /dev/null for the lifetime of the object. Only around Pa_Initialize: JACK's client library
// writes "Cannot connect to server socket" straight to stderr, with no hook to turn it off.
class StderrSilencer {
 public:
  StderrSilencer() {
    std::fflush(stderr);
    saved_ = ::dup(STDERR_FILENO);
    int null_fd = ::open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (saved_ >= 0 && null_fd >= 0) ::dup2(null_fd, STDERR_FILENO);
    if (null_fd >= 0) ::close(null_fd);
  }
  ~StderrSilencer() {
    std::fflush(stderr);
    if (saved_ >= 0) {
      ::dup2(saved_, STDERR_FILENO);
      ::close(saved_);
    }
  }
  StderrSilencer(const StderrSilencer&) = delete;
  StderrSilencer& operator=(const StderrSilencer&) = delete;

 private:
  int saved_ = -1;
};

std::string no_input_device_message() {
  return "no input device: PortAudio found no microphone on this machine. Connect one (check `arecord -l`), pick "
         "one with --mic NAME|INDEX (see `vimgpt devices`), or transcribe a recording with --voice-file FILE";
}

}  // namespace

PortAudioSession::PortAudioSession() {
  std::lock_guard lock(pa_init_mutex);
#ifdef VIMGPT_HAVE_ALSA
  // ALSA's own error hook, for the messages it prints while devices are opened later, not just probed.
  snd_lib_error_set_handler(ignore_alsa_error);
#endif
  PaError error = paNoError;
  {
    StderrSilencer quiet;
    error = Pa_Initialize();
  }
  if (error != paNoError)
    status_ = fail(ErrorKind::Unsupported, "the audio system could not start (PortAudio: " + pa_error_text(error) +
                                               "); check that ALSA or PulseAudio works, e.g. with `arecord -l`");
}

PortAudioSession::~PortAudioSession() {
  if (status_) Pa_Terminate();
}

std::string pa_error_text(PaError error) {
  const char* text = Pa_GetErrorText(error);
  return text ? text : "unknown error";
}

Device describe_device(PaDeviceIndex index) {
  Device device;
  device.index = index;
  if (const PaDeviceInfo* info = Pa_GetDeviceInfo(index)) {
    device.name = info->name ? info->name : "";
    if (const PaHostApiInfo* api = Pa_GetHostApiInfo(info->hostApi); api && api->name) device.host_api = api->name;
    device.max_input_channels = info->maxInputChannels;
    device.max_output_channels = info->maxOutputChannels;
    device.default_sample_rate = info->defaultSampleRate;
  }
  device.is_default_input = index == Pa_GetDefaultInputDevice();
  device.is_default_output = index == Pa_GetDefaultOutputDevice();
  return device;
}

Result<std::vector<Device>> list_input_devices() {
  PortAudioSession session;
  VIMGPT_TRY_VOID(session.status());
  PaDeviceIndex count = Pa_GetDeviceCount();
  if (count < 0) return fail(ErrorKind::Unsupported, "cannot list audio devices: " + pa_error_text(count));
  std::vector<Device> devices;
  for (PaDeviceIndex i = 0; i < count; ++i) {
    Device device = describe_device(i);
    if (device.max_input_channels > 0) devices.push_back(std::move(device));
  }
  return devices;
}

std::string format_device_list(const std::vector<Device>& devices) {
  if (devices.empty()) return "no input devices found (check `arecord -l`; --voice-file FILE works without one)\n";
  std::string out;
  for (const Device& d : devices) {
    char line[512];
    std::snprintf(line, sizeof line, "%4d  %s (%s, %d ch, %.0f Hz)%s\n", d.index, d.name.c_str(), d.host_api.c_str(),
                  d.max_input_channels, d.default_sample_rate, d.is_default_input ? " [default]" : "");
    out += line;
  }
  return out;
}

Result<PaDeviceIndex> resolve_input_device(const std::string& spec) {
  PaDeviceIndex count = Pa_GetDeviceCount();
  bool any_input = false;
  for (PaDeviceIndex i = 0; i < count && !any_input; ++i) any_input = describe_device(i).max_input_channels > 0;
  if (!any_input) return fail(ErrorKind::Unsupported, no_input_device_message());
  if (spec.empty()) {
    PaDeviceIndex index = Pa_GetDefaultInputDevice();
    if (index == paNoDevice) return fail(ErrorKind::Unsupported, no_input_device_message());
    return index;
  }
  int number = -1;
  auto [end, ec] = std::from_chars(spec.data(), spec.data() + spec.size(), number);
  if (ec == std::errc{} && end == spec.data() + spec.size()) {
    if (number < 0 || number >= count || describe_device(number).max_input_channels <= 0)
      return fail(ErrorKind::NotFound,
                  "--mic " + spec + " is not an input device index; `vimgpt devices` lists the valid ones");
    return static_cast<PaDeviceIndex>(number);
  }
  const std::string wanted = ascii_lower(spec);
  std::optional<PaDeviceIndex> partial;
  for (PaDeviceIndex i = 0; i < count; ++i) {
    Device device = describe_device(i);
    if (device.max_input_channels <= 0) continue;
    std::string name = ascii_lower(device.name);
    if (name == wanted) return i;
    if (!partial && name.find(wanted) != std::string::npos) partial = i;
  }
  if (partial) return *partial;
  return fail(ErrorKind::NotFound, "no input device named \"" + spec + "\"; `vimgpt devices` lists them");
}

}  // namespace vimgpt::voice
