// Byte-pair encoding as tiktoken does it: the text split by the tokenizer's pattern (PCRE2, Unicode properties), each
// piece a token when the ranks hold it whole, else its bytes merged pair by pair, the lowest-ranked pair first
// (tiktoken's _byte_pair_merge, src/lib.rs). Counting only: no token ids are kept.
#define PCRE2_CODE_UNIT_WIDTH 8
#include "vision/tokenizer/tokenizer.h"

#include <pcre2.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/base64.h"

namespace vimgpt::vision::detail {
namespace {

using Rank = std::uint32_t;
constexpr Rank kNone = std::numeric_limits<Rank>::max();
// A piece longer than this is counted a token a byte (every byte is a token): an upper bound that keeps the merge,
// quadratic in the piece, cheap. Text pieces are words, numbers and runs of marks, far shorter.
constexpr std::size_t kLongestMerged = 8192;

struct ViewHash {
  using is_transparent = void;
  std::size_t operator()(std::string_view text) const { return std::hash<std::string_view>()(text); }
};

class Bpe {
 public:
  // Null when the ranks are missing or unreadable (then nothing is counted, and the caller bounds by bytes).
  static std::unique_ptr<Bpe> load(std::string_view file) {
    const auto first_line = file.find('\n');
    if (file.empty() || first_line == std::string_view::npos) return nullptr;
    auto bpe = std::unique_ptr<Bpe>(new Bpe());
    int error = 0;
    PCRE2_SIZE offset = 0;
    const std::string_view pattern = file.substr(0, first_line);
    bpe->pattern_.reset(pcre2_compile(reinterpret_cast<PCRE2_SPTR>(pattern.data()), pattern.size(),
                                      PCRE2_UTF | PCRE2_UCP, &error, &offset, nullptr));
    if (!bpe->pattern_) return nullptr;
    pcre2_jit_compile(bpe->pattern_.get(), PCRE2_JIT_COMPLETE);  // slower, not wrong, where JIT is unavailable
    // Every token's bytes in one buffer, reserved first so that the views into it stay put.
    std::vector<std::string_view> lines;
    std::size_t bytes = 0;
    for (std::size_t at = first_line + 1; at < file.size();) {
      const auto end = file.find('\n', at);
      const auto line = file.substr(at, (end == std::string_view::npos ? file.size() : end) - at);
      lines.push_back(line);
      bytes += line.size();
      at = end == std::string_view::npos ? file.size() : end + 1;
    }
    bpe->bytes_.reserve(bytes);
    bpe->ranks_.reserve(lines.size());
    for (Rank rank = 0; rank < lines.size(); ++rank) {
      if (lines[rank].empty()) continue;  // a rank no token has
      auto token = base64_decode(lines[rank]);
      if (!token) return nullptr;
      const std::size_t start = bpe->bytes_.size();
      bpe->bytes_ += *token;
      bpe->ranks_.emplace(std::string_view(bpe->bytes_).substr(start, token->size()), rank);
    }
    return bpe;
  }

  [[nodiscard]] std::size_t count(std::string_view text) const {
    std::unique_ptr<pcre2_match_data, decltype(&pcre2_match_data_free)> match(
        pcre2_match_data_create_from_pattern(pattern_.get(), nullptr), pcre2_match_data_free);
    const auto* subject = reinterpret_cast<PCRE2_SPTR>(text.data());
    std::size_t tokens = 0;
    for (PCRE2_SIZE at = 0; at < text.size();) {
      // The first match checks the whole text is UTF-8; the next ones skip that check, which would read the rest of
      // the text again at each match.
      const std::uint32_t options = at == 0 ? 0 : PCRE2_NO_UTF_CHECK;
      const int found = pcre2_match(pattern_.get(), subject, text.size(), at, options, match.get(), nullptr);
      if (found < 0) {
        tokens += text.size() - at;  // not UTF-8, or nothing the pattern takes: a token a byte
        break;
      }
      const PCRE2_SIZE* span = pcre2_get_ovector_pointer(match.get());
      if (span[0] > at) tokens += span[0] - at;  // bytes the pattern skipped, a token each
      if (span[1] <= span[0]) {                  // an empty match: step over one byte
        at = span[0] + 1;
        continue;
      }
      tokens += piece_tokens(text.substr(span[0], span[1] - span[0]));
      at = span[1];
    }
    return tokens;
  }

 private:
  Bpe() : pattern_(nullptr, pcre2_code_free) {}

  [[nodiscard]] Rank rank_of(std::string_view bytes) const {
    const auto found = ranks_.find(bytes);
    return found == ranks_.end() ? kNone : found->second;
  }

  [[nodiscard]] std::size_t piece_tokens(std::string_view piece) const {
    if (piece.size() <= 1 || rank_of(piece) != kNone) return 1;
    if (piece.size() > kLongestMerged) return piece.size();
    // parts[i]: where a part starts, and the rank of it merged with the part after it.
    std::vector<std::pair<std::size_t, Rank>> parts;
    parts.reserve(piece.size() + 1);
    for (std::size_t i = 0; i + 1 < piece.size(); ++i) parts.emplace_back(i, rank_of(piece.substr(i, 2)));
    parts.emplace_back(piece.size() - 1, kNone);
    parts.emplace_back(piece.size(), kNone);
    const auto merged_rank = [&](std::size_t i) {
      if (i + 3 >= parts.size()) return kNone;
      return rank_of(piece.substr(parts[i].first, parts[i + 3].first - parts[i].first));
    };
    for (;;) {
      std::size_t lowest = parts.size();
      Rank rank = kNone;
      for (std::size_t i = 0; i + 1 < parts.size(); ++i) {
        if (parts[i].second < rank) {
          rank = parts[i].second;
          lowest = i;
        }
      }
      if (rank == kNone) break;
      if (lowest > 0) parts[lowest - 1].second = merged_rank(lowest - 1);
      parts[lowest].second = merged_rank(lowest);
      parts.erase(parts.begin() + static_cast<std::ptrdiff_t>(lowest) + 1);
    }
    return parts.size() - 1;
  }

  std::unique_ptr<pcre2_code, decltype(&pcre2_code_free)> pattern_;
  std::string bytes_;
  std::unordered_map<std::string_view, Rank, ViewHash, std::equal_to<>> ranks_;
};

}  // namespace

std::int64_t request_text_tokens(const PreparedRequest& prepared, std::string_view tokenizer) {
  std::string text = prepared.body;
  std::size_t image_bytes = 0;
  for (const auto& image : prepared.images) {
    const std::string data = base64_encode(image.bytes);
    if (const auto at = text.find(data); at != std::string::npos) text.erase(at, data.size());
    image_bytes += data.size();
  }
  if (const auto counted = count_tokens(tokenizer, text)) return static_cast<std::int64_t>(*counted);
  const std::size_t bytes = prepared.body.size() - std::min(prepared.body.size(), image_bytes);
  return static_cast<std::int64_t>(bytes / 3);
}

std::optional<std::size_t> count_tokens(std::string_view tokenizer, std::string_view text) {
  if (tokenizer != "o200k_base") return std::nullopt;
  // Read once, on the first count (about 200,000 ranks): runs without a budget never pay for it.
  static const std::unique_ptr<Bpe> o200k = Bpe::load(o200k_base_ranks());
  if (!o200k) return std::nullopt;
  return o200k->count(text);
}

}  // namespace vimgpt::vision::detail
