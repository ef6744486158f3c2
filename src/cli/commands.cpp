// The small commands: shot, hints, ask, report, devices.
#include "cli/commands.h"

#include <cstdio>
#include <fstream>
#include <iostream>

#include "cli/settings.h"
#include "voice/voice.h"

namespace vimgpt::cli {

int usage(const std::string& message) {
  std::cerr << "vimgpt: " << with_setting_source(message) << "\n";
  return kExitUsage;
}

int report_error(const Error& error) {
  std::cerr << "vimgpt: "
            << (error.kind == ErrorKind::InvalidArgument ? with_setting_source(error.message) : error.message) << "\n";
  return error.kind == ErrorKind::InvalidArgument ? kExitUsage : 1;
}

namespace {

Status write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) return fail(ErrorKind::Io, "cannot write " + path);
  return ok();
}

Result<std::unique_ptr<browser::Tab>> open_tab(const Options& options, const Config& config) {
  VIMGPT_TRY(auto launch, launch_options(options, config));
  VIMGPT_TRY(auto tab_settings, tab_options(options));
  return open_browser_tab(options, launch, tab_settings);
}

}  // namespace

int shot_command(const Options& options, const std::string& url, const std::string& output) {
  const Config config = Config::load();
  auto format = parse_image_format(output.ends_with(".jpg") || output.ends_with(".jpeg") ? "jpeg"
                                   : output.ends_with(".webp")                           ? "webp"
                                                                                         : "png");
  auto tab = open_tab(options, config);
  if (!tab) return report_error(tab.error());
  auto target = agent::normalize_url(url);
  if (!target) return report_error(target.error());
  if (auto loaded = (*tab)->navigate(*target); !loaded) return report_error(loaded.error());
  auto shot = (*tab)->screenshot({*format, options.jpeg_quality, 1.0, std::nullopt});
  if (!shot) return report_error(shot.error());
  if (auto written = write_bytes(output, shot->bytes); !written) return report_error(written.error());
  std::cerr << "saved " << output << " (" << shot->width << "x" << shot->height << ", " << shot->bytes.size()
            << " bytes)\n";
  return 0;
}

int hints_command(const Options& options, const std::string& url, bool json, const std::string& png,
                  const std::string& mode) {
  const Config config = Config::load();
  Options with_mode = options;
  with_mode.hint_mode = mode;
  with_mode.image_format = "png";
  auto capture_settings = capture_options(with_mode);
  if (!capture_settings) return report_error(capture_settings.error());
  capture_settings->screenshot.scale = 1.0;
  auto tab = open_tab(options, config);
  if (!tab) return report_error(tab.error());
  auto target = agent::normalize_url(url);
  if (!target) return report_error(target.error());
  if (auto loaded = (*tab)->navigate(*target); !loaded) return report_error(loaded.error());
  auto capture = hints::capture(**tab, *capture_settings);
  if (!capture) return report_error(capture.error());
  if (json) {
    std::cout << capture->map.to_json().dump(2) << "\n";
  } else {
    std::cout << capture->map.to_text();
  }
  if (!png.empty()) {
    if (auto written = write_bytes(png, capture->labelled.bytes); !written) return report_error(written.error());
    if (capture->clean) {
      const std::string clean = png.substr(0, png.rfind('.')) + "-clean.png";
      if (auto written = write_bytes(clean, capture->clean->bytes); !written) return report_error(written.error());
    }
  }
  std::cerr << capture->map.size() << " hints\n";
  return 0;
}

int ask_command(const Options& options, const std::string& image_path, const std::string& objective) {
  const Config config = Config::load();
  auto client = client_options(options, config);
  if (!client) return report_error(client.error());
  print_model_notices(*client);
  auto image = vision::load_image_file(image_path);
  if (!image) return report_error(image.error());
  auto decision = vision::ask(*client, *image, objective);
  if (!decision) return report_error(decision.error());
  std::cout << decision->action.dump() << "\n";
  if (options.verbosity > 0) std::cerr << "reply: " << decision->raw_reply << "\n";
  return 0;
}

int report_command(const std::string& dir) {
  if (auto written = agent::write_report(dir); !written) return report_error(written.error());
  std::cerr << "wrote " << dir << "/report.html\n";
  return 0;
}

int devices_command() {
  auto devices = voice::list_input_devices();
  if (!devices) return report_error(devices.error());
  std::cout << voice::format_device_list(*devices);
  return 0;
}

Result<std::unique_ptr<browser::Tab>> open_browser_tab(const Options& options, const launch::LaunchOptions& launch,
                                                       const browser::TabOptions& tab) {
  if (options.browsers.empty()) return browser::Tab::launch(launch, tab);
  VIMGPT_TRY(auto remote, remote_options(options));
  // Ctrl-C ends a wait for the browser (a Grid queueing the session) too, once the command handles it.
  remote.stop = stop_requested;
  remote.on_queued = [](const std::string& message) { std::cerr << "vimgpt: " << message << " (Ctrl-C stops)\n"; };
  VIMGPT_TRY(auto transport, fleet::connect_browser(options.browsers.front(), remote));
  // The tab holds the only reference: closing it disposes of its context and then drops the link.
  return browser::Tab::open(std::make_shared<wire::Connection>(std::move(transport)), tab, remote.engine);
}

}  // namespace vimgpt::cli
