// Shards of one task file: a task's id decides its shard, by a hash that is the same everywhere.
#include <algorithm>
#include <charconv>
#include <optional>

#include "fleet/fleet.h"

namespace vimgpt::fleet {

std::uint64_t stable_hash(std::string_view id) {
  std::uint64_t hash = 0xcbf29ce484222325ULL;  // FNV-1a's offset basis and prime (64-bit)
  for (const char c : id) {
    hash ^= static_cast<unsigned char>(c);
    hash *= 0x100000001b3ULL;
  }
  return hash;
}

bool in_shard(const Shard& shard, std::string_view id) {
  return stable_hash(id) % shard.count == shard.index;
}

namespace {

std::optional<std::uint64_t> whole_number(std::string_view text) {
  std::uint64_t value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return value;
}

// A shard from a scheduler's index variables.
Result<std::uint64_t> array_index(EnvReader env, std::string_view text) {
  const auto variable = [env](const char* name) -> std::optional<std::uint64_t> {
    const char* value = env(name);
    return value == nullptr ? std::nullopt : whole_number(value);
  };
  if (const auto index = variable("JOB_COMPLETION_INDEX")) return *index;
  const auto id = variable("SLURM_ARRAY_TASK_ID");
  if (!id) {
    return fail(ErrorKind::InvalidArgument,
                "--shard " + std::string(text) +
                    " reads SLURM_ARRAY_TASK_ID (sbatch --array) or JOB_COMPLETION_INDEX (a Kubernetes Indexed Job), "
                    "and neither is set: pass --shard K/N");
  }
  // sbatch --array=1-16 or 0-30:2 numbers its tasks from _MIN in steps of _STEP.
  const std::uint64_t min = variable("SLURM_ARRAY_TASK_MIN").value_or(0);
  const std::uint64_t step = std::max<std::uint64_t>(variable("SLURM_ARRAY_TASK_STEP").value_or(1), 1);
  if (*id < min || (*id - min) % step != 0) {
    return fail(ErrorKind::InvalidArgument, "--shard " + std::string(text) +
                                                ": this Slurm array is not evenly stepped (--array=1,3,4?): pass "
                                                "--shard K/N, K from the task's own number");
  }
  return (*id - min) / step;
}

}  // namespace

Result<Shard> parse_shard(std::string_view text, EnvReader env) {
  Shard shard;
  const auto slash = text.find('/');
  const std::string_view left = text.substr(0, slash);
  const std::string_view right = slash == std::string_view::npos ? std::string_view() : text.substr(slash + 1);
  if (left == "auto") {
    VIMGPT_TRY(shard.index, array_index(env, text));
    if (slash != std::string_view::npos) {
      const auto count = whole_number(right);
      if (!count) return fail(ErrorKind::InvalidArgument, "--shard auto/N takes a number of shards N");
      shard.count = *count;
    } else {
      const char* count = env("SLURM_ARRAY_TASK_COUNT");
      const auto parsed = count == nullptr ? std::nullopt : whole_number(count);
      if (!parsed) {
        return fail(ErrorKind::InvalidArgument,
                    "--shard auto knows the number of shards from SLURM_ARRAY_TASK_COUNT, which is not set: pass "
                    "--shard auto/N (a Kubernetes Indexed Job's N is its spec.completions)");
      }
      shard.count = *parsed;
    }
  } else {
    const auto index = whole_number(left);
    const auto count = whole_number(right);
    if (!index || !count) {
      return fail(ErrorKind::InvalidArgument,
                  "--shard takes K/N (0 <= K < N), auto or auto/N, not '" + std::string(text) + "'");
    }
    shard = {*index, *count};
  }
  if (shard.count == 0 || shard.index >= shard.count) {
    return fail(ErrorKind::InvalidArgument, "--shard " + std::string(text) + ": shard " + std::to_string(shard.index) +
                                                " of " + std::to_string(shard.count) + " does not exist (0 <= K < N)");
  }
  return shard;
}

}  // namespace vimgpt::fleet
