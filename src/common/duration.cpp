#include "common/duration.h"

#include <cctype>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <optional>
#include <utility>

#include "common/text.h"

namespace vimgpt {
namespace {

using std::chrono::milliseconds;

constexpr double kYearMs = 365.0 * 24 * 3600 * 1000;

Failure not_a_duration(std::string_view text, PlainUnit plain) {
  return fail(ErrorKind::InvalidArgument, "takes a duration such as 500ms, 3s, 2m or 1h (a plain number is " +
                                              std::string(plain == PlainUnit::Seconds ? "seconds" : "milliseconds") +
                                              "), not '" + std::string(text) + "'");
}

// Milliseconds in one unit, or 0 for a unit we do not take.
double unit_ms(std::string_view unit) {
  if (unit == "ms") return 1;
  if (unit == "s") return 1000;
  if (unit == "m" || unit == "min") return 60'000;
  if (unit == "h") return 3'600'000;
  return 0;
}

// A number at the start of `rest` (digits, at most one '.'), consumed; nullopt when there is none.
std::optional<double> take_number(std::string_view& rest) {
  std::size_t length = 0;
  bool point = false;
  while (length < rest.size() &&
         (std::isdigit(static_cast<unsigned char>(rest[length])) != 0 || (rest[length] == '.' && !point))) {
    point = point || rest[length] == '.';
    ++length;
  }
  double value = 0;
  const auto [end, error] = std::from_chars(rest.data(), rest.data() + length, value);
  if (length == 0 || error != std::errc{} || end != rest.data() + length) return std::nullopt;
  rest.remove_prefix(length);
  return value;
}

std::string_view take_unit(std::string_view& rest) {
  std::size_t length = 0;
  while (length < rest.size() && std::isalpha(static_cast<unsigned char>(rest[length])) != 0) ++length;
  const std::string_view unit = rest.substr(0, length);
  rest.remove_prefix(length);
  return unit;
}

}  // namespace

Result<milliseconds> parse_duration(std::string_view text, PlainUnit plain) {
  std::string_view rest = trim(text);
  if (rest.empty()) return not_a_duration(text, plain);
  double total = 0;
  bool first = true;
  while (!rest.empty()) {
    const auto number = take_number(rest);
    if (!number) return not_a_duration(text, plain);
    const std::string_view unit = take_unit(rest);
    if (unit.empty()) {
      // A bare number only alone ("90"), never after a part with a unit ("1m30").
      if (!first || !rest.empty()) return not_a_duration(text, plain);
      total = *number * (plain == PlainUnit::Seconds ? 1000 : 1);
      break;
    }
    const double scale = unit_ms(ascii_lower(unit));
    if (scale == 0) return not_a_duration(text, plain);
    total += *number * scale;
    first = false;
  }
  if (!std::isfinite(total) || total > kYearMs) {
    return fail(ErrorKind::InvalidArgument, "takes a duration up to a year, not '" + std::string(text) + "'");
  }
  return milliseconds(static_cast<std::int64_t>(std::llround(total)));
}

std::string format_duration(milliseconds duration) {
  std::int64_t left = duration.count();
  if (left == 0) return "0s";
  std::string text;
  for (const auto& [unit, size] :
       {std::pair<const char*, std::int64_t>{"h", 3'600'000}, {"m", 60'000}, {"s", 1000}, {"ms", 1}}) {
    if (left >= size) {
      text += std::to_string(left / size) + unit;
      left %= size;
    }
  }
  return text;
}

}  // namespace vimgpt
