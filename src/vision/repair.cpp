// Reply parsing: strict JSON first, then a lenient parser that accepts what models actually write (code
// fences, prose around the object, single quotes, trailing commas, comments, unquoted keys and values, Python
// literals, a reply cut off after its last complete member), then normalisation of common near-miss shapes.
// Everything here is local: the repair call to the model lives in the client.
#include <algorithm>
#include <cctype>
#include <cstdlib>
#include <set>

#include "common/text.h"
#include "vision/vision.h"

namespace vimgpt::vision {
namespace {

enum class Outcome { Ok, Error };

class Lenient {
 public:
  Lenient(std::string_view text, std::set<std::string>& fixes) : text_(text), fixes_(fixes) {}

  // Parses one object starting at the current position ('{').
  Outcome object(Json& out) {
    skip();
    if (!at('{')) return Outcome::Error;
    return parse_object(out);
  }
  [[nodiscard]] std::size_t position() const { return pos_; }

 private:
  [[nodiscard]] bool eof() const { return pos_ >= text_.size(); }
  [[nodiscard]] bool at(char c) const { return !eof() && text_[pos_] == c; }
  [[nodiscard]] char peek() const { return eof() ? '\0' : text_[pos_]; }

  void skip() {
    while (!eof()) {
      const char c = text_[pos_];
      if (std::isspace(static_cast<unsigned char>(c)) != 0) {
        ++pos_;
      } else if (text_.substr(pos_, 2) == "//" || c == '#') {
        fixes_.insert("removed comments");
        while (!eof() && text_[pos_] != '\n') ++pos_;
      } else if (text_.substr(pos_, 2) == "/*") {
        fixes_.insert("removed comments");
        const auto end = text_.find("*/", pos_ + 2);
        pos_ = end == std::string_view::npos ? text_.size() : end + 2;
      } else {
        return;
      }
    }
  }

  void truncated() { fixes_.insert("closed a reply cut off before its end"); }

  Outcome parse_object(Json& out) {
    ++pos_;  // '{'
    out = Json::object();
    bool after_comma = false;
    while (true) {
      skip();
      if (eof()) {
        truncated();
        return Outcome::Ok;
      }
      if (at('}')) {
        if (after_comma) fixes_.insert("removed trailing comma");
        ++pos_;
        return Outcome::Ok;
      }
      if (at(',')) {
        fixes_.insert("removed extra comma");
        ++pos_;
        continue;
      }
      std::string key;
      if (is_quote(peek())) {
        if (parse_string(key) != Outcome::Ok) return Outcome::Error;
      } else if (is_word_char(peek())) {
        while (!eof() && is_word_char(peek())) key.push_back(text_[pos_++]);
        fixes_.insert("quoted keys");
      } else {
        return Outcome::Error;
      }
      skip();
      if (eof()) return Outcome::Error;  // a key whose value was cut off: that member is lost, so is the intent
      Json value;
      if (at(':') || at('=')) {
        ++pos_;
        skip();
        if (eof()) return Outcome::Error;
        if (at('}') || at(',')) {
          fixes_.insert("gave a key without value null");  // {"done": }
        } else if (parse_value(value) != Outcome::Ok) {
          return Outcome::Error;
        }
      } else if (at('}') || at(',')) {
        // The original prompt said "return done as a key with no value": {"done"}.
        fixes_.insert("gave a key without value null");
      } else {
        return Outcome::Error;
      }
      out[key] = std::move(value);
      skip();
      after_comma = false;
      if (eof()) {
        truncated();
        return Outcome::Ok;
      }
      if (at(',')) {
        ++pos_;
        after_comma = true;
      } else if (!at('}')) {
        if (!is_quote(peek()) && !is_word_char(peek())) return Outcome::Error;
        fixes_.insert("added missing comma");
      }
    }
  }

  Outcome parse_array(Json& out, char close) {
    ++pos_;
    out = Json::array();
    bool after_comma = false;
    while (true) {
      skip();
      if (eof()) {
        truncated();
        return Outcome::Ok;
      }
      if (at(close)) {
        if (after_comma) fixes_.insert("removed trailing comma");
        ++pos_;
        return Outcome::Ok;
      }
      Json value;
      if (parse_value(value) != Outcome::Ok) return Outcome::Error;
      out.push_back(std::move(value));
      skip();
      after_comma = false;
      if (eof()) {
        truncated();
        return Outcome::Ok;
      }
      if (at(',')) {
        ++pos_;
        after_comma = true;
      } else if (!at(close)) {
        return Outcome::Error;
      }
    }
  }

