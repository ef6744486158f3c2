// Calling the hint library (src/hints/js, embedded at build time) in the isolated world of a frame: one
// evaluate per operation, the library sent along only to a world that lacks it.
#include "hints/hint_script.h"

namespace vimgpt::hints::detail {

// Installed once per isolated world (a navigation starts a new one), then called as __vimgptHints.fn(args).
// Never over one already there: chromium-headless-shell runs a world's new-document script when the world is
// first used, after call_library has installed the library and a find has filled its state.
std::string preload_source() {
  return "globalThis.__vimgptHints = globalThis.__vimgptHints || " + std::string(library_source()) + ";";
}

Result<browser::Json> call_library(const Evaluator& evaluate, std::string_view function, const browser::Json& args) {
  constexpr std::string_view kMissing = "vimgpt:hint-library-missing";
  const std::string call =
      std::string(function) + "(" + args.dump(-1, ' ', false, browser::Json::error_handler_t::replace) + ")";
  // The answer comes back as JSON text: Chromium hands over one string much faster than it converts an
  // object of a few hundred records to protocol values (a seventh to a quarter of a 1,000-link find's round
  // trip, measured).
  const auto parsed = [](const browser::Json& text) -> Result<browser::Json> {
    if (!text.is_string()) return browser::Json();  // undefined
    auto value = browser::Json::parse(text.get<std::string>(), nullptr, false);
    if (value.is_discarded()) return fail(ErrorKind::Protocol, "the hint script answered with malformed JSON");
    return value;
  };
  // A function may answer with a promise (a drop-down's options appear a moment after the click): Tab's
  // evaluate awaits it.
  const auto stringified = [](const std::string& value) {
    return "((v) => v instanceof Promise ? v.then((r) => JSON.stringify(r)) : JSON.stringify(v))(" + value + ")";
  };
  VIMGPT_TRY(browser::Json answer,
             evaluate("globalThis.__vimgptHints ? " + stringified("globalThis.__vimgptHints." + call) + " : \"" +
                      std::string(kMissing) + "\""));
  if (answer != kMissing) return parsed(answer);
  VIMGPT_TRY(browser::Json installed,
             evaluate(stringified("(globalThis.__vimgptHints = " + std::string(library_source()) + ")." + call)));
  return parsed(installed);
}

namespace {
// The elements at `paths`, in the page's main world (a path: child indices, -1 for an open shadow root, -2
// for a same-origin iframe's document), as the body of a function of `paths`.
constexpr std::string_view kLookup =
    "paths.map((p) => { let n = document; for (const k of p) { if (!n) break;"
    " n = k === -1 ? n.shadowRoot : k === -2 ? n.contentDocument : (n.children ? n.children[k] : null); }"
    " return n || null; })";
}  // namespace

std::string main_world_lookup(const browser::Json& paths) {
  // Runs in the page's main world for one evaluate: it stores nothing there and returns the elements as a
  // remote array, so DOMDebugger.getEventListeners sees the listeners page scripts added.
  return "((paths) => " + std::string(kLookup) + ")(" + paths.dump() + ")";
}

std::string main_world_listener_check(const browser::Json& paths, const browser::Json& types) {
  // getEventListeners is DevTools' command-line function (the evaluate must include the command-line API):
  // it reports the listeners of the world it runs in, which is the page's. A page global of that name
  // hides it; then the answer is null.
  return "((paths, types) => { if (!String(typeof getEventListeners === 'function' && getEventListeners)"
         ".includes('[Command Line API]')) return null; return " +
         std::string(kLookup) +
         ".map((n) => { if (!n) return false; const l = getEventListeners(n);"
         " return types.some((t) => Array.isArray(l[t]) && l[t].length > 0); }); })(" +
         paths.dump() + ", " + types.dump() + ")";
}

std::string main_world_key_listener_check(const browser::Json& path, const browser::Json& types) {
  return "((paths, types) => { if (!String(typeof getEventListeners === 'function' && getEventListeners)"
         ".includes('[Command Line API]')) return null; const el = " +
         std::string(kLookup) +
         "[0]; if (!el) return null; const chain = [];"
         " for (let n = el; n; n = n.parentNode || n.host) chain.push(n);"
         " chain.push(el.ownerDocument.defaultView || window);"
         " return chain.some((n) => { const l = getEventListeners(n);"
         " return types.some((t) => Array.isArray(l[t]) && l[t].length > 0); }); })(" +
         browser::Json::array({path}).dump() + ", " + types.dump() + ")";
}

}  // namespace vimgpt::hints::detail
