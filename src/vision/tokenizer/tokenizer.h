// Private to src/vision: a text's tokens as a model's own tokenizer counts them, for the bound a budget checks before a
// request is sent (Client::estimate). vimgpt carries OpenAI's o200k_base: its ranks are js-tiktoken's copy of OpenAI's
// file, pinned by src/vision/tokenizer/package-lock.json and embedded at build time (ranks_as_text.mjs).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

#include "vision/vision.h"

namespace vimgpt::vision::detail {

// How many tokens `text` (UTF-8) is in the tokenizer named (the catalogue's "tokenizer": "o200k_base"); nothing when
// vimgpt does not carry it, or this build was made without its ranks.
std::optional<std::size_t> count_tokens(std::string_view tokenizer, std::string_view text);

// A request's text as the model counts it, or more: its whole body with each image's data taken out, by `tokenizer`
// (the body's JSON around the words is counted too, as the provider's own framing of each message is), else, for a
// tokenizer vimgpt does not carry, a token per 3 bytes.
std::int64_t request_text_tokens(const PreparedRequest& prepared, std::string_view tokenizer);

// The ranks file as embedded: the pattern on its first line, then a token's bytes in base64 a line, by rank; empty
// when the build had no ranks to embed.
std::string_view o200k_base_ranks();

}  // namespace vimgpt::vision::detail
