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

#include "common/pixels.h"
#include "support/fake_model_server.h"
#include "vision/tokenizer/tokenizer.h"
#include "vision/vision.h"

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

// A step's request to a model whose tokenizer vimgpt carries (the default, gpt-6.1-terra: o200k_base), as OpenAI bills
// it: each text it holds (the system prompt, the user's blocks, the action schema) counted by the reference, and the
// frame by the model's image rule. The budget's bound is never under it, and within 15% over it (the JSON around the
// texts, counted too, and the reply's room are the rest).
TEST(Tokenizer, ABudgetsBoundOfARequestIsWithinFifteenPercentOfItsBilledTokens) {
  if (detail::o200k_base_ranks().empty()) GTEST_SKIP() << "this build embedded no ranks (the test above says why)";
  test::Expectations expectations;
  expectations.api_key = "k";
  expectations.model = std::string(kDefaultModel);
  expectations.images = 1;
  test::FakeModelServer server(expectations);
  ClientOptions options;
  options.base_url = server.url();
  options.api_key = "k";
  options.model = std::string(kDefaultModel);
  auto client = Client::create(options);
  ASSERT_TRUE(client) << client.error().describe();
  Pixels page;
  page.width = 1080;
  page.height = 720;
  page.data.assign(static_cast<std::size_t>(page.width) * page.height * 3, 250);
  StepRequest step;
  step.objective = "find the opening hours of the Louvre and say which days it closes";
  step.hint_text = "[A] link \"Home\"\n[S] textbox \"Search\" empty\n[D] button \"Opening hours\"\n";
  step.images.push_back(*encode_image(page, ImageFormat::Jpeg, 85));
  const auto prepared = (*client)->prepare(step);
  ASSERT_TRUE(prepared) << prepared.error().describe();
  const auto bound = (*client)->estimate(step);
  ASSERT_TRUE(bound) << bound.error().describe();

  const auto body = nlohmann::json::parse(prepared->body);
  std::vector<std::string> texts;
  if (body.contains("response_format")) texts.push_back(body["response_format"].dump());
  for (const auto& message : body["messages"]) {
    if (message["content"].is_string()) texts.push_back(message["content"].get<std::string>());
    if (!message["content"].is_array()) continue;
    for (const auto& part : message["content"])
      if (part.value("type", "") == "text") texts.push_back(part["text"].get<std::string>());
  }
  const auto counts = reference_counts(texts);
  ASSERT_EQ(counts.size(), texts.size()) << "Node could not count the texts with js-tiktoken";
  std::int64_t billed = prepared->estimated_image_tokens;
  for (const auto count : counts) billed += static_cast<std::int64_t>(count);
  ASSERT_GT(billed, 500);
  EXPECT_GE(bound->prompt_tokens, billed);
  EXPECT_LE(static_cast<double>(bound->prompt_tokens), 1.15 * static_cast<double>(billed))
      << "bound " << bound->prompt_tokens << " against " << billed;
}

TEST(Tokenizer, ATokenizerVimgptDoesNotCarryCountsNothing) {
  EXPECT_FALSE(detail::count_tokens("cl100k_base", "Hello world"));
  EXPECT_FALSE(detail::count_tokens("", "Hello world"));
}

}  // namespace
}  // namespace vimgpt::vision
