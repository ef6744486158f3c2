// autoconsent's standalone build (node_modules/@duckduckgo/autoconsent/dist/autoconsent.standalone.js) configures
// itself for the page's own world (isMainWorld: its rules' snippets read the consent platforms' globals in place),
// refuses consent (autoAction "optOut", the library's default), hides a known platform's dialog while it answers it
// (prehide), and keeps every message it sends in window.autoconsentStandalone.messages, beside the instance and its
// state: what vimgpt reads here.
#include "consent/consent.h"

#include <nlohmann/json.hpp>

#include "common/url.h"

namespace vimgpt::consent {

namespace detail {
std::string_view autoconsent_standalone();  // generated at build time (CMakeLists.txt); empty when not installed
}  // namespace detail

namespace {

constexpr milliseconds kFirstLook{1500};  // a document's first settle waits at most this while autoconsent looks

// --consent accept: run after the standalone build has made its instance (its config is read when it acts, once the
// document has loaded). It gives consent, and keeps only the platforms it has an accept step for: a rule without one
// would report success having clicked nothing (an empty step list runs "successfully"), and the heuristic throws.
constexpr std::string_view kAcceptInstead =
    "\n;(() => { const s = window.autoconsentStandalone; if (!s || !s.instance) return;"
    " const config = s.instance.config; config.autoAction = 'optIn'; config.enableHeuristicDetection = false;"
    " s.instance.rules = (s.instance.rules || []).filter((r) =>"
    "  !(r.rule && Array.isArray(r.rule.optIn) && r.rule.optIn.length === 0)); })();\n";

// Resolves when autoconsent is not answering a dialog, at most `cap`; on the document's first call, when the page holds
// an element of a platform autoconsent knows (what it hides while it answers, its rules' prehide selectors, or what it
// detects the platform by, their `exists` and `visible` steps: piano.io's rule has no prehide selector), also not
// while it is about to look, is looking (it looks again each half second while it finds nothing: a platform that
// shows its dialog late) or has found the platform and not yet its dialog, at most kFirstLook. A page without one
// is not waited for: autoconsent looks once the page is idle, a quarter of a second after the load here, and what its
// heuristic finds later is told at the next step. The answer holds the results it gave since the last call, and the
// dialog it is still answering, if any. State changes reach it as messages: their array's push is watched while it
// waits, so nothing polls.
std::string settle_script(milliseconds cap) {
  return "((cap, firstLook) => new Promise((resolve) => {"
         " const s = window.autoconsentStandalone;"
         " if (!s || !s.instance || !Array.isArray(s.messages)) { resolve(null); return; }"
         " const state = () => s.instance.state || {};"
         " const answering = () => ['openPopupDetected', 'runningOptOut', 'runningOptIn'].includes(state().lifecycle);"
         " const first = !s.vimgptSettled; s.vimgptSettled = true;"
         " let known = false;"
         " const present = (selector) => { try { return document.querySelector(selector) !== null; }"
         "  catch (e) { return false; } };"
         " const marks = (r) => (r.prehideSelectors || []).concat(((r.rule && Array.isArray(r.rule.detectCmp)) ?"
         "  r.rule.detectCmp : []).map((step) => step.exists || step.visible));"
         " if (first) try { known = (s.instance.rules || []).filter((r) => r.checkRunContext()).flatMap(marks)"
         "  .some((selector) => typeof selector === 'string' && present(selector)); } catch (e) { known = true; }"
         " const looking = () => known &&"
         "  ['loading', 'waitingForInitResponse', 'initialized', 'started', 'cmpDetected'].includes(state().lifecycle);"
         " const push = s.messages.push; const timers = [];"
         " const finish = () => { timers.forEach(clearTimeout); s.messages.push = push;"
         "  const from = s.vimgptReported || 0; s.vimgptReported = s.messages.length; const out = [];"
         "  for (const m of s.messages.slice(from)) if (m.type === 'optOutResult' || m.type === 'optInResult')"
         "   out.push({cmp: String(m.cmp || ''), result: m.result === true, given: m.type === 'optInResult'});"
         "  if (answering()) out.push({cmp: String((state().detectedCmps || [])[0] || ''), result: null});"
         "  resolve(out); };"
         " if (!answering() && !looking()) { finish(); return; }"
         " s.messages.push = function (...items) { const n = push.apply(this, items);"
         "  if (!answering() && !looking()) finish(); return n; };"
         " timers.push(setTimeout(() => { if (!answering()) finish(); }, firstLook), setTimeout(finish, cap));"
         "}))(" +
         std::to_string(cap.count()) + ", " + std::to_string(std::min(cap, kFirstLook).count()) + ")";
}

std::string platform(const nlohmann::json& entry) {
  const std::string cmp = entry.value("cmp", "");
  return cmp.empty() ? "" : " (" + cmp + ")";
}

// One document's answers in words, `dialog` naming whose dialog it was.
void tell(const nlohmann::json& answers, const std::string& dialog, std::vector<std::string>& said) {
  for (const auto& answer : answers) {
    if (!answer.is_object()) continue;
    const auto& result = answer.contains("result") ? answer["result"] : nlohmann::json();
    if (result.is_null()) {
      said.push_back(dialog + platform(answer) + " is still being answered for you");
    } else if (result == true) {
      said.push_back(
          dialog + platform(answer) + " was answered for you: " +
          (answer.value("given", false) ? "consent given (--consent accept)" : "consent refused (--consent reject)"));
    } else {
      said.push_back(dialog + platform(answer) +
                     " could not be answered for you: answer it on the page if it is in the way");
    }
  }
}

}  // namespace

Result<Mode> parse_mode(std::string_view text) {
  if (text == "reject") return Mode::Reject;
  if (text == "off") return Mode::Off;
  if (text == "accept") return Mode::Accept;
  return fail(ErrorKind::InvalidArgument,
              "--consent takes reject (the default), accept or off, not '" + std::string(text) + "'");
}

bool available() {
  return !detail::autoconsent_standalone().empty();
}

Status install(browser::Tab& tab, Mode mode) {
  if (mode == Mode::Off) return ok();
  if (!available()) {
    return fail(ErrorKind::NotFound,
                "this vimgpt was built without autoconsent, so cookie-consent dialogs are left to the model: run "
                "`npm ci` in src/consent and build again (scripts/run.sh does both), or pass --consent off");
  }
  std::string source(detail::autoconsent_standalone());
  if (mode == Mode::Accept) source += kAcceptInstead;
  return tab.preload("autoconsent", source, browser::ScriptWorld::Page);
}

std::vector<std::string> settle(browser::Tab& tab, milliseconds cap) {
  std::vector<std::string> said;
  const auto deadline = std::chrono::steady_clock::now() + cap;
  auto answers = tab.evaluate_in_page(settle_script(cap));
  // No autoconsent in the page (--consent off), or a page that cannot be asked: nothing to say, nor in its frames.
  if (!answers || !answers->is_array()) return said;
  tell(*answers, "the page's cookie-consent dialog", said);
  // A platform that serves its dialog from its own site answers in that frame's process: asked there too, in what is
  // left of the same cap.
  for (const auto& frame : tab.child_frames()) {
    const auto left = std::chrono::duration_cast<milliseconds>(deadline - std::chrono::steady_clock::now()).count();
    if (left <= 0) break;
    auto in_frame = tab.evaluate_in_frame_page(frame, settle_script(milliseconds{left}));
    if (in_frame && in_frame->is_array())
      tell(*in_frame, "the cookie-consent dialog in a frame from " + url_host(frame.url), said);
  }
  return said;
}

}  // namespace vimgpt::consent
