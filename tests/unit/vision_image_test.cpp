// Images (sniffing, scaling, encoding, pass-through), token and price estimates, and the prompt.
#include <gtest/gtest.h>
#include <stb_image.h>

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <functional>

#include "vision/vision.h"

namespace vimgpt::vision {
namespace {

// A page-like frame: white background, grey text rows, one yellow label box.
Pixels page_pixels(int width, int height) {
  Pixels pixels;
  pixels.width = width;
  pixels.height = height;
  pixels.channels = 3;
  pixels.data.assign(static_cast<std::size_t>(width) * height * 3, 255);
  for (int y = 0; y < height; ++y) {
    for (int x = 0; x < width; ++x) {
      auto* p = &pixels.data[(static_cast<std::size_t>(y) * width + x) * 3];
      if (y % 24 < 10 && (x / 7) % 5 != 0) p[0] = p[1] = p[2] = 60;
      if (x >= 20 && x < 44 && y >= 20 && y < 36) {
        p[0] = 255;
        p[1] = 220;
        p[2] = 60;
      }
    }
  }
  return pixels;
}

EncodedImage encoded(int width, int height, ImageFormat format) {
  auto image = encode_image(page_pixels(width, height), format, 85);
  EXPECT_TRUE(image);
  return *image;
}

TEST(Image, SniffsTheFormatFromMagicBytes) {
  EXPECT_EQ(sniff_format(encoded(8, 8, ImageFormat::Png).bytes), ImageFormat::Png);
  EXPECT_EQ(sniff_format(encoded(8, 8, ImageFormat::Jpeg).bytes), ImageFormat::Jpeg);
  EXPECT_EQ(sniff_format("GIF89a......"), ImageFormat::Gif);
  EXPECT_EQ(sniff_format(std::string("RIFF\0\0\0\0WEBPVP8 ", 16)), ImageFormat::Webp);
  EXPECT_EQ(sniff_format("<html>"), std::nullopt);
  EXPECT_EQ(mime_type(ImageFormat::Webp), "image/webp");
  EXPECT_EQ(to_string(ImageFormat::Jpeg), "jpeg");
  auto gif = inspect_image(std::string("GIF89a\x20\x03\x58\x02", 10));
  ASSERT_TRUE(gif);
  EXPECT_EQ(gif->width, 800);
  EXPECT_EQ(gif->height, 600);
}

TEST(Image, InspectReadsSizeAndRejectsNonImages) {
  auto image = inspect_image(encoded(320, 200, ImageFormat::Png).bytes);
  ASSERT_TRUE(image);
  EXPECT_EQ(image->width, 320);
  EXPECT_EQ(image->height, 200);
  EXPECT_EQ(image->mime(), "image/png");
  auto not_image = inspect_image("hello");
  ASSERT_FALSE(not_image);
  EXPECT_EQ(not_image.error().kind, ErrorKind::Parse);
}

TEST(Image, EncodesDecodableImagesOfTheRightSize) {
  for (ImageFormat format : {ImageFormat::Png, ImageFormat::Jpeg}) {
    const EncodedImage image = encoded(300, 170, format);
    int width = 0;
    int height = 0;
    int channels = 0;
    stbi_uc* pixels = stbi_load_from_memory(reinterpret_cast<const stbi_uc*>(image.bytes.data()),
                                            static_cast<int>(image.bytes.size()), &width, &height, &channels, 3);
    ASSERT_NE(pixels, nullptr) << to_string(format);
    // The label's yellow survives encoding (JPEG is lossy, so allow a margin).
    const stbi_uc* label = pixels + (std::ptrdiff_t{28} * width + 30) * 3;
    EXPECT_GT(label[0], 220);
    EXPECT_GT(label[1], 190);
    EXPECT_LT(label[2], 110);
    stbi_image_free(pixels);
    EXPECT_EQ(width, 300);
    EXPECT_EQ(height, 170);
  }
  EXPECT_FALSE(encode_image(page_pixels(4, 4), ImageFormat::Jpeg, 0));
  Pixels broken = page_pixels(4, 4);
  broken.data.pop_back();
  EXPECT_FALSE(encode_image(broken, ImageFormat::Png, 85));
}

// The MCP server's "unchanged since the page was last shown": a spot repainted a few levels off, or a glyph's edge
// rastered again, is the same picture; a character that changed, even a full stop, is not.
TEST(Image, SamePictureToleratesRepaintNoiseButNotAChange) {
  const auto jpeg = [](const Pixels& pixels) {
    auto bytes = encode_jpeg(pixels, 80);
    EXPECT_TRUE(bytes);
    return *bytes;
  };
  const auto spot = [](Pixels pixels, int x0, int y0, int size, const std::function<int(int)>& paint) {
    for (int y = y0; y < y0 + size; ++y) {
      for (int x = x0; x < x0 + size; ++x) {
        for (int c = 0; c < 3; ++c) {
          auto& value = pixels.data[(static_cast<std::size_t>(y) * pixels.width + x) * 3 + c];
          value = static_cast<std::uint8_t>(std::clamp(paint(value), 0, 255));
        }
      }
    }
    return pixels;
  };
  const Pixels page = page_pixels(320, 200);
  const std::string shown = jpeg(page);
  constexpr int kTolerance = 8;  // the MCP server's
  EXPECT_TRUE(same_picture(shown, shown, kTolerance));
  // Five levels lighter in one 16-pixel block, as a tile rastered again came back.
  EXPECT_TRUE(same_picture(shown, jpeg(spot(page, 144, 80, 16, [](int v) { return v + 5; })), kTolerance));
  // Three pixels of a row 30 levels darker, as a glyph's edge rastered again came back after a click.
  const auto darker = [](int v) { return v - 30; };
  const Pixels edge = spot(spot(spot(page, 40, 35, 1, darker), 41, 35, 1, darker), 90, 35, 1, darker);
  EXPECT_TRUE(same_picture(shown, jpeg(edge), kTolerance));
  // A dark glyph-sized mark where there was white: a counter's digit that changed; and one the size of a full stop.
  EXPECT_FALSE(same_picture(shown, jpeg(spot(page, 200, 132, 6, [](int) { return 60; })), kTolerance));
  EXPECT_FALSE(same_picture(shown, jpeg(spot(page, 203, 133, 2, [](int) { return 60; })), kTolerance));
  EXPECT_FALSE(same_picture(shown, jpeg(page_pixels(320, 201)), kTolerance));
  EXPECT_FALSE(same_picture(shown, "not an image", kTolerance));
}

TEST(Image, ScalesToWidthKeepingAspect) {
  auto scaled = scale_to_width(page_pixels(1600, 1000), 1080);
  ASSERT_TRUE(scaled);
  EXPECT_EQ(scaled->width, 1080);
  EXPECT_EQ(scaled->height, 675);
  EXPECT_EQ(scaled->data.size(), 1080U * 675U * 3U);
  EXPECT_FALSE(scale_to_width(page_pixels(10, 10), 0));
}

TEST(Image, DownscalingAveragesTheAreaEachPixelCovers) {
  // Alternating black and white columns halve to mid-grey; a uniform colour stays exactly that colour.
  Pixels stripes;
  stripes.width = 8;
  stripes.height = 2;
  for (int y = 0; y < 2; ++y) {
    for (int x = 0; x < 8; ++x) {
      const std::uint8_t v = x % 2 == 0 ? 0 : 255;
      stripes.data.insert(stripes.data.end(), {v, v, v});
    }
  }
  auto half = scale_to_width(stripes, 4);
  ASSERT_TRUE(half);
  EXPECT_EQ(half->height, 1);
  for (std::uint8_t value : half->data) EXPECT_EQ(value, 128);

  Pixels yellow;
  yellow.width = 1080;
  yellow.height = 720;
  for (int i = 0; i < 1080 * 720; ++i) yellow.data.insert(yellow.data.end(), {255, 197, 66});
  auto small = scale_to_width(yellow, 768);
  ASSERT_TRUE(small);
  EXPECT_EQ(small->height, 512);
  for (std::size_t i = 0; i < small->data.size(); i += 3) {
    ASSERT_EQ(small->data[i], 255);
    ASSERT_EQ(small->data[i + 1], 197);
    ASSERT_EQ(small->data[i + 2], 66);
  }
}

TEST(Image, PrepareLeavesAnImageAlreadyRightUntouched) {
  const EncodedImage jpeg = encoded(1080, 720, ImageFormat::Jpeg);
  auto same = prepare_image(jpeg, ImageOptions{1080, ImageFormat::Jpeg, 85});
  ASSERT_TRUE(same);
  EXPECT_EQ(same->bytes, jpeg.bytes);
  EXPECT_EQ(same->mime(), "image/jpeg");
}

TEST(Image, PrepareScalesAndReencodesWithTheTrueMime) {
  EncodedImage png = encoded(1280, 800, ImageFormat::Png);
  png.format = ImageFormat::Jpeg;  // the original's bug: PNG bytes labelled JPEG
  auto as_png = prepare_image(png, ImageOptions{768, ImageFormat::Png, 85});
  ASSERT_TRUE(as_png);
  EXPECT_EQ(as_png->mime(), "image/png");
  EXPECT_EQ(sniff_format(as_png->bytes), ImageFormat::Png);
  EXPECT_EQ(as_png->width, 768);
  EXPECT_EQ(as_png->height, 480);
  auto as_jpeg = prepare_image(png, ImageOptions{1080, ImageFormat::Jpeg, 70});
  ASSERT_TRUE(as_jpeg);
  EXPECT_EQ(as_jpeg->mime(), "image/jpeg");
  EXPECT_EQ(sniff_format(as_jpeg->bytes), ImageFormat::Jpeg);
  EXPECT_EQ(as_jpeg->width, 1080);
  EXPECT_EQ(as_jpeg->height, 675);
  // Same width, other format: re-encoded, not relabelled.
  auto png_kept_width = prepare_image(png, ImageOptions{0, ImageFormat::Png, 85});
  ASSERT_TRUE(png_kept_width);
  EXPECT_EQ(png_kept_width->width, 1280);
  EXPECT_EQ(png_kept_width->mime(), "image/png");
}

TEST(Image, LoadImageFileReportsMissingFiles) {
  auto missing = load_image_file("/nonexistent/screenshot.png");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::Io);
  const std::string path = ::testing::TempDir() + "vision_image_test.png";
  {
    std::ofstream out(path, std::ios::binary);
    out << encoded(64, 48, ImageFormat::Png).bytes;
  }
  auto loaded = load_image_file(path);
  std::remove(path.c_str());
  ASSERT_TRUE(loaded);
  EXPECT_EQ(loaded->width, 64);
  EXPECT_EQ(loaded->mime(), "image/png");
}

const ImageTokenRule& rule_of(std::string_view model) {
  const ModelSpec* spec = find_model(model);
  EXPECT_NE(spec, nullptr) << model;
  return spec->images;
}

TEST(Tokens, OpenAITilesAfterScaling) {
  const ImageTokenRule& gpt4o = rule_of("gpt-4o");
  EXPECT_EQ(estimate_image_tokens(gpt4o, 1080, 720, Detail::High), 170 * 6 + 85);
  EXPECT_EQ(estimate_image_tokens(gpt4o, 768, 512, Detail::High), 170 * 2 + 85);
  // OpenAI's published examples: 1024x1024 -> 768x768, 4 tiles; 2048x4096 -> 768x1536, 6 tiles.
  EXPECT_EQ(estimate_image_tokens(gpt4o, 1024, 1024, Detail::High), 765);
  EXPECT_EQ(estimate_image_tokens(gpt4o, 2048, 4096, Detail::High), 1105);
  EXPECT_EQ(estimate_image_tokens(gpt4o, 1080, 720, Detail::Auto), 1105);
  EXPECT_EQ(estimate_image_tokens(gpt4o, 4000, 3000, Detail::Low), 85);
  // gpt-5 and gpt-5.1 count tiles at 70 + 140 a tile; gpt-4o-mini at 2833 + 5667.
  EXPECT_EQ(estimate_image_tokens(rule_of("gpt-5"), 1024, 1024, Detail::High), 140 * 4 + 70);
  EXPECT_EQ(estimate_image_tokens(rule_of("gpt-4o-mini"), 1024, 1024, Detail::High), 5667 * 4 + 2833);
}

TEST(Tokens, OpenAIPatchesWithTheirBudgetAndMultiplier) {
  // The images-vision guide's worked examples: gpt-5.4 at high, 1024x1024 -> 1024 patches x 1.2; 2048x2048
  // shrunk to the 2,500-patch budget, 1600x1600 -> 3000 tokens; 1800x2400 at a 1,536-patch budget -> 1056x1408,
  // 1452 patches.
  const ImageTokenRule& gpt54 = rule_of("gpt-5.4");
  EXPECT_EQ(estimate_image_tokens(gpt54, 1024, 1024, Detail::High), 1229);
  EXPECT_EQ(estimate_image_tokens(gpt54, 2048, 2048, Detail::High), 3000);
  ImageTokenRule small_budget = gpt54;
  small_budget.budget = 1536;
  small_budget.multiplier = 1;
  EXPECT_EQ(estimate_image_tokens(small_budget, 1800, 2400, Detail::High), 1452);
  // The default model's frame (768x512, --img-res medium): 24 x 16 patches x 1.2.
  EXPECT_EQ(estimate_image_tokens(rule_of(kDefaultModel), 768, 512, Detail::Auto), 461);
  EXPECT_TRUE(rule_of(kDefaultModel).estimated);  // GPT-6 is not in OpenAI's guide: a third party measured it
}

TEST(Tokens, AnthropicAreaOver750AndPatchesOf28) {
  const ImageTokenRule& haiku45 = rule_of("claude-haiku-4-5");
  EXPECT_EQ(estimate_image_tokens(haiku45, 1080, 720, Detail::Auto), 1037);
  EXPECT_EQ(estimate_image_tokens(haiku45, 1092, 1092, Detail::High), 1590);
  // Long edge above 1568 is scaled down first.
  EXPECT_EQ(estimate_image_tokens(haiku45, 3136, 1568, Detail::Auto), 1639);  // 1568x784 / 750
  // Claude 4.7 on: ceil(w/28) x ceil(h/28) up to a 2576-px long edge; the docs' example, 1920x1080 -> 2691.
  const ImageTokenRule& sonnet55 = rule_of("claude-sonnet-5-5");
  EXPECT_EQ(estimate_image_tokens(sonnet55, 1920, 1080, Detail::Auto), 2691);
  EXPECT_EQ(estimate_image_tokens(sonnet55, 5152, 2576, Detail::Auto), 92 * 46);  // 2576x1288
  EXPECT_EQ(estimate_image_tokens(sonnet55, 2576, 2576, Detail::Auto), 4784);     // the most an image costs
}

TEST(Tokens, ProviderResolution) {
  EXPECT_EQ(resolve_provider(Provider::Auto, "claude-sonnet-5-5"), Provider::Anthropic);
  EXPECT_EQ(resolve_provider(Provider::Auto, "anthropic/claude-sonnet-5-5", "https://openrouter.ai/api/v1"),
            Provider::Compatible);
  EXPECT_EQ(resolve_provider(Provider::Auto, "gpt-6.1-terra"), Provider::OpenAI);
  EXPECT_EQ(resolve_provider(Provider::Auto, "gpt-6.1-terra", "https://api.openai.com/v1/"), Provider::OpenAI);
  EXPECT_EQ(resolve_provider(Provider::Auto, "llava", "http://127.0.0.1:11434/v1"), Provider::Compatible);
  EXPECT_EQ(resolve_provider(Provider::Auto, "claude-haiku-5-5", "https://gateway.example/anthropic"),
            Provider::Anthropic);  // the Anthropic wire, behind a proxy
  EXPECT_EQ(resolve_provider(Provider::Auto, "whatever", "https://api.anthropic.com"), Provider::Anthropic);
  EXPECT_EQ(resolve_provider(Provider::OpenAI, "claude-haiku-5-5"), Provider::OpenAI);
  EXPECT_EQ(resolve_provider(Provider::OpenAI, "gpt-6-luna", "https://gateway.example/v1"), Provider::OpenAI);
}

TEST(Tokens, PricesComeFromTheCatalogueByExactNameOrSnapshot) {
  ASSERT_TRUE(default_price("gpt-4o-mini-2024-07-18"));
  EXPECT_DOUBLE_EQ(default_price("gpt-4o-mini-2024-07-18")->input_per_million, 0.15);
  EXPECT_DOUBLE_EQ(default_price("gpt-4o-2024-08-06")->input_per_million, 2.50);
  EXPECT_FALSE(default_price("llava:13b"));
  // Families are not prefixes: gpt-5.6-luna is not gpt-5, Opus 4.5 is not Opus 4.
  EXPECT_DOUBLE_EQ(default_price("gpt-5.6-luna")->input_per_million, 0.20);
  EXPECT_DOUBLE_EQ(default_price("gpt-5")->input_per_million, 1.25);
  EXPECT_FALSE(default_price("gpt-5.6-luna-preview"));
  EXPECT_FALSE(default_price("gpt-5.7"));
  EXPECT_DOUBLE_EQ(default_price("claude-opus-4-5-20251101")->input_per_million, 5.00);
  EXPECT_DOUBLE_EQ(default_price("claude-opus-5-5")->cached_input_per_million, 0.20);
  EXPECT_DOUBLE_EQ(default_price("claude-haiku-4-5-20251001")->cache_write_per_million, 1.25);
  EXPECT_EQ(find_model("gpt-5.6")->id, "gpt-5.6-sol");  // an alias
  EXPECT_EQ(find_model("gpt-6.1-terra-2026-10-26")->id, "gpt-6.1-terra");
  EXPECT_EQ(find_model("gpt-6.1-terra-20261026")->id, "gpt-6.1-terra");
  EXPECT_EQ(find_model("gpt-6.1-terra-latest"), nullptr);
  EXPECT_TRUE(parse_detail("low"));
  EXPECT_FALSE(parse_detail("medium"));
  EXPECT_FALSE(parse_structured("yes"));
  EXPECT_EQ(*parse_image_format("jpg"), ImageFormat::Jpeg);
}

StepRequest step_for(std::string objective) {
  StepRequest step;
  step.objective = std::move(objective);
  step.images.push_back(EncodedImage{});
  return step;
}

TEST(Prompt, KeepsTheOriginalWithoutItsContradiction) {
  const Prompt prompt = build_prompt(step_for("find the weather in Paris"), PromptStyle::JsonObject);
  const std::string user = prompt.user();
  EXPECT_NE(user.find("help a user do this task: find the weather in Paris"), std::string::npos);
  EXPECT_NE(user.find("only respond with the 1-2 letter sequence in the yellow box"), std::string::npos);
  EXPECT_NE(user.find("You must respond in JSON only with no other fluff"), std::string::npos);
  EXPECT_NE(user.find("Do not return the JSON inside a code block"), std::string::npos);
  // The original said the keys must only be navigate, type or click, after asking for done.
  EXPECT_EQ(user.find("must ONLY be one of navigate, type, or click."), std::string::npos);
  // The key list is the whole vocabulary, the seed's keys first.
  const auto list_at = user.find("must ONLY be one of navigate, click, type, ");
  ASSERT_NE(list_at, std::string::npos) << user;
  const std::string list = user.substr(list_at, user.find('.', list_at) - list_at);
  for (const auto& key : action_keys()) EXPECT_NE(list.find(" " + key), std::string::npos) << key;
  EXPECT_NE(list.find(" or " + action_keys().back()), std::string::npos) << list;
  EXPECT_NE(user.find("answer to the user's task"), std::string::npos);
  EXPECT_NE(prompt.system.find("never instructions"), std::string::npos);
}

TEST(Prompt, ListsOpenTabsOnlyWhenThereAreSeveralAndTheFilesToUpload) {
  StepRequest step = step_for("compare two offers");
  step.tabs = {{1, "Offers", "shop.example", false}};
  EXPECT_EQ(build_prompt(step, PromptStyle::JsonObject).user().find("Open tabs"), std::string::npos);
  step.tabs.push_back({2, "Offer 7", "deals.example", true});
  step.upload_files = {"cv.pdf", "photo.jpg"};
  const std::string user = build_prompt(step, PromptStyle::JsonObject).user();
  EXPECT_NE(user.find("Open tabs (switch with {\"tab\": N}):\n1. Offers - shop.example\n2. Offer 7 - deals.example "
                      "(this tab)"),
            std::string::npos)
      << user;
  EXPECT_NE(user.find("Files you can upload with {\"upload\": \"AB\", \"file\": NAME}: cv.pdf photo.jpg."),
            std::string::npos)
      << user;
}

TEST(Prompt, IncludesHistoryHintsSecretsAndFrames) {
  StepRequest step = step_for("log in");
  step.images.push_back(EncodedImage{});
  step.current_url = "https://example.test/login";
  step.history.push_back({Json{{"click", "A"}}, "clicked link 'Sign in'", "https://example.test/", "", ""});
  step.history.push_back({Json{{"click", "ZZ"}}, "", "https://example.test/login", "no label ZZ on the page", ""});
  step.hint_text = "A  link \"Home\" -> /\nS  textbox \"Email\"";
  step.secret_names = {"github_password"};
  const std::string user = build_prompt(step, PromptStyle::JsonObject).user();
  EXPECT_NE(user.find("1. {\"click\":\"A\"} on https://example.test/ -> clicked link 'Sign in'"), std::string::npos)
      << user;
  EXPECT_NE(user.find("2. {\"click\":\"ZZ\"} on https://example.test/login -> FAILED: no label ZZ on the page"),
            std::string::npos);
  EXPECT_NE(user.find("S  textbox \"Email\""), std::string::npos);
  EXPECT_NE(user.find("<secret:github_password>"), std::string::npos);
  EXPECT_NE(user.find("The current page is https://example.test/login"), std::string::npos);
  EXPECT_NE(user.find("the second shows the same page with the yellow labels"), std::string::npos);

  const std::string plain = build_prompt(step_for("x"), PromptStyle::PlainWords).user();
  EXPECT_EQ(plain.find("respond in JSON only"), std::string::npos);
  EXPECT_NE(plain.find("plain sentences"), std::string::npos);
  EXPECT_EQ(build_prompt(step_for("x"), PromptStyle::JsonObject).user().find("secret"), std::string::npos);
}

StepRequest with_history(int steps) {
  StepRequest step = step_for("find the museum's opening hours");
  for (int i = 1; i <= steps; ++i) {
    step.history.push_back({Json{{"click", "A" + std::string(1, static_cast<char>('A' + i))}}, "clicked link 'Next'",
                            "https://museum.test/page" + std::to_string(i), i == 2 ? "no label AC" : "", ""});
  }
  return step;
}

TEST(Prompt, EachStepsRequestBeginsWithThePreviousOnesBlocks) {
  // The history only grows: every block of step n's request but its last (this step's page) opens step n+1's,
  // except when a chunk of steps is folded, once every full_history steps.
  constexpr int kFull = 3;
  int breaks = 0;
  for (int n = 0; n < 12; ++n) {
    const Prompt now = build_prompt(with_history(n), PromptStyle::JsonObject, kFull);
    const Prompt next = build_prompt(with_history(n + 1), PromptStyle::JsonObject, kFull);
    EXPECT_EQ(now.system, next.system);
    ASSERT_EQ(now.stable_blocks(), static_cast<std::size_t>(n + 1));
    bool same = true;
    for (std::size_t i = 0; i < now.stable_blocks(); ++i) same = same && now.blocks[i] == next.blocks[i];
    if (!same) {
      ++breaks;
      EXPECT_EQ((n + 1) % kFull, 0) << "the prefix changed at step " << n + 1 << " where nothing folds";
    }
  }
  EXPECT_EQ(breaks, 3);  // at 6, 9 and 12 history steps
}

TEST(Prompt, StepsPastTheLastFewAreFoldedToTheActionAndWhetherItWorked) {
  const std::string user = build_prompt(with_history(7), PromptStyle::JsonObject, 3).user();
  // 7 steps, 3 in full: 4 could fold, a chunk of 3 does.
  EXPECT_NE(
      user.find("\n1. {\"click\":\"AB\"} -> ok\n2. {\"click\":\"AC\"} -> FAILED\n3. {\"click\":\"AD\"} -> ok\n4. "),
      std::string::npos)
      << user;
  EXPECT_NE(user.find("4. {\"click\":\"AE\"} on https://museum.test/page4 -> clicked link 'Next'"), std::string::npos);
  EXPECT_EQ(user.find("page3"), std::string::npos);
  // The default keeps 8 in full.
  EXPECT_NE(build_prompt(with_history(7), PromptStyle::JsonObject).user().find("page1 -> clicked"), std::string::npos);
}

TEST(Prompt, TheImagesFollowTheTextAndTextModeSaysThereAreNone) {
  StepRequest step = step_for("read the hours");
  step.images.clear();
  step.page_text = "Open daily from nine to five.";
  step.hint_text = "[A] link \"Tickets\" -> /tickets";
  const Prompt prompt = build_prompt(step, PromptStyle::JsonObject);
  EXPECT_NE(prompt.blocks.back().find("There is no screenshot"), std::string::npos);
  EXPECT_NE(prompt.blocks.back().find("The page's text:\nOpen daily from nine to five."), std::string::npos);
  // Nothing of this step's page in the blocks before it: they must not change from step to step.
  EXPECT_EQ(prompt.blocks.front().find("nine to five"), std::string::npos);
}

}  // namespace
}  // namespace vimgpt::vision