  Outcome parse_value(Json& out) {
    const char c = peek();
    if (c == '{') return parse_object(out);
    if (c == '[') return parse_array(out, ']');
    if (c == '(') {
      fixes_.insert("read a tuple as an array");
      return parse_array(out, ')');
    }
    if (is_quote(c)) {
      std::string text;
      if (parse_string(text) != Outcome::Ok) return Outcome::Error;
      out = std::move(text);
      return Outcome::Ok;
    }
    if (c == '-' || c == '+' || c == '.' || std::isdigit(static_cast<unsigned char>(c)) != 0) {
      if (parse_number(out)) return Outcome::Ok;
    }
    return parse_bare(out);
  }

  bool parse_number(Json& out) {
    const std::size_t start = pos_;
    std::size_t end = pos_;
    while (end < text_.size() && (std::isdigit(static_cast<unsigned char>(text_[end])) != 0 ||
                                  std::string_view("+-.eE").find(text_[end]) != std::string_view::npos)) {
      ++end;
    }
    const std::string number(text_.substr(start, end - start));
    // A number must end where a value ends; "1st result" is a bare string.
    std::size_t after = end;
    while (after < text_.size() && (text_[after] == ' ' || text_[after] == '\t')) ++after;
    // At the very end the number may itself be cut short ("20" of "200"), so it is not trusted.
    if (after >= text_.size() || std::string_view(",}])\n\r").find(text_[after]) == std::string_view::npos) {
      return false;
    }
    char* parsed_end = nullptr;
    const bool integral = number.find_first_of(".eE") == std::string::npos;
    if (integral) {
      const long long value = std::strtoll(number.c_str(), &parsed_end, 10);
      if (parsed_end != number.c_str() + number.size()) return false;
      out = value;
    } else {
      const double value = std::strtod(number.c_str(), &parsed_end);
      if (parsed_end != number.c_str() + number.size()) return false;
      out = value;
    }
    pos_ = end;
    return true;
  }

  // true/false/null, their Python and JavaScript spellings, else an unquoted string up to the next delimiter.
  Outcome parse_bare(Json& out) {
    std::size_t end = pos_;
    while (end < text_.size() && std::string_view(",}]\n\r").find(text_[end]) == std::string_view::npos) ++end;
    if (end == text_.size()) return Outcome::Error;  // an unquoted value running to the end may be cut short
    std::string_view word = text_.substr(pos_, end - pos_);
    while (!word.empty() && std::isspace(static_cast<unsigned char>(word.back())) != 0) word.remove_suffix(1);
    if (word.empty()) return Outcome::Error;
    pos_ += word.size();
    if (word == "true") {
      out = true;
    } else if (word == "false") {
      out = false;
    } else if (word == "null") {
      out = nullptr;
    } else if (word == "True" || word == "False" || word == "None" || word == "undefined") {
      fixes_.insert("converted Python/JavaScript literals");
      out = word == "True" ? Json(true) : word == "False" ? Json(false) : Json(nullptr);
    } else {
      fixes_.insert("quoted bare values");
      out = std::string(word);
    }
    return Outcome::Ok;
  }

  static bool is_quote(char c) { return c == '"' || c == '\''; }
  static bool is_word_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '_' || c == '-' || c == '$';
  }

  // A quote closes the string only when what follows can follow a string; otherwise it is a quote the model
  // forgot to escape ({"type": "say "hi" now"}).
  [[nodiscard]] bool closes_string(std::size_t quote_at) const {
    std::size_t next = quote_at + 1;
    while (next < text_.size() &&
           (text_[next] == ' ' || text_[next] == '\t' || text_[next] == '\r' || text_[next] == '\n')) {
      ++next;
    }
    if (next < text_.size() && is_quote(text_[next])) {
      // "A" "type": ... is a missing comma, not a quote inside the string: the next quoted word is a key.
      const auto key_end = text_.find(text_[next], next + 1);
      if (key_end != std::string_view::npos) {
        std::size_t colon = key_end + 1;
        while (colon < text_.size() && text_[colon] == ' ') ++colon;
        if (colon < text_.size() && text_[colon] == ':') return true;
      }
    }
    return next >= text_.size() || std::string_view(",}]):=#").find(text_[next]) != std::string_view::npos ||
           text_.substr(next, 2) == "//" || text_.substr(next, 2) == "/*";
  }

