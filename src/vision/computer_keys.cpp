// The keys as the providers' computer tools name them, as vimgpt's key parser names them: one key, a "ctrl+a"
// combination, a ["CTRL", "A"] list.
#include "common/text.h"
#include "vision/dialect.h"

namespace vimgpt::vision::detail {

// A key as the tools name it (xdotool's "Return", "Page_Down"; OpenAI's "CTRL", "ENTER", "ARROWDOWN") as vimgpt does.
std::string key_name(std::string_view key) {
  static const std::vector<std::pair<std::string_view, std::string_view>> kNames = {{"ctrl", "Control"},
                                                                                    {"control", "Control"},
                                                                                    {"alt", "Alt"},
                                                                                    {"option", "Alt"},
                                                                                    {"shift", "Shift"},
                                                                                    {"super", "Meta"},
                                                                                    {"cmd", "Meta"},
                                                                                    {"meta", "Meta"},
                                                                                    {"win", "Meta"},
                                                                                    {"return", "Enter"},
                                                                                    {"enter", "Enter"},
                                                                                    {"kp_enter", "Enter"},
                                                                                    {"esc", "Escape"},
                                                                                    {"escape", "Escape"},
                                                                                    {"backspace", "Backspace"},
                                                                                    {"delete", "Delete"},
                                                                                    {"tab", "Tab"},
                                                                                    {"space", " "},
                                                                                    {"up", "ArrowUp"},
                                                                                    {"down", "ArrowDown"},
                                                                                    {"left", "ArrowLeft"},
                                                                                    {"right", "ArrowRight"},
                                                                                    {"arrowup", "ArrowUp"},
                                                                                    {"arrowdown", "ArrowDown"},
                                                                                    {"arrowleft", "ArrowLeft"},
                                                                                    {"arrowright", "ArrowRight"},
                                                                                    {"page_up", "PageUp"},
                                                                                    {"pageup", "PageUp"},
                                                                                    {"prior", "PageUp"},
                                                                                    {"page_down", "PageDown"},
                                                                                    {"pagedown", "PageDown"},
                                                                                    {"next", "PageDown"},
                                                                                    {"home", "Home"},
                                                                                    {"end", "End"}};
  const std::string lower = ascii_lower(trim(key));
  for (const auto& [from, to] : kNames) {
    if (lower == from) return std::string(to);
  }
  return std::string(trim(key));
}

// "ctrl+a", the form Anthropic's "key" action takes, as vimgpt's "Control+a".
std::string key_combo(std::string_view keys) {
  std::string combo;
  while (!keys.empty()) {
    const auto plus = keys.find('+', 1);  // "+" alone is the key itself
    const std::string name = key_name(keys.substr(0, plus));
    keys.remove_prefix(plus == std::string_view::npos ? keys.size() : plus + 1);
    if (!name.empty()) combo += (combo.empty() ? "" : "+") + name;
  }
  return combo;
}

// ["CTRL", "A"], the form OpenAI's keypress and Gemini's hotkey take, as vimgpt's "Control+A"; empty for none.
std::string joined_keys(const Json& keys) {
  std::string combo;
  for (const auto& key : keys.is_array() ? keys : Json::array()) {
    if (key.is_string()) combo += (combo.empty() ? "" : "+") + key_name(key.get<std::string>());
  }
  return combo;
}

}  // namespace vimgpt::vision::detail
