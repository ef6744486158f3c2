// Cookie-consent dialogs answered before the model sees the page, as DuckDuckGo's browsers answer them:
// DuckDuckGo's autoconsent (@duckduckgo/autoconsent, MPL-2.0; pinned by src/consent/package-lock.json, its standalone
// build embedded at build time) runs in the page's own world of every document and frame, finds the consent platform
// a page uses (its rules know some three hundred, and a heuristic the rest), and refuses consent there; or, asked to,
// gives it where its rules know how.
#pragma once

#include <chrono>
#include <string>
#include <string_view>
#include <vector>

#include "browser/browser.h"
#include "common/result.h"

namespace vimgpt::consent {

using std::chrono::milliseconds;

// --consent: refuse what a dialog asks (the default); give it, on the platforms whose accept step autoconsent knows
// (those it has code for: OneTrust, Cookiebot, Sourcepoint, TrustArc, consentmanager, Klaro, …; its other rules and its
// heuristic know only the way to refuse, so those dialogs are left to the model); or leave every dialog to the model.
enum class Mode { Reject, Accept, Off };
Result<Mode> parse_mode(std::string_view text);

// Whether this build embeds autoconsent (the set-up's npm ci in src/consent before building).
bool available();

// From the next document the tab loads on: autoconsent in each (Mode::Off: nothing). NotFound when this build has
// no autoconsent (what to run is in the message).
Status install(browser::Tab& tab, Mode mode);

// What autoconsent answered in the page shown since the last call, one line each for the model ("the page's cookie
// consent dialog (Onetrust) was answered: consent refused"). Waits while it is still answering a dialog it found, at
// most `cap`, and on a document's first call also while it is about to look (a page that just loaded): what it
// answers is then gone from the frame the model gets.
std::vector<std::string> settle(browser::Tab& tab, milliseconds cap);

}  // namespace vimgpt::consent
