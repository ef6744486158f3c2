// Keys as a person presses them: names and combinations ("Control+A", "Shift+Tab") turned into what
// DevTools dispatches (key, code, virtual key, text, the editing command a Mac runs), and pressing them.
#include <algorithm>
#include <array>
#include <cctype>

#include "browser/core.h"
#include "common/text.h"

namespace vimgpt::browser {
namespace {

struct KeyInfo {
  Key key;
  std::string_view name;  // KeyboardEvent.key
  std::string_view code;  // KeyboardEvent.code
  int virtual_key;        // Windows virtual key code, which Chromium uses to run default actions
  std::string_view text;  // what the key types, if anything
};

constexpr std::array<KeyInfo, 14> kKeys{{
    {Key::Enter, "Enter", "Enter", 13, "\r"},
    {Key::Escape, "Escape", "Escape", 27, ""},
    {Key::Tab, "Tab", "Tab", 9, ""},
    {Key::Backspace, "Backspace", "Backspace", 8, ""},
    {Key::Delete, "Delete", "Delete", 46, ""},
    {Key::Space, " ", "Space", 32, " "},
    {Key::ArrowUp, "ArrowUp", "ArrowUp", 38, ""},
    {Key::ArrowDown, "ArrowDown", "ArrowDown", 40, ""},
    {Key::ArrowLeft, "ArrowLeft", "ArrowLeft", 37, ""},
    {Key::ArrowRight, "ArrowRight", "ArrowRight", 39, ""},
    {Key::PageUp, "PageUp", "PageUp", 33, ""},
    {Key::PageDown, "PageDown", "PageDown", 34, ""},
    {Key::Home, "Home", "Home", 36, ""},
    {Key::End, "End", "End", 35, ""},
}};

const KeyInfo& info(Key key) {
  return *std::find_if(kKeys.begin(), kKeys.end(), [key](const KeyInfo& k) { return k.key == key; });
}

}  // namespace

Result<Key> parse_key(std::string_view name) {
  std::string n = ascii_lower(name);
  if (n == "esc") n = "escape";
  if (n == "return") n = "enter";
  if (n == "space" || n == "spacebar") n = " ";
  if (n == "up" || n == "down" || n == "left" || n == "right") n = "arrow" + n;
  for (const auto& k : kKeys) {
    if (ascii_lower(k.name) == n) return k.key;
  }
  return fail(ErrorKind::InvalidArgument,
              "unknown key '" + std::string(name) +
                  "' (use Enter, Escape, Tab, Backspace, Delete, Space, ArrowUp, ArrowDown, ArrowLeft, ArrowRight, "
                  "PageUp, PageDown, Home or End)");
}

std::string_view to_string(Key key) {
  return key == Key::Space ? "Space" : info(key).name;
}

namespace {

std::optional<unsigned> modifier_named(std::string_view name) {
  const std::string n = ascii_lower(name);
  if (n == "control" || n == "ctrl") return kControl;
  if (n == "shift") return kShift;
  if (n == "alt" || n == "option") return kAlt;
  if (n == "meta" || n == "cmd" || n == "command" || n == "super") return kMeta;
  return std::nullopt;
}

// US-layout punctuation: the character, its KeyboardEvent.code, its virtual key code, and the character Shift
// makes of it.
struct Punctuation {
  char plain;
  std::string_view code;
  int virtual_key;
  char shifted;
};
constexpr std::array<Punctuation, 11> kPunctuation{{{',', "Comma", 188, '<'},
                                                    {'.', "Period", 190, '>'},
                                                    {'/', "Slash", 191, '?'},
                                                    {';', "Semicolon", 186, ':'},
                                                    {'\'', "Quote", 222, '"'},
                                                    {'[', "BracketLeft", 219, '{'},
                                                    {']', "BracketRight", 221, '}'},
                                                    {'-', "Minus", 189, '_'},
                                                    {'=', "Equal", 187, '+'},
                                                    {'`', "Backquote", 192, '~'},
                                                    {'\\', "Backslash", 220, '|'}}};

// The key after the modifiers: a named key, a letter, a digit, a punctuation mark or F1-F12.
Result<KeyPress> key_named(std::string_view name, unsigned modifiers) {
  KeyPress press;
  press.modifiers = modifiers;
  const bool shift = (modifiers & kShift) != 0;
  if (name.size() == 1) {
    const char c = name[0];
    if (std::isalpha(static_cast<unsigned char>(c)) != 0) {
      const char lower = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      const char upper = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
      press.key = std::string(1, shift ? upper : lower);
      press.code = std::string("Key") + upper;
      press.virtual_key = static_cast<unsigned char>(upper);
    } else if (std::isdigit(static_cast<unsigned char>(c)) != 0) {
      press.key = std::string(1, c);
      press.code = std::string("Digit") + c;
      press.virtual_key = static_cast<unsigned char>(c);
    } else {
      const auto* mark = std::find_if(kPunctuation.begin(), kPunctuation.end(),
                                      [c](const Punctuation& p) { return p.plain == c || p.shifted == c; });
      if (mark == kPunctuation.end())
        return fail(ErrorKind::InvalidArgument, "unknown key '" + std::string(name) + "'");
      press.key = std::string(1, shift || mark->shifted == c ? mark->shifted : mark->plain);
      press.code = std::string(mark->code);
      press.virtual_key = mark->virtual_key;
    }
    press.text = press.key;
  } else if (name.size() >= 2 && (name[0] == 'F' || name[0] == 'f') &&
             std::all_of(name.begin() + 1, name.end(),
                         [](char c) { return std::isdigit(static_cast<unsigned char>(c)); }) &&
             std::stoi(std::string(name.substr(1))) >= 1 && std::stoi(std::string(name.substr(1))) <= 12) {
    const int number = std::stoi(std::string(name.substr(1)));
    press.key = press.code = "F" + std::to_string(number);
    press.virtual_key = 111 + number;
  } else {
    auto named = parse_key(name);
    if (!named) {
      return fail(ErrorKind::InvalidArgument,
                  "unknown key '" + std::string(name) +
                      "': use a letter, a digit, punctuation, F1-F12 or Enter, Escape, Tab, Backspace, Delete, Space, "
                      "ArrowUp, ArrowDown, ArrowLeft, ArrowRight, PageUp, PageDown, Home, End, after Control, "
                      "Shift, Alt or Meta joined with + (Control+A)");
    }
    const KeyInfo& k = info(*named);
    press.key = std::string(k.name);
    press.code = std::string(k.code);
    press.virtual_key = k.virtual_key;
    press.text = std::string(k.text);
  }
  // With Control, Alt or Meta held a key types nothing: it is a shortcut.
  if ((modifiers & (kControl | kAlt | kMeta)) != 0) press.text.clear();
  // Chromium on Linux runs Control's editing shortcuts itself; Meta's are macOS's, so they are named.
  if ((modifiers & kMeta) != 0 && (modifiers & (kControl | kAlt)) == 0) {
    static constexpr std::array<std::pair<char, std::string_view>, 5> kCommands{
        {{'A', "selectAll"}, {'C', "copy"}, {'V', "paste"}, {'X', "cut"}, {'Z', "undo"}}};
    for (const auto& [letter, command] : kCommands) {
      if (press.virtual_key == letter) press.command = std::string(command);
    }
  }
  return press;
}

}  // namespace

Result<KeyPress> parse_keys(std::string_view combo) {
  std::string text(trim(combo));
  if (text.empty()) return fail(ErrorKind::InvalidArgument, "\"key\" needs a key to press");
  unsigned modifiers = 0;
  std::string_view rest = text;
  // "Control++" presses Control and "+": a "+" at the very end is the key.
  while (true) {
    const auto plus = rest.find('+');
    if (plus == std::string_view::npos || plus + 1 == rest.size()) break;
    const auto bit = modifier_named(trim(rest.substr(0, plus)));
    if (!bit) {
      return fail(ErrorKind::InvalidArgument, "unknown modifier '" + std::string(rest.substr(0, plus)) + "' in \"" +
                                                  text + "\": use Control, Shift, Alt or Meta");
    }
    modifiers |= *bit;
    rest.remove_prefix(plus + 1);
  }
  rest = trim(rest);
  if (modifier_named(rest) && modifiers == 0) {
    // A modifier alone ("Shift"): pressed and released.
    const auto bit = *modifier_named(rest);
    const auto& m =
        *std::find_if(kModifiers.begin(), kModifiers.end(), [bit](const ModifierKey& k) { return k.bit == bit; });
    return KeyPress{0, std::string(m.name), std::string(m.code), m.virtual_key, "", ""};
  }
  return key_named(rest, modifiers);
}

std::vector<std::string> code_points(std::string_view text) {
  std::vector<std::string> points;
  for (std::size_t i = 0; i < text.size();) {
    const auto lead = static_cast<unsigned char>(text[i]);
    const std::size_t length = lead < 0x80 ? 1 : lead < 0xE0 ? 2 : lead < 0xF0 ? 3 : 4;
    points.emplace_back(text.substr(i, length));
    i += length;
  }
  return points;
}

std::vector<KeyPress> keys_for_text(std::string_view text) {
  std::vector<KeyPress> keys;
  for (const std::string& character : code_points(text)) {
    const std::size_t length = character.size();
    if (character == "\r") continue;  // of a CRLF: the newline is the Enter
    if (character == "\n" || character == "\t") {
      const KeyInfo& k = info(character == "\n" ? Key::Enter : Key::Tab);
      keys.push_back({0, std::string(k.name), std::string(k.code), k.virtual_key, std::string(k.text), ""});
      continue;
    }
    const char c = character[0];
    const bool shifted = length == 1 && (std::isupper(static_cast<unsigned char>(c)) != 0 ||
                                         std::any_of(kPunctuation.begin(), kPunctuation.end(),
                                                     [c](const Punctuation& p) { return p.shifted == c; }));
    Result<KeyPress> key = KeyPress{};
    if (c == ' ') {
      key = KeyPress{0, " ", "Space", 32, " ", ""};
    } else if (length == 1) {
      key = key_named(character, shifted ? unsigned{kShift} : 0U);
    }
    if (!key || key->key.empty()) {
      key = KeyPress{0, character, "", 0, character, ""};  // é, ü, 中, an emoji
    }
    keys.push_back(std::move(*key));
  }
  return keys;
}

std::string to_string(const KeyPress& keys) {
  std::string text;
  for (const auto& m : kModifiers) {
    if ((keys.modifiers & m.bit) != 0) text += std::string(m.name) + "+";
  }
  const bool letter = keys.key.size() == 1 && std::isalpha(static_cast<unsigned char>(keys.key[0])) != 0;
  return text + (letter ? std::string(1, static_cast<char>(std::toupper(static_cast<unsigned char>(keys.key[0]))))
                 : keys.key == " " ? "Space"
                                   : keys.key);
}

KeyPress key_press(Key key) {
  const KeyInfo& k = info(key);
  return KeyPress{0, std::string(k.name), std::string(k.code), k.virtual_key, std::string(k.text), ""};
}

}  // namespace vimgpt::browser