  Outcome parse_string(std::string& out) {
    const char quote = text_[pos_++];
    if (quote == '\'') fixes_.insert("replaced single quotes");
    while (!eof()) {
      const char c = text_[pos_];
      if (c == quote) {
        if (closes_string(pos_)) {
          ++pos_;
          return Outcome::Ok;
        }
        fixes_.insert("escaped inner quotes");
        out.push_back(c);
        ++pos_;
        continue;
      }
      if (c == '\n') fixes_.insert("escaped raw newlines");
      if (c != '\\') {
        out.push_back(c);
        ++pos_;
        continue;
      }
      if (pos_ + 1 >= text_.size()) break;
      const char escaped = text_[pos_ + 1];
      pos_ += 2;
      switch (escaped) {
        case 'n': out.push_back('\n'); break;
        case 't': out.push_back('\t'); break;
        case 'r': out.push_back('\r'); break;
        case 'b': out.push_back('\b'); break;
        case 'f': out.push_back('\f'); break;
        case 'u': {
          if (pos_ + 4 > text_.size()) return Outcome::Error;
          const std::string hex(text_.substr(pos_, 4));
          char* end = nullptr;
          unsigned long code = std::strtoul(hex.c_str(), &end, 16);
          if (end != hex.c_str() + 4) return Outcome::Error;
          pos_ += 4;
          if (code >= 0xD800 && code < 0xDC00 && text_.substr(pos_, 2) == "\\u" && pos_ + 6 <= text_.size()) {
            const std::string low_hex(text_.substr(pos_ + 2, 4));
            const unsigned long low = std::strtoul(low_hex.c_str(), &end, 16);
            if (low >= 0xDC00 && low < 0xE000) {
              code = 0x10000 + ((code - 0xD800) << 10U) + (low - 0xDC00);
              pos_ += 6;
            }
          }
          append_utf8(out, code);
          break;
        }
        default: out.push_back(escaped);  // \" \' \\ \/ and unknown escapes keep the character
      }
    }
    return Outcome::Error;  // cut off inside a string: the value is incomplete
  }

  static void append_utf8(std::string& out, unsigned long code) {
    if (code < 0x80) {
      out.push_back(static_cast<char>(code));
    } else if (code < 0x800) {
      out.push_back(static_cast<char>(0xC0U | (code >> 6U)));
      out.push_back(static_cast<char>(0x80U | (code & 0x3FU)));
    } else if (code < 0x10000) {
      out.push_back(static_cast<char>(0xE0U | (code >> 12U)));
      out.push_back(static_cast<char>(0x80U | ((code >> 6U) & 0x3FU)));
      out.push_back(static_cast<char>(0x80U | (code & 0x3FU)));
    } else {
      out.push_back(static_cast<char>(0xF0U | (code >> 18U)));
      out.push_back(static_cast<char>(0x80U | ((code >> 12U) & 0x3FU)));
      out.push_back(static_cast<char>(0x80U | ((code >> 6U) & 0x3FU)));
      out.push_back(static_cast<char>(0x80U | (code & 0x3FU)));
    }
  }

  std::string_view text_;
  std::set<std::string>& fixes_;
  std::size_t pos_ = 0;
};

bool is_action_key(std::string_view key) {
  const auto& keys = action_keys();
  return std::find(keys.begin(), keys.end(), key) != keys.end();
}

bool has_action_key(const Json& object) {
  if (!object.is_object()) return false;
  return std::any_of(object.items().begin(), object.items().end(),
                     [](const auto& item) { return is_action_key(item.key()); });
}

// Curly quotes from chat front-ends or models trained on prose.
std::string straighten_quotes(std::string_view text, std::set<std::string>& fixes) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    const std::string_view rest = text.substr(i);
    if (rest.starts_with("\xE2\x80\x9C") || rest.starts_with("\xE2\x80\x9D")) {
      out.push_back('"');
      i += 2;
      fixes.insert("straightened curly quotes");
    } else if (rest.starts_with("\xE2\x80\x98") || rest.starts_with("\xE2\x80\x99")) {
      out.push_back('\'');
      i += 2;
      fixes.insert("straightened curly quotes");
    } else {
      out.push_back(text[i]);
    }
  }
  return out;
}

