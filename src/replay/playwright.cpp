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
    const auto secret = agent::next_secret_placeholder(text, at);
    if (!secret) {
      parts.push_back(literal(text.substr(at)));
      break;
    }
    if (secret->at > at) parts.push_back(literal(text.substr(at, secret->at - at)));
    parts.push_back("secret(" + literal(secret->name) + ")");
    at = secret->end + 1;
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
  // An element with no role to go by: its own text (the smallest element showing exactly that), or its
  // aria-label when the name came from one (a cell labelled "Count of Pens" that shows "7").
  if (!text.empty() && exact == "true") {
    return base + ".getByText(" + literal(text) + ", { exact: true }).or(" + base + ".getByLabel(" + literal(text) +
           ", { exact: true }))";
  }
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

void type(std::ostream& out, const agent::Action& action, const std::string& result) {
  out << "  await page.keyboard.type(" << text_expression(action.text) << ");\n";
  if (result.find("and pressed Enter") != std::string::npos) out << "  await page.keyboard.press('Enter');\n";
}

// The recorded signatures, one per label, taken in agent::labels_of's order as the actions are written.
class Signatures {
 public:
  explicit Signatures(const Json& all) : all_(all) {}
  Json take(const std::string& label) { return label.empty() || next_ >= all_.size() ? Json() : all_[next_++]; }

 private:
  const Json& all_;
  std::size_t next_ = 0;
};

// An element to point at: its locator, or where it was.
std::string target(const Json& signature) {
  return locator(signature).value_or("page.locator('body')");
}

std::string pixels(const RecordedStep& step, double x, double y) {
  const double scale = step.frame_width > 0 ? step.viewport_width / step.frame_width : 1.0;
  return std::to_string(std::lround(x * scale)) + ", " + std::to_string(std::lround(y * scale));
}

// The pointer onto the element (its centre), or where it was when there is nothing to find it by.
void point_at(std::ostream& out, const Json& signature) {
  if (auto found = locator(signature)) {
    out << "  await " << *found << ".hover();\n";
  } else {
    out << "  await page.mouse.move(" << recorded_point(signature) << ");\n";
  }
}

// The pointer where an action pointed: a point of the frame (the action names no label), or the element it named.
void move_to(std::ostream& out, const RecordedStep& step, const std::string& label, double x, double y,
             const Json& signature, std::string_view options = "") {
  if (!label.empty()) return point_at(out, signature);
  out << "  await page.mouse.move(" << pixels(step, x, y) << (options.empty() ? "" : ", ") << options << ");\n";
}

// Playwright's `method` (click, dblclick) with its `options` where the action clicked: on the element by its locator,
// or with nothing to find it by, the mouse where it was; an action at a point of the frame (no label) at that point.
void click(std::ostream& out, const RecordedStep& step, const agent::Action& action, const Json& signature,
           std::string_view method = "click", std::string_view options = "") {
  const std::string_view comma = options.empty() ? "" : ", ";
  if (action.at_pointer) {
    // Where the pointer rests: Playwright's mouse is where the script's last action left it, as vimgpt's was.
    const int clicks = action.kind == agent::ActionKind::TripleClick   ? 3
                       : action.kind == agent::ActionKind::DoubleClick ? 2
                                                                       : 1;
    const std::string button = action.kind == agent::ActionKind::RightClick ? "right" : "left";
    for (int count = 1; count <= clicks; ++count) {
      const std::string press = "({ button: '" + button + "', clickCount: " + std::to_string(count) + " });";
      out << "  await page.mouse.down" << press << "\n  await page.mouse.up" << press << "\n";
    }
  } else if (auto found = locator(signature)) {
    out << "  await " << *found << "." << method << "(" << options << ");\n";
  } else if (action.label.empty()) {
    out << "  await page.mouse." << method << "(" << pixels(step, action.x, action.y) << comma << options << ");\n";
  } else {
    out << "  await page.mouse." << method << "(" << recorded_point(signature) << comma << options
        << ");  // nothing to find it by but where it was\n";
  }
}

void choose(std::ostream& out, const RecordedStep& step, const agent::Action& action, const Json& signature,
            const std::string& option) {
  const auto found = locator(signature).value_or("page.mouse");
  if (field(signature, "tag") == "select") {
    out << "  await " << found << ".selectOption({ label: " << literal(option) << " });\n";
  } else {
    click(out, step, action, signature);
    out << "  await page.getByRole('option', { name: " << literal(option) << ", exact: true }).click();\n";
  }
}

// Selecting words as vimgpt's select_text did: the first place they show, as one range.
constexpr std::string_view kSelectWords =
    "(words) => {\n"
    "    const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);\n"
    "    const nodes = [];\n"
    "    let text = '';\n"
    "    for (let n = walker.nextNode(); n; n = walker.nextNode()) { nodes.push([n, text.length]); text += n.data; }\n"
    "    const at = text.indexOf(words);\n"
    "    if (at < 0) throw new Error(`no \"${words}\" on the page`);\n"
    "    const place = (offset) => { let i = nodes.length - 1; while (i > 0 && nodes[i][1] > offset) i--; "
    "return [nodes[i][0], offset - nodes[i][1]]; };\n"
    "    const range = document.createRange();\n"
    "    range.setStart(...place(at));\n"
    "    range.setEnd(...place(at + words.length));\n"
    "    getSelection().removeAllRanges();\n"
    "    getSelection().addRange(range);\n"
    "  }";

