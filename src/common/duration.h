// Durations as people write them on a command line: 500ms, 3s, 2m, 1h, 1m30s, 1.5s.
#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "common/result.h"

namespace vimgpt {

// What a number without a unit means: each flag keeps the unit it always had (a flag named *-ms, milliseconds;
// the others, seconds), so command lines written before units were taken mean what they meant.
enum class PlainUnit { Seconds, Milliseconds };

// One or more NUMBER UNIT parts (ms, s, m or min, h; a number may have a fraction), or one plain number in `plain`
// units; rounded to the millisecond. Blanks around it are ignored. A negative, empty, unknown or absurdly long
// duration (past a year) is InvalidArgument saying what is taken.
Result<std::chrono::milliseconds> parse_duration(std::string_view text, PlainUnit plain);

// The shortest exact way parse_duration reads it back: "500ms", "3s", "2m", "1h30m", "0s".
std::string format_duration(std::chrono::milliseconds duration);

}  // namespace vimgpt
