// report.html: one self-contained page (frames inlined) to step through a recorded run.
#include <array>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "agent/agent.h"
#include "common/base64.h"
#include "common/file.h"
#include "common/text.h"

namespace vimgpt::agent {
namespace {

// A file of the record, or nothing when it is missing (the report shows what there is).
std::string read_recorded(const std::filesystem::path& path) {
  return read_file(path).value_or(std::string());
}

std::string mime_for(const std::string& name) {
  if (name.ends_with(".png")) return "image/png";
  if (name.ends_with(".webp")) return "image/webp";
  return "image/jpeg";
}

std::string number(double value) {
  std::ostringstream out;
  out << value;
  return out.str();
}

constexpr const char* kStyle = R"(
body { font: 14px/1.4 system-ui, sans-serif; margin: 0; background: #f4f4f4; color: #222; }
header { background: #222; color: #eee; padding: 12px 20px; position: sticky; top: 0; z-index: 2; }
header h1 { font-size: 16px; margin: 0 0 4px; }
nav button { margin-right: 6px; }
section.step { background: #fff; margin: 16px 20px; padding: 12px 16px; border-radius: 6px; box-shadow: 0 1px 3px #0002; }
section.step.error h2 { color: #b00020; }
.frame { position: relative; display: inline-block; max-width: 100%; }
.frame img { max-width: 100%; display: block; border: 1px solid #ccc; }
.frame svg { position: absolute; left: 0; top: 0; width: 100%; height: 100%; pointer-events: none; }
pre { background: #f7f7f7; padding: 8px; white-space: pre-wrap; word-break: break-word; max-height: 240px; overflow: auto; }
.beside { display: flex; gap: 12px; align-items: flex-start; } .beside figure { margin: 0; max-width: 60%; }
.beside img { max-width: 100%; border: 1px solid #ccc; }
table { border-collapse: collapse; } td, th { padding: 2px 10px 2px 0; text-align: left; }
)";

constexpr const char* kScript = R"(
const steps = [...document.querySelectorAll('section.step')];
let current = 0;
function show(i) { current = Math.max(0, Math.min(steps.length - 1, i)); steps[current]?.scrollIntoView(); }
document.getElementById('prev')?.addEventListener('click', () => show(current - 1));
document.getElementById('next')?.addEventListener('click', () => show(current + 1));
document.addEventListener('keydown', e => { if (e.key === 'ArrowRight' || e.key === 'j') show(current + 1);
  if (e.key === 'ArrowLeft' || e.key === 'k') show(current - 1); });
)";

void write_step(std::ostringstream& html, const Json& step, const std::filesystem::path& dir) {
  const bool ok = step.value("ok", true);
  html << "<section class=\"step" << (ok ? "" : " error") << "\" id=\"step-" << step.value("step", 0) << "\">\n";
  html << "<h2>Step " << step.value("step", 0) << ": " << html_text(step.value("action", Json::object()).dump())
       << "</h2>\n";
  html << "<p><b>" << html_text(step.value("title", "")) << "</b> &mdash; <code>" << html_text(step.value("url", ""))
       << "</code></p>\n";
  const auto replay = step.value("replay", Json::object());
  if (!replay.empty()) {
    html << "<p><b>Replay:</b> " << html_text(replay.value("mark", ""));
    if (replay.contains("step")) html << " (recorded step " << replay.value("step", 0) << ")";
    if (const auto why = replay.value("why", ""); !why.empty()) html << " &mdash; " << html_text(why);
    if (const auto intention = replay.value("intention", ""); !intention.empty())
      html << "<br>recorded intention: " << html_text(intention);
    html << "</p>\n";
  }
  // A diverged replay step: the recorded frame around the target first, today's frame beside it.
  const std::string recorded = replay.value("recorded_frame", "");
  if (!recorded.empty()) {
    html << "<div class=\"beside\"><figure><figcaption>as recorded</figcaption><img alt=\"" << html_text(recorded)
         << "\" src=\"data:" << mime_for(recorded) << ";base64," << base64_encode(read_recorded(dir / recorded))
         << "\"></figure><figure><figcaption>today</figcaption>";
  }
  for (const auto& frame : step.value("frames", Json::array())) {
    const std::string name = frame.get<std::string>();
    const std::string bytes = read_recorded(dir / name);
    if (bytes.empty()) continue;
    html << "<div class=\"frame\"><img alt=\"" << html_text(name) << "\" src=\"data:" << mime_for(name) << ";base64,"
         << base64_encode(bytes) << "\">";
    // The element acted on, circled: rects are in viewport CSS px, the frame may be scaled.
    const auto viewport = step.value("viewport", Json::array());
    if (step.contains("target") && viewport.size() == 2 && viewport[0].get<double>() > 0) {
      const auto& t = step["target"];
      html << "<svg viewBox=\"0 0 " << number(viewport[0].get<double>()) << " " << number(viewport[1].get<double>())
           << "\" preserveAspectRatio=\"none\"><ellipse cx=\"" << number(t.value("x", 0.0) + t.value("width", 0.0) / 2)
           << "\" cy=\"" << number(t.value("y", 0.0) + t.value("height", 0.0) / 2) << "\" rx=\""
           << number(t.value("width", 0.0) / 2 + 8) << "\" ry=\"" << number(t.value("height", 0.0) / 2 + 8)
           << "\" fill=\"none\" stroke=\"#e00\" stroke-width=\"3\"/></svg>";
    }
    html << "</div>\n";
  }
  if (!recorded.empty()) html << "</figure></div>\n";
  if (const auto recovered = step.value("recovered", ""); !recovered.empty())
    html << "<p><b>Recovered:</b> " << html_text(recovered) << "</p>\n";
  if (const auto& takeover = step.value("takeover", Json()); takeover.is_object())
    html << "<p><b>A person took over:</b> " << html_text(takeover.value("description", "")) << "</p>\n";
  html << "<p><b>Result:</b> " << (ok ? "ok" : "error") << " &mdash; " << html_text(step.value("result", ""))
       << "</p>\n";
  if (const auto& check = step.value("check", Json()); check.is_object()) {
    // --verify's verdict on this step's answer.
    const std::string verdict = check.contains("error")        ? "could not be made: " + check.value("error", "")
                                : check.value("passed", false) ? "passed: " + check.value("reason", "")
                                                               : "failed: " + check.value("reason", "");
    html << "<p><b>Answer checked:</b> " << html_text(verdict) << "</p>\n";
  }
  html << "<details><summary>Model reply";
  if (const auto repair = step.value("repair", "none"); repair != "none")
    html << " (repaired: " << html_text(repair) << ")";
  html << "</summary><pre>" << html_text(step.value("raw_reply", "")) << "</pre></details>\n";
  const auto timings = step.value("timings_ms", Json::object());
  // Recordings from before the finer phases have only the coarse ones: show what is there.
  constexpr std::array kPhases{"hints", "screenshot", "draw", "check", "encode", "request", "act", "settle", "total"};
  html << "<table><tr>";
  for (const auto* phase : kPhases) html << "<th>" << phase << "</th>";
  html << "<th>labels</th><th>tokens</th><th>cached</th></tr><tr>";
  for (const auto* phase : kPhases) {
    if (timings.contains(phase))
      html << "<td>" << timings.value(phase, 0) << " ms</td>";
    else
      html << "<td>&ndash;</td>";
  }
  const auto usage = step.value("usage", Json::object());
  html << "<td>" << step.value("hint_count", 0) << "</td><td>"
       << usage.value("prompt_tokens", 0) + usage.value("completion_tokens", 0) << "</td><td>"
       << usage.value("cached_tokens", 0) << "</td></tr></table>\n";
  html << "</section>\n";
}

}  // namespace

Status write_report(const std::string& record_dir) {
  const std::filesystem::path dir(record_dir);
  std::ifstream steps_file(dir / "steps.jsonl");
  if (!steps_file) return fail(ErrorKind::NotFound, "no steps.jsonl in " + record_dir + " (is it a --record folder?)");
  std::vector<Json> steps;
  std::string line;
  while (std::getline(steps_file, line)) {
    Json step = Json::parse(line, nullptr, false);
    if (step.is_object()) steps.push_back(std::move(step));  // a torn last line from a crash is skipped
  }
  Json run = Json::parse(read_recorded(dir / "run.json"), nullptr, false);
  if (!run.is_object()) run = Json::object();

  std::ostringstream html;
  html << "<!doctype html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>vimgpt run: "
       << html_text(run.value("objective", "")) << "</title><style>" << kStyle << "</style></head><body>\n<header><h1>"
       << html_text(run.value("objective", "(no objective recorded)")) << "</h1><div>Outcome: <b>"
       << html_text(run.value("outcome", "unfinished")) << "</b>";
  if (run.contains("answer") && !run["answer"].is_null())
    html << " &mdash; answer: " << html_text(run["answer"].dump());
  const auto usage = run.value("usage", Json::object());
  html << " &middot; " << steps.size() << " steps &middot; " << run.value("elapsed_ms", 0) / 1000.0 << " s &middot; "
       << usage.value("prompt_tokens", 0) << " prompt (" << usage.value("cached_tokens", 0) << " cached) + "
       << usage.value("completion_tokens", 0) << " completion tokens";
  if (usage.contains("cost_usd")) html << " &middot; $" << usage["cost_usd"].get<double>();
  html << "</div><nav><button id=\"prev\">&larr; previous</button><button id=\"next\">next &rarr;</button></nav>"
       << "</header>\n<main>\n";
  for (const auto& step : steps) write_step(html, step, dir);
  html << "</main>\n<script>" << kScript << "</script>\n</body></html>\n";

  std::ofstream out(dir / "report.html", std::ios::binary);
  out << html.str();
  if (!out) return fail(ErrorKind::Io, "cannot write report.html in " + record_dir);
  return ok();
}

}  // namespace vimgpt::agent