void write_action(std::ostream& out, const RecordedStep& step, const agent::Action& action, const std::string& result,
                  Signatures& signatures) {
  const Json signature = signatures.take(action.label);
  const Json in = signatures.take(action.in);
  const Json to = signatures.take(action.to_label);
  switch (action.kind) {
    case agent::ActionKind::Navigate:
      // A path ("/item/64") is on the page's own origin, as vimgpt resolved it.
      if (action.text.starts_with('/')) {
        out << "  await page.goto(new URL(" << literal(action.text) << ", page.url()).href);\n";
      } else {
        out << "  await page.goto(" << literal(action.text) << ");\n";
      }
      break;
    case agent::ActionKind::Click:
    case agent::ActionKind::ClickAt: click(out, step, action, signature); break;
    case agent::ActionKind::ClickType:
      if (auto option = selected_option(result)) {
        choose(out, step, action, signature, *option);
      } else {
        click(out, step, action, signature);
        type(out, action, result);
      }
      break;
    case agent::ActionKind::Type:
      if (auto option = selected_option(result)) {
        out << "  await page.locator(':focus').selectOption({ label: " << literal(*option) << " });\n";
      } else {
        type(out, action, result);
      }
      break;
    case agent::ActionKind::Select:
      choose(out, step, action, signature, selected_option(result).value_or(action.text));
      break;
    case agent::ActionKind::Upload:
      out << "  {\n    const chooser = page.waitForEvent('filechooser');\n";
      click(out, step, action, signature);
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
    case agent::ActionKind::Scroll: {
      const char* sign = action.direction == browser::ScrollDirection::Up ? "-" : "";
      if (action.in_point) {
        // vimgpt turns the wheel by most of what scrolls there; most of the viewport stands in for it.
        out << "  await page.mouse.move(" << pixels(step, action.x, action.y) << ");\n";
        out << "  await page.mouse.wheel(0, " << sign
            << "(await page.evaluate(() => Math.round(innerHeight * 0.8))));\n";
      } else if (!in.is_null()) {
        point_at(out, in);
        out << "  await page.mouse.wheel(0, " << sign << "(await " << target(in)
            << ".evaluate((e) => Math.max(40, Math.round(e.clientHeight * 0.8)))));\n";
      } else {
        out << "  await page.evaluate(() => scrollBy({ top: " << sign
            << "Math.round(innerHeight * 0.8), behavior: 'instant' }));\n";
      }
      break;
    }
    case agent::ActionKind::Back: out << "  await page.goBack();\n"; break;
    case agent::ActionKind::Key: out << "  await page.keyboard.press(" << literal(action.text) << ");\n"; break;
    case agent::ActionKind::Wait:
      out << "  await page.waitForTimeout(" << std::lround(action.seconds * 1000) << ");\n";
      break;
    case agent::ActionKind::Hover: move_to(out, step, action.label, action.x, action.y, signature); break;
    case agent::ActionKind::DoubleClick: click(out, step, action, signature, "dblclick"); break;
    case agent::ActionKind::TripleClick: click(out, step, action, signature, "click", "{ clickCount: 3 }"); break;
    case agent::ActionKind::RightClick: click(out, step, action, signature, "click", "{ button: 'right' }"); break;
    case agent::ActionKind::Drag: {
      const auto source = locator(signature);
      const auto destination = locator(to);
      if (source && destination) {
        out << "  await " << *source << ".dragTo(" << *destination << ");\n";
        break;
      }
      if (!action.at_pointer) move_to(out, step, action.label, action.x, action.y, signature);
      out << "  await page.mouse.down();\n";
      move_to(out, step, action.to_label, action.to_x, action.to_y, to, "{ steps: 10 }");
      out << "  await page.mouse.up();\n";
      break;
    }
    case agent::ActionKind::SelectText:
      out << "  await page.evaluate(" << kSelectWords << ", " << literal(action.text) << ");\n";
      break;
    case agent::ActionKind::Dialog:
      // Playwright dismisses dialogs nobody listens for: the next one is answered as the run answered it.
      out << "  page.once('dialog', (dialog) => dialog."
          << (action.accept ? "accept(" + (action.text.empty() ? std::string() : literal(action.text)) + ")"
                            : std::string("dismiss()"))
          << ");\n";
      break;
    case agent::ActionKind::Actions: {
      // Each action's own line of the list's result ("2. click B: done: typed ...").
      std::istringstream lines(result);
      std::string line;
      std::getline(lines, line);
      for (const auto& one : action.actions) {
        std::getline(lines, line);
        write_action(out, step, one, line, signatures);
      }
      break;
    }
    case agent::ActionKind::Ask: out << "  // the question went to a person; nothing to do on the page\n"; break;
    case agent::ActionKind::Zoom:
      out << "  // the model looked closer at a part of the page; nothing to do on it\n";
      break;
    case agent::ActionKind::Page:
      out << "  // page " << action.page << " of a PDF vimgpt showed as a page of its own: Playwright saves it as a "
          << "download\n";
      break;
    case agent::ActionKind::Handoff:
      out << "  // handed to a person: " << comment(action.text) << " (do it by hand here)\n";
      break;
    case agent::ActionKind::Done: break;
  }
}

void write_step(std::ostream& out, const RecordedStep& step, const agent::Action& action) {
  out << "\n  // step " << step.step << ": " << comment(intention(step.action, step.signature)) << "\n";
  // What a person typed was never recorded: their turn is for a person again.
  if (!step.takeover.empty()) out << "  // a person took over here: " << comment(step.takeover) << " (do it by hand)\n";
  Signatures signatures(step.signatures);
  write_action(out, step, action, step.result, signatures);
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