std::string strip_code_fence(const std::string& text, std::set<std::string>& fixes) {
  const auto open = text.find("```");
  if (open == std::string::npos) return text;
  auto start = text.find('\n', open);
  // ```{"click": "A"}``` on one line: the content starts right after the fence (and a language tag, if any).
  const auto first_brace = text.find('{', open);
  if (start == std::string::npos || (first_brace != std::string::npos && first_brace < start)) {
    start = first_brace == std::string::npos ? open + 3 : first_brace;
  } else {
    ++start;
  }
  const auto close = text.find("```", start);
  fixes.insert("removed code fence");
  return text.substr(start, close == std::string::npos ? std::string::npos : close - start);
}

// Near-miss shapes a model produces instead of the vocabulary: wrong key case, {"action": {...}} wrappers and
// {"action": "click", "label": "A"} forms. Unknown keys are left for the caller to report.
Json normalise(Json action, std::set<std::string>& fixes) {
  if (!action.is_object()) return action;
  Json renamed = Json::object();
  for (auto& [key, value] : action.items()) {
    std::string name = key;
    if (!is_action_key(name)) {
      std::string folded = ascii_lower(name);
      std::replace(folded.begin(), folded.end(), '-', '_');
      if (folded == "clickat") folded = "click_at";
      if (is_action_key(folded) && !action.contains(folded)) {
        fixes.insert("normalised key names");
        name = folded;
      }
    }
    renamed[name] = std::move(value);
  }
  action = std::move(renamed);
  if (has_action_key(action)) return action;

  for (const char* wrapper : {"action", "next_action", "response", "answer", "result"}) {
    if (!action.contains(wrapper)) continue;
    Json& inner = action[wrapper];
    if (inner.is_object() && has_action_key(inner)) {
      fixes.insert("unwrapped the action object");
      return normalise(inner, fixes);
    }
    if (inner.is_array() && inner.size() == 1 && has_action_key(inner[0])) {
      fixes.insert("unwrapped the action object");
      return normalise(inner[0], fixes);
    }
  }
  if (action.contains("action") && action["action"].is_string()) {
    const std::string verb = ascii_lower(action["action"].get<std::string>());
    if (is_action_key(verb)) {
      Json argument;
      std::string from;
      for (const char* name : {"value", "label", "target", "element", "hint", "text", "url", "argument", "input",
                               "answer", "direction", "message"}) {
        if (action.contains(name) && !action[name].is_null()) {
          argument = action[name];
          from = name;
          break;
        }
      }
      if (argument.is_null() && verb == "back") argument = true;
      if (!argument.is_null() || verb == "done") {
        Json converted = {{verb, argument}};
        // {"action": "click", "label": "A", "text": "hello"}: the click also types.
        if (verb == "click" && from != "text" && action.contains("text") && action["text"].is_string()) {
          converted["type"] = action["text"];
        }
        fixes.insert("converted an {\"action\": ...} form");
        return converted;
      }
    }
  }
  return action;
}

std::optional<Json> find_object(const std::string& text, std::set<std::string>& fixes) {
  std::optional<Json> first;
  std::set<std::string> first_fixes;
  std::size_t first_end = 0;
  std::size_t first_start = 0;
  for (auto start = text.find('{'); start != std::string::npos; start = text.find('{', start + 1)) {
    std::set<std::string> attempt_fixes;
    Lenient parser(std::string_view(text).substr(start), attempt_fixes);
    Json object;
    if (parser.object(object) != Outcome::Ok) continue;
    const std::size_t end = start + parser.position();
    Json normalised = normalise(object, attempt_fixes);
    if (has_action_key(normalised) || !first) {
      first = std::move(normalised);
      first_fixes = std::move(attempt_fixes);
      first_start = start;
      first_end = end;
      if (has_action_key(*first)) break;
    }
  }
  if (!first) return std::nullopt;
  fixes.insert(first_fixes.begin(), first_fixes.end());
  // {"click": "A"} {"type": "hello"}: two halves of one action, as the original prompt's click-then-type asks.
  for (auto next = text.find('{', first_end); next != std::string::npos; next = text.find('{', next + 1)) {
    std::set<std::string> more_fixes;
    Lenient parser(std::string_view(text).substr(next), more_fixes);
    Json more;
    if (parser.object(more) != Outcome::Ok) continue;
    more = normalise(more, more_fixes);
    const bool disjoint = std::none_of(more.items().begin(), more.items().end(),
                                       [&](const auto& item) { return first->contains(item.key()); });
    if (!has_action_key(more) || !disjoint) break;
    first->update(more);
    fixes.insert(more_fixes.begin(), more_fixes.end());
    fixes.insert("merged several objects");
    first_end = next + parser.position();
    next = first_end - 1;
  }
  auto blank = [](std::string_view part) {
    return std::all_of(part.begin(), part.end(), [](unsigned char c) { return std::isspace(c) != 0 || c == '`'; });
  };
  if (!blank(std::string_view(text).substr(0, first_start)) || !blank(std::string_view(text).substr(first_end))) {
    fixes.insert("ignored text around the object");
  }
  return first;
}

}  // namespace

