// Private to src/vision: a text's tokens as a model's own tokenizer counts them, for the bound a budget checks before a
// request is sent (Client::estimate). vimgpt carries OpenAI's o200k_base: its ranks are js-tiktoken's copy of OpenAI's
// file, pinned by src/vision/tokenizer/package-lock.json and embedded at build time (ranks_as_text.mjs).
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace vimgpt::vision::detail {

// How many tokens `text` (UTF-8) is in the tokenizer named (the catalogue's "tokenizer": "o200k_base"); nothing when
// vimgpt does not carry it, or this build was made without its ranks.
std::optional<std::size_t> count_tokens(std::string_view tokenizer, std::string_view text);

// The ranks file as embedded: the pattern on its first line, then a token's bytes in base64 a line, by rank; empty
// when the build had no ranks to embed.
std::string_view o200k_base_ranks();

}  // namespace vimgpt::vision::detail
