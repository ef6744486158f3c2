// The hint map: label → element facts, as JSON for programs and as text for a hybrid prompt.
#include <algorithm>
#include <cctype>
#include <map>
#include <numeric>

#include "common/text.h"
#include "common/url.h"
#include "hints/hints.h"

namespace vimgpt::hints {

std::string_view to_string(Reason reason) {
  switch (reason) {
    case Reason::Rule: return "rule";
    case Reason::ClassName: return "class-name";
    case Reason::Scrollable: return "scrollable";
    case Reason::TabIndex: return "tabindex";
    case Reason::CursorPointer: return "cursor-pointer";
    case Reason::ClickListener: return "click-listener";
    case Reason::Opens: return "opens";
    case Reason::Delegated: return "delegated";
  }
  return "rule";
}

std::string_view to_string(DrawMode mode) {
  switch (mode) {
    case DrawMode::Overlay: return "overlay";
    case DrawMode::Image: return "image";
    case DrawMode::BothFrames: return "both-frames";
    case DrawMode::Unlabelled: return "unlabelled";
  }
  return "overlay";
}

Result<DrawMode> parse_draw_mode(std::string_view name) {
  if (name == "overlay") return DrawMode::Overlay;
  if (name == "image") return DrawMode::Image;
  if (name == "both-frames" || name == "both") return DrawMode::BothFrames;
  return fail(ErrorKind::InvalidArgument,
              "unknown hint mode \"" + std::string(name) + "\" (use overlay, image or both-frames)");
}

std::string_view to_string(HintRules rules) {
  return rules == HintRules::Vimium ? "vimium" : "vimgpt";
}

Result<HintRules> parse_hint_rules(std::string_view name) {
  if (name == "vimgpt") return HintRules::Vimgpt;
  if (name == "vimium") return HintRules::Vimium;
  return fail(ErrorKind::InvalidArgument, "unknown hint rules \"" + std::string(name) +
                                              "\" (use vimgpt: Vimium's labels and what a person would click beyond "
                                              "them; or vimium: exactly Vimium's)");
}

std::string_view to_string(Effect effect) {
  switch (effect) {
    case Effect::Clicked: return "clicked";
    case Effect::Focused: return "focused";
    case Effect::OptionsListed: return "options-listed";
    case Effect::OptionSelected: return "option-selected";
    case Effect::FilesChosen: return "files-chosen";
  }
  return "clicked";
}

HintMap::HintMap(std::uint64_t pass, std::vector<Hint> hints, double viewport_width, double viewport_height)
    : pass_(pass), hints_(std::move(hints)), viewport_width_(viewport_width), viewport_height_(viewport_height) {}

namespace {

std::string uppercase(std::string_view text) {
  std::string out(text);
  for (auto& c : out) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return out;
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  std::iota(row.begin(), row.end(), std::size_t{0});
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diagonal = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

}  // namespace

const Hint* HintMap::find(std::string_view label) const {
  const std::string wanted = uppercase(normalize_label(label));
  if (wanted.empty()) return nullptr;
  for (const auto& hint : hints_)
    if (hint.label == wanted) return &hint;
  return nullptr;
}

const Hint* HintMap::at(double x, double y) const {
  const Hint* under = nullptr;
  for (const auto& hint : hints_) {
    const auto& r = hint.rect;
    if (x < r.x || y < r.y || x >= r.x + r.width || y >= r.y + r.height) continue;
    if (under == nullptr || r.width * r.height < under->rect.width * under->rect.height) under = &hint;
  }
  return under;
}

std::vector<std::string> HintMap::near(std::string_view label, std::size_t limit) const {
  const std::string wanted = uppercase(normalize_label(label));
  std::vector<std::pair<std::size_t, std::string>> ranked;
  ranked.reserve(hints_.size());
  for (const auto& hint : hints_) {
    std::size_t distance = edit_distance(wanted, hint.label);
    // A label sharing the first letter is what a misread usually looks like.
    if (!wanted.empty() && !hint.label.empty() && wanted.front() != hint.label.front()) distance += 1;
    ranked.emplace_back(distance, hint.label);
  }
  std::sort(ranked.begin(), ranked.end());
  std::vector<std::string> out;
  for (std::size_t i = 0; i < ranked.size() && i < limit; ++i) out.push_back(ranked[i].second);
  return out;
}

browser::Json to_json(const Hint& hint) {
  browser::Json item = {
      {"label", hint.label},
      {"rect", {{"x", hint.rect.x}, {"y", hint.rect.y}, {"width", hint.rect.width}, {"height", hint.rect.height}}},
      {"tag", hint.tag},
      {"role", hint.role},
      {"text", hint.text},
      {"href", hint.href},
  };
  if (hint.value != FieldValue::NotAField) {
    item["type"] = hint.input_type;
    item["placeholder"] = hint.placeholder;
    item["name"] = hint.name;
    item["empty"] = hint.value == FieldValue::Empty;
  }
  if (!hint.frame_url.empty()) item["frame"] = hint.frame_url;
  if (hint.reason != Reason::Rule) item["reason"] = std::string(to_string(hint.reason));
  return item;
}

browser::Json HintMap::to_json() const {
  browser::Json out = browser::Json::array();
  for (const auto& hint : hints_) out.push_back(hints::to_json(hint));
  return out;
}

namespace {

std::string_view without_fragment(std::string_view url) {
  return url.substr(0, url.find('#'));
}

// Whether a link's text already says where it goes on its own site ("Help" -> /help, "Living room" -> /c/living,
// "Item 64" -> /item/64): every word of the path is in the text. One-letter folder names are not words a text would
// hold. A target the text does not say, or on another site, is written.
bool text_says_target(std::string_view text, std::string_view target) {
  if (!target.starts_with('/')) return false;
  const std::string lower_text = ascii_lower(text);
  std::size_t words = 0;
  std::string word;
  const auto word_in_text = [&] {
    const bool counts = word.size() > 1 || (word.size() == 1 && std::isdigit(static_cast<unsigned char>(word[0])));
    const bool found = !counts || lower_text.find(word) != std::string::npos;
    words += counts ? 1 : 0;
    word.clear();
    return found;
  };
  for (const char c : target) {
    if (std::isalnum(static_cast<unsigned char>(c)) != 0) {
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    } else if (!word_in_text()) {
      return false;
    }
  }
  return word_in_text() && words > 0;
}

}  // namespace

std::string link_target(std::string_view href, std::string_view page_url) {
  const std::string_view origin = url_origin(page_url);
  if (origin.empty()) return std::string(href);
  if (const std::string_view elsewhere = url_origin(href); elsewhere != origin) {
    if (!href.starts_with("http://") && !href.starts_with("https://")) return std::string(href);  // mailto:, data:
    // Another site: the site it leaves for, as a person says it ("facebook.com"), not its path: on a saved page of
    // official links, whole addresses were a third of the look.
    std::string_view site = elsewhere.substr(elsewhere.find("://") + 3);
    if (const auto at = site.rfind('@'); at != std::string_view::npos) site.remove_prefix(at + 1);
    if (site.starts_with("www.")) site.remove_prefix(4);
    return std::string(site);
  }
  const auto fragment = href.find('#');
  if (fragment != std::string_view::npos && without_fragment(href) == without_fragment(page_url))
    return std::string(href.substr(fragment));
  const std::string_view rest = href.substr(origin.size());
  return rest.starts_with('/') ? std::string(rest) : "/" + std::string(rest);  // "https://a.com?q" is "/?q" there
}

namespace {

// A target with every part that holds a digit masked ("/product/#", "/item?id=#", "/dp/#"): the links of a list of
// results, each to its own item, have the same shape.
std::string target_shape(std::string_view target) {
  std::string shape;
  std::string part;
  const auto end_part = [&] {
    const bool numbered =
        std::ranges::any_of(part, [](char c) { return std::isdigit(static_cast<unsigned char>(c)) != 0; });
    shape += numbered ? std::string("#") : part;
    part.clear();
  };
  for (const char c : target) {
    if (std::string_view("/?&=#.-_:").find(c) != std::string_view::npos) {
      end_part();
      shape += c;
    } else {
      part += c;
    }
  }
  end_part();
  return shape;
}

// The target (link_target's short form) where the text does not say it; empty where it does, or for no link.
std::string unsaid_target(const Hint& hint, std::string_view page_url) {
  if (hint.href.empty()) return {};
  std::string target = link_target(hint.href, page_url);
  return text_says_target(hint.text, target) ? std::string() : target;
}

// One hint's line with `target` (none when empty).
std::string line(const Hint& hint, const std::string& target) {
  std::string out = "[" + hint.label + "] " + hint.role;
  // A text field's type is said when the role does not say it (a textbox of type "text" is the usual one).
  const bool type_said = hint.input_type == hint.tag || (hint.input_type == "text" && hint.role == "textbox");
  if (hint.value != FieldValue::NotAField && !hint.input_type.empty() && !type_said)
    out += " (" + hint.input_type + ")";
  if (!hint.text.empty()) out += " \"" + hint.text + "\"";
  // An empty field shows its placeholder; a filled one shows what it holds instead, so its placeholder is not said.
  if (hint.value == FieldValue::Empty) {
    if (!hint.placeholder.empty() && hint.placeholder != hint.text) out += " placeholder \"" + hint.placeholder + "\"";
    out += " empty";
  }
  if (!target.empty()) out += " -> " + target;
  if (!hint.frame_url.empty()) out += " (in frame " + hint.frame_url + ")";
  return out;
}

}  // namespace

std::string to_text(const Hint& hint, std::string_view page_url) {
  return line(hint, unsaid_target(hint, page_url));
}

std::string HintMap::to_text(std::string_view page_url, std::size_t limit) const {
  // A list's links (three or more targets of one shape, each with a text of its own) leave their targets out: the
  // text tells the items apart, and "-> /product/7" on every line of a page of results was a sixth of its look. Alike
  // texts ("Read more" under each post) keep theirs, which are then what tells them apart.
  std::vector<std::string> targets;
  std::map<std::string, std::vector<std::size_t>> by_shape;
  for (std::size_t i = 0; i < hints_.size(); ++i) {
    targets.push_back(unsaid_target(hints_[i], page_url));
    if (!targets.back().empty()) by_shape[target_shape(targets.back())].push_back(i);
  }
  for (const auto& [shape, members] : by_shape) {
    if (members.size() < 3) continue;
    std::map<std::string, int> texts;
    for (const auto i : members) ++texts[ascii_lower(hints_[i].text)];
    for (const auto i : members) {
      if (!hints_[i].text.empty() && texts[ascii_lower(hints_[i].text)] == 1) targets[i].clear();
    }
  }
  std::string out;
  const std::size_t count = limit == 0 ? hints_.size() : std::min(limit, hints_.size());
  for (std::size_t i = 0; i < count; ++i) {
    out += line(hints_[i], targets[i]) + '\n';
  }
  return out;
}

std::vector<std::string> search_words(std::string_view query) {
  std::vector<std::string> words;
  std::string word;
  for (const char c : query) {
    if (std::isspace(static_cast<unsigned char>(c)) != 0) {
      if (!word.empty()) words.push_back(std::exchange(word, {}));
    } else {
      // ASCII folding only: "Sign" finds "sign in"; other scripts match as written.
      word += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    }
  }
  if (!word.empty()) words.push_back(std::move(word));
  return words;
}

// Whether `word` starts a word of `folded`: "in" is in "sign in", not in "/join"; "/join" and "57" are in
// "/join" and "/item/57".
bool starts_a_word(const std::string& folded, const std::string& word) {
  for (auto at = folded.find(word); at != std::string::npos; at = folded.find(word, at + 1)) {
    if (at == 0 || std::isalnum(static_cast<unsigned char>(folded[at - 1])) == 0 ||
        std::isalnum(static_cast<unsigned char>(word[0])) == 0) {
      return true;
    }
  }
  return false;
}

std::size_t words_in(const std::vector<std::string>& words, std::string_view text) {
  const std::string folded = ascii_lower(text);
  return static_cast<std::size_t>(
      std::count_if(words.begin(), words.end(), [&](const std::string& word) { return starts_a_word(folded, word); }));
}

std::vector<const Hint*> HintMap::search(std::string_view query, std::size_t limit) const {
  const auto words = search_words(query);
  if (words.empty()) return {};
  // How many words a hint holds in all, and how many in what a person sees of it: a word held only by the link
  // target ranks below one in the text, or every link on http://127.0.0.1:57045/ would hold "57".
  struct Found {
    std::size_t held;
    std::size_t shown;
    const Hint* hint;
  };
  std::vector<Found> found;
  for (const auto& hint : hints_) {
    const std::string shown =
        hint.role + ' ' + hint.input_type + ' ' + hint.text + ' ' + hint.placeholder + ' ' + hint.name;
    if (const auto held = words_in(words, shown + ' ' + hint.href); held > 0) {
      found.push_back({held, words_in(words, shown), &hint});
    }
  }
  std::stable_sort(found.begin(), found.end(), [](const Found& a, const Found& b) {
    return a.held != b.held ? a.held > b.held : a.shown > b.shown;
  });
  // When some hold every word, the others are noise ("comments 17" on a news page: not every "comments"); when some
  // show every word, so are those holding some only in their link target.
  const bool all_held = !found.empty() && found.front().held == words.size();
  const bool all_shown = all_held && found.front().shown == words.size();
  std::vector<const Hint*> out;
  for (const auto& [held, shown, hint] : found) {
    if (out.size() == limit || (all_held && held < words.size()) || (all_shown && shown < words.size())) break;
    out.push_back(hint);
  }
  return out;
}

}  // namespace vimgpt::hints