std::string_view to_string(Repair repair) {
  switch (repair) {
    case Repair::None: return "none";
    case Repair::Local: return "local";
    case Repair::Model: return "model";
  }
  return "none";
}

namespace {

Result<ParsedReply> repair_reply(std::string_view text) {
  std::set<std::string> fixes;
  // Strict first: a valid reply is taken as it is, apart from near-miss shapes.
  Json strict = Json::parse(text, nullptr, false);
  if (!strict.is_discarded()) {
    if (strict.is_string()) {
      // The object came back JSON-encoded as a string: "{\"click\": \"A\"}".
      Json inner = Json::parse(strict.get<std::string>(), nullptr, false);
      if (!inner.is_discarded() && inner.is_object()) {
        fixes.insert("decoded an object sent as a string");
        strict = std::move(inner);
      }
    }
    if (strict.is_array() && strict.size() == 1 && strict[0].is_object()) {
      fixes.insert("unwrapped a one-element array");
      strict = strict[0];
    }
    if (strict.is_object()) {
      Json action = normalise(std::move(strict), fixes);
      ParsedReply reply{std::move(action), fixes.empty() ? Repair::None : Repair::Local, {}};
      reply.fixes.assign(fixes.begin(), fixes.end());
      return reply;
    }
    fixes.clear();
  }

  std::string working = straighten_quotes(text, fixes);
  working = strip_code_fence(working, fixes);
  // {{"click": "A"}}: a template's escaped braces left in.
  if (working.find("{{") != std::string::npos && working.find("}}") != std::string::npos) {
    std::set<std::string> probe;
    Lenient parser(std::string_view(working).substr(working.find("{{") + 1), probe);
    Json inner;
    if (parser.object(inner) == Outcome::Ok && has_action_key(inner)) {
      fixes.insert(probe.begin(), probe.end());
      fixes.insert("removed doubled braces");
      ParsedReply reply{normalise(std::move(inner), fixes), Repair::Local, {}};
      reply.fixes.assign(fixes.begin(), fixes.end());
      return reply;
    }
  }
  std::optional<Json> found = find_object(working, fixes);
  if (!found) {
    // "click": "A"  or  click: A  with no braces at all.
    std::string trimmed = working;
    trimmed.erase(0, trimmed.find_first_not_of(" \t\r\n\"'"));
    const auto key_end = trimmed.find_first_of("\"': ");
    if (key_end != std::string::npos && is_action_key(ascii_lower(trimmed.substr(0, key_end)))) {
      const std::string wrapped = "{" + working + "\n}";
      found = find_object(wrapped, fixes);
      if (found) fixes.insert("added missing braces");
    }
  }
  if (!found || !found->is_object()) {
    std::string excerpt(text.substr(0, 500));
    return fail(ErrorKind::Parse, "unparseable reply: " + excerpt + (text.size() > 500 ? "..." : ""));
  }
  ParsedReply reply{std::move(*found), Repair::Local, {}};
  reply.fixes.assign(fixes.begin(), fixes.end());
  return reply;
}

}  // namespace

Result<ParsedReply> parse_reply(std::string_view text) {
  VIMGPT_TRY(ParsedReply reply, repair_reply(text));
  // Local repair copies the reply's bytes as they came: a reply cut inside a multi-byte character (or plain
  // binary) would leave invalid UTF-8 that every later dump() throws on. Replace it here, once (the fuzzer
  // found this).
  reply.action = Json::parse(reply.action.dump(-1, ' ', false, Json::error_handler_t::replace));
  return reply;
}

}  // namespace vimgpt::vision
