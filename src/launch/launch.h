// Starting a local browser: Chromium (its DevTools pipe), Firefox (its WebDriver BiDi socket), the child process
// they run as, and an Xvfb for a headed browser on a machine without a display. launch_browser is the one place that
// maps an engine's name to the browser started for it.
#pragma once

#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "common/result.h"
#include "wire/wire.h"

namespace vimgpt::launch {

using wire::Json;
using wire::Transport;

// Xvfb: the full browser, headed, on a virtual display of its own (Debian's Xvfb), for a machine without one: a
// browser as a person's, with no "Headless" anywhere, on a server.
enum class Display { Headless, Headed, Xvfb };

// The Chromium features a launched browser runs without (--disable-features=...); a browser started for the
// agent by hand should get them too (README). Back/forward cache restores fire no load events, and going
// back should load like any navigation. The WebUI omnibox popups: Chromium 156 keeps one loaded in a
// renderer of its own, even headless, and loads it again on every navigation of the tab, on the cores the
// capture needs. RenderDocument gives every new document a new frame host and compositor, whose first frame
// starts from nothing. IgnoreDuplicateNavs (on in chromium-headless-shell) drops a click's navigation to the
// URL of one still ongoing: a download's navigation lingers there after the file is saved, so the same download
// clicked again never began (1 run in 30 under load). The figures behind each: docs/benchmarks.md.
inline constexpr std::string_view kDisabledFeatures =
    "BackForwardCache,Translate,MediaRouter,OptimizationHints,DialMediaRouteProvider,"
    "WebUIOmniboxPopup,WebUIOmniboxAimPopup,WebUIOmniboxFullPopup,RenderDocument,IgnoreDuplicateNavs";

// Which browser a local launch starts: Chromium (spoken to over CDP) or Firefox (over WebDriver BiDi).
enum class Engine { Chromium, Firefox };
// "chromium" or "firefox"; InvalidArgument otherwise.
Result<Engine> parse_engine(std::string_view name);
std::string_view to_string(Engine engine);

struct LaunchOptions {
  Engine engine = Engine::Chromium;
  // Firefox: empty: $FIREFOX_PATH, else Debian's /usr/lib/firefox-esr/firefox-esr.
  std::string firefox_path;
  // empty: $CHROME_PATH, else /usr/lib/chromium/chromium-headless-shell when headless without an extension and
  // installed, else /usr/lib/chromium/chromium
  std::string chrome_path;
  Display display = Display::Headless;
  std::string user_data_dir;  // empty: a fresh temporary profile, removed when the browser is closed
  std::string extension_dir;  // an unpacked extension to load (e.g. a real Vimium)
  std::string user_agent;
  int window_width = 1080;
  int window_height = 720;
  std::vector<std::string> extra_args;  // Chromium: a --disable-features here is added to kDisabledFeatures
  // Firefox: prefs written to the profile's user.js after ours (so they win), each a name and a value in user.js
  // syntax ("true", "3", "\"text\"").
  std::vector<std::pair<std::string, std::string>> firefox_prefs;
};

// Starts Chromium with --remote-debugging-pipe. The returned transport owns the process: destroying it
// ends and reaps the child and removes a temporary profile. The browser also ends when the thread that
// launched it does (PR_SET_PDEATHSIG follows the thread): launch from one that lives as long as the browser.
Result<std::unique_ptr<Transport>> launch_chromium(const LaunchOptions& options);

// Starts Firefox (Debian's firefox-esr; headless, headed, or on an Xvfb of its own) for WebDriver BiDi: a fresh profile
// (or user_data_dir) with the prefs an automated Firefox needs, and the WebSocket its remote agent announces,
// connected. The transport owns the process as launch_chromium's does. BiDi's messages ride on Connection: commands by
// id, "success"/"error" replies and "event"s (https://w3c.github.io/webdriver-bidi/).
Result<std::unique_ptr<Transport>> launch_firefox(const LaunchOptions& options);
// Those prefs as JSON values, for a Firefox that someone else starts (a WebDriver session's moz:firefoxOptions).
Json firefox_automation_prefs();
// The capabilities every BiDi session vimgpt opens on Firefox asks for (its own launch's, a running Firefox's socket,
// a WebDriver server's session): prompts are left open for the tab to report and answer, never dismissed by Firefox.
Json firefox_session_capabilities();

// Starts the browser options.engine names: launch_chromium or launch_firefox.
Result<std::unique_ptr<Transport>> launch_browser(const LaunchOptions& options);

}  // namespace vimgpt::launch
