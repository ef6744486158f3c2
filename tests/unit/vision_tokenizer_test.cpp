// The tokenizer a budget's bound counts text with, against the reference: js-tiktoken (the package whose ranks the
// build embeds), run by Node on the same texts. Every count must be the reference's, token for token.
#include <gtest/gtest.h>
#include <unistd.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <string>
#include <vector>

#include "vision/tokenizer/tokenizer.h"

namespace vimgpt::vision {
namespace {

namespace fs = std::filesystem;

std::string read(const fs::path& path) {
  std::ostringstream text;
  text << std::ifstream(path, std::ios::binary).rdbuf();
  return text.str();
}

// Texts of every kind a request holds: prose, a request's JSON, markup, code, numbers, whitespace runs, contractions,
// accents, CJK and emoji, and the test site's pages (and the saved real pages, where this checkout has them).
std::vector<std::string> samples() {
  std::vector<std::string> texts = {
      "",
      "Hello world",
      "You need to choose which action to take to help a user do this task: find the opening hours.",
      R"({"model":"gpt-5.4","messages":[{"role":"user","content":[{"type":"text","text":"[AB] link \"Home\""}]}]})",
      "int main(int argc, char** argv) {\n    return argc > 1 ? 0 : 1;\n}\n",
      "1234567890 3.14159 1,000,000 2011-12-15 12/15/2011 0308PM",
      "   leading\n\n\n\ttabs   and    runs  \r\n\r\n  ",
      "don't I'LL we've THEY'RE it's O'Neill's",
      "Café naïve résumé Zürich Ærø",
      "東京都の営業時間は9時から17時です。 Привет, мир! مرحبا بالعالم",
      "Emoji 👍🏽 and flags 🇫🇷 and ZWJ 👩‍👩‍👧",
      std::string(3000, 'a'),
      "aaaa bbbb " + std::string(500, '=') + " ----------",
  };
  for (const auto& entry : fs::directory_iterator(VIMGPT_FIXTURES_DIR "/site")) {
    if (entry.path().extension() == ".html") texts.push_back(read(entry.path()));
  }
  if (fs::is_directory(VIMGPT_PAGES_DIR)) {
    int taken = 0;
    for (const auto& entry : fs::directory_iterator(VIMGPT_PAGES_DIR)) {
      if (entry.path().extension() == ".html" && taken++ < 5) texts.push_back(read(entry.path()));
    }
  }
  return texts;
}

// js-tiktoken's count of each text, from the package the build embedded the ranks of.
std::vector<std::size_t> reference_counts(const std::vector<std::string>& texts) {
  const fs::path input = fs::temp_directory_path() / ("vimgpt-tokens-" + std::to_string(::getpid()) + ".json");
  std::ofstream(input) << nlohmann::json(texts).dump();
  const std::string script =
      "import { getEncoding } from 'js-tiktoken'; import { readFileSync } from 'node:fs';"
      "const e = getEncoding('o200k_base');"
      "console.log(JSON.stringify(JSON.parse(readFileSync(process.argv[1], 'utf8')).map((t) => e.encode(t).length)));";
  // From the package's own folder, so that Node finds js-tiktoken there.
  const std::string command = "cd '" VIMGPT_SOURCE_DIR "/src/vision/tokenizer' && node --input-type=module -e \"" +
                              script + "\" '" + input.string() + "'";
  std::string out;
  if (FILE* pipe = ::popen(command.c_str(), "r")) {
    std::array<char, 4096> chunk{};
    while (const std::size_t n = std::fread(chunk.data(), 1, chunk.size(), pipe)) out.append(chunk.data(), n);
    ::pclose(pipe);
  }
  fs::remove(input);
  const auto counts = nlohmann::json::parse(out, nullptr, false);
  if (!counts.is_array()) return {};
  return counts.get<std::vector<std::size_t>>();
}

TEST(Tokenizer, CountsEveryTextAsJsTiktokenDoes) {
  // The build embeds the ranks from the installed package (scripts/npm_embedded.sh); without it, nothing is counted.
  if (detail::o200k_base_ranks().empty()) {
    EXPECT_FALSE(detail::count_tokens("o200k_base", "Hello world"));
    EXPECT_FALSE(fs::exists(VIMGPT_SOURCE_DIR "/src/vision/tokenizer/node_modules/js-tiktoken"))
        << "js-tiktoken is installed but this build embedded no ranks: configure the build folder again";
    return;
  }
  const auto texts = samples();
  const auto expected = reference_counts(texts);
  ASSERT_EQ(expected.size(), texts.size()) << "Node could not count the texts with js-tiktoken";
  for (std::size_t i = 0; i < texts.size(); ++i) {
    const auto counted = detail::count_tokens("o200k_base", texts[i]);
    ASSERT_TRUE(counted);
    EXPECT_EQ(*counted, expected[i]) << "text " << i << ": " << texts[i].substr(0, 120);
  }
}

TEST(Tokenizer, ATokenizerVimgptDoesNotCarryCountsNothing) {
  EXPECT_FALSE(detail::count_tokens("cl100k_base", "Hello world"));
  EXPECT_FALSE(detail::count_tokens("", "Hello world"));
}

}  // namespace
}  // namespace vimgpt::vision
