// `vimgpt export DIR --to playwright`: a recorded run as a Playwright Test script, its elements found by the
// locators Playwright recommends (role and accessible name, placeholder, text) built from the signatures.
// Playwright's API: https://playwright.dev/docs/locators
#include <cmath>
#include <sstream>

#include "replay/facts.h"
#include "replay/replay.h"

namespace vimgpt::replay {
namespace {

using detail::field;

// Text for a one-line comment.
std::string comment(std::string text) {
  for (auto& c : text) {
    if (c == '\n' || c == '\r') c = ' ';
  }
  return text;
}

// A JavaScript string literal (JSON's string syntax is JavaScript's).
std::string literal(const std::string& text) {
  return Json(text).dump(-1, ' ', false, Json::error_handler_t::replace);
}

// Typed text as an expression: <secret:NAME> placeholders read the environment at run time, never a value.
std::string text_expression(const std::string& text) {
  std::vector<std::string> parts;
  std::size_t at = 0;
  while (at < text.size()) {
    const auto open = text.find("<secret:", at);
    const auto close = open == std::string::npos ? std::string::npos : text.find('>', open);
    if (close == std::string::npos) {
      parts.push_back(literal(text.substr(at)));
      break;
    }
    if (open > at) parts.push_back(literal(text.substr(at, open - at)));
    parts.push_back("secret(" + literal(text.substr(open + 8, close - open - 8)) + ")");
    at = close + 1;
  }
  if (parts.empty()) return "''";
  std::string out;
  for (const auto& part : parts) out += (out.empty() ? "" : " + ") + part;
  return out;
}

// Our hint text is cut at 80 characters; a cut name can only be matched as a part.
constexpr std::size_t kCutText = 80;

// A locator for the recorded element, or nothing when the signature has no text, placeholder or name to
// find it by (the step then clicks where the element was).
std::optional<std::string> locator(const Json& signature) {
  std::string base = "page";
  if (const auto frame = field(signature, "frame"); !frame.empty())
    base = "page.frame({ url: " + literal(frame) + " })!";
  const std::string role = field(signature, "role");
  const std::string text = field(signature, "text");
  const std::string exact = text.size() >= kCutText ? "false" : "true";
  if (const auto placeholder = field(signature, "placeholder"); !placeholder.empty())
    return base + ".getByPlaceholder(" + literal(placeholder) + ", { exact: true })";
  if (!text.empty() && !role.empty() && role != "generic")
    return base + ".getByRole(" + literal(role) + ", { name: " + literal(text) + ", exact: " + exact + " })";
  if (!text.empty())
    return base + ".locator(" + literal(field(signature, "tag")) + ").filter({ hasText: " + literal(text) + " })";
  if (const auto name = field(signature, "name"); !name.empty())
    return base + ".locator(" + literal("[name=" + Json(name).dump() + "]") + ")";
  return std::nullopt;
}

// Where the element was, in CSS px: for elements with nothing else to find them by.
std::string recorded_point(const Json& signature) {
  const Json rect = signature.value("rect", Json::object());
  std::ostringstream out;
  out << std::lround(rect.value("x", 0.0) + rect.value("width", 0.0) / 2) << ", "
      << std::lround(rect.value("y", 0.0) + rect.value("height", 0.0) / 2);
  return out.str();
}

// What the recorded step chose in a drop-down ("selected \"Blue\""), or nothing.
std::optional<std::string> selected_option(const std::string& result) {
  const std::string marker = "selected \"";
  const auto at = result.find(marker);
  if (at == std::string::npos) return std::nullopt;
  const auto end = result.find('"', at + marker.size());
  if (end == std::string::npos) return std::nullopt;
  return result.substr(at + marker.size(), end - at - marker.size());
}

void click(std::ostream& out, const Json& signature) {
  if (auto found = locator(signature)) {
    out << "  await " << *found << ".click();\n";
  } else {
    out << "  await page.mouse.click(" << recorded_point(signature)
        << ");  // nothing to find it by but where it was\n";
  }
}

void choose(std::ostream& out, const Json& signature, const std::string& option) {
  const auto found = locator(signature).value_or("page.mouse");
  if (field(signature, "tag") == "select") {
    out << "  await " << found << ".selectOption({ label: " << literal(option) << " });\n";
  } else {
    click(out, signature);
    out << "  await page.getByRole('option', { name: " << literal(option) << ", exact: true }).click();\n";
  }
}

void type(std::ostream& out, const agent::Action& action, const std::string& result) {
  out << "  await page.keyboard.type(" << text_expression(action.text) << ");\n";
  if (result.find("and pressed Enter") != std::string::npos) out << "  await page.keyboard.press('Enter');\n";
}

void write_step(std::ostream& out, const RecordedStep& step, const agent::Action& action) {
  out << "\n  // step " << step.step << ": " << comment(intention(step.action, step.signature)) << "\n";
  switch (action.kind) {
    case agent::ActionKind::Navigate: out << "  await page.goto(" << literal(action.text) << ");\n"; break;
    case agent::ActionKind::Click: click(out, step.signature); break;
    case agent::ActionKind::ClickType:
      if (auto option = selected_option(step.result)) {
        choose(out, step.signature, *option);
      } else {
        click(out, step.signature);
        type(out, action, step.result);
      }
      break;
    case agent::ActionKind::Type:
      if (auto option = selected_option(step.result)) {
        out << "  await page.locator(':focus').selectOption({ label: " << literal(*option) << " });\n";
      } else {
        type(out, action, step.result);
      }
      break;
    case agent::ActionKind::Select:
      choose(out, step.signature, selected_option(step.result).value_or(action.text));
      break;
    case agent::ActionKind::Upload:
      out << "  {\n    const chooser = page.waitForEvent('filechooser');\n";
      click(out, step.signature);
      out << "    await (await chooser).setFiles(path.join(process.env.VIMGPT_UPLOAD_DIR ?? '.', "
          << literal(action.text) << "));\n  }\n";
      break;
    case agent::ActionKind::SwitchTab:
      out << "  page = page.context().pages()[" << action.tab - 1 << "];\n  await page.bringToFront();\n";
      break;
    case agent::ActionKind::CloseTab:
      out << "  {\n    const closing = page;\n    page = page.context().pages().filter((open) => open !== "
             "closing).at(-1)!;\n"
             "    await closing.close();\n  }\n";
      break;
    case agent::ActionKind::ClickAt: {
      const double scale = step.frame_width > 0 ? step.viewport_width / step.frame_width : 1.0;
      out << "  await page.mouse.click(" << std::lround(action.x * scale) << ", " << std::lround(action.y * scale)
          << ");\n";
      break;
    }
    case agent::ActionKind::Scroll:
      out << "  await page.evaluate(() => scrollBy({ top: "
          << (action.direction == browser::ScrollDirection::Up ? "-" : "")
          << "Math.round(innerHeight * 0.8), behavior: 'instant' }));\n";
      break;
    case agent::ActionKind::Back: out << "  await page.goBack();\n"; break;
    case agent::ActionKind::Key: out << "  await page.keyboard.press(" << literal(action.text) << ");\n"; break;
    case agent::ActionKind::Wait:
      out << "  await page.waitForTimeout(" << std::lround(action.seconds * 1000) << ");\n";
      break;
    case agent::ActionKind::Ask: out << "  // the question went to a person; nothing to do on the page\n"; break;
    case agent::ActionKind::Done: break;
  }
}

}  // namespace

Result<std::string> to_playwright(const Recording& recording) {
  std::ostringstream out;
  out << "// Exported by vimgpt from " << comment(recording.dir) << " (vimgpt export --to playwright).\n"
      << "// Run it with Playwright Test: npx playwright test <this file>\n"
      << "// Secrets typed in the run are read from environment variables of their names; uploads from\n"
      << "// VIMGPT_UPLOAD_DIR.\n"
      << "import { test, expect, type Page } from '@playwright/test';\n"
      << "import path from 'node:path';\n\n"
      << "test.use({ viewport: { width: " << recording.viewport_width << ", height: " << recording.viewport_height
      << " } });\n\n"
      << "function secret(name: string): string {\n"
      << "  const value = process.env[name];\n"
      << "  if (value === undefined) throw new Error(`set the environment variable ${name}: the run typed that "
         "secret`);\n"
      << "  return value;\n"
      << "}\n\n"
      << "test(" << literal(recording.objective) << ", async ({ page: first }) => {\n"
      << "  let page: Page = first;\n"
      << "  await page.goto(" << literal(recording.start_url) << ");\n";
  for (const auto& step : recording.steps) {
    VIMGPT_TRY(agent::Action action, agent::parse_action(step.action));
    write_step(out, step, action);
  }
  const RecordedStep& last = recording.steps.back();
  out << "\n  // the run ended here, answering " << comment(literal(agent::answer_text(recording.answer))) << "\n"
      << "  await expect(page).toHaveURL(" << literal(last.url) << ");\n"
      << "  await expect(page).toHaveTitle(" << literal(last.title) << ");\n"
      << "});\n";
  return out.str();
}

}  // namespace vimgpt::replay
