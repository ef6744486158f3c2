// The PDF module on PDFs made here, through Debian's poppler-utils (installed by scripts/setup.sh).
#include "pdf/pdf.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "support/pdf_maker.h"

namespace vimgpt {
namespace {

namespace fs = std::filesystem;

class PdfTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("vimgpt-pdf-test-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  std::string write(const std::string& name, const std::string& bytes) {
    const fs::path path = dir_ / name;
    std::ofstream(path, std::ios::binary) << bytes;
    return path.string();
  }

  fs::path dir_;
};

TEST_F(PdfTest, PagesAndTitleAreRead) {
  const auto path = write("report.pdf", test::make_pdf({"First page", "Second page", "Third page"}, "Annual report"));
  ASSERT_TRUE(pdf::available());
  EXPECT_TRUE(pdf::is_pdf(path));
  const auto read = pdf::info(path);
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(read->pages, 3);
  EXPECT_EQ(read->title, "Annual report");
}

TEST_F(PdfTest, TheChosenPagesBecomeOneDocumentWithAnAnchorEach) {
  const auto path = write("report.pdf", test::make_pdf({"Alpha words", "Bravo words", "Charlie words"}));
  const auto html = pdf::to_html(path, 2, 3);
  ASSERT_TRUE(html) << html.error().message;
  EXPECT_EQ(html->find("Alpha"), std::string::npos);  // page 1 was not asked for
  EXPECT_NE(html->find("Bravo"), std::string::npos);
  EXPECT_NE(html->find("Charlie"), std::string::npos);
  EXPECT_NE(html->find("<a name=\"2\">"), std::string::npos);
  EXPECT_NE(html->find("<a name=\"3\">"), std::string::npos);
  EXPECT_NE(html->find("data:image/png;base64,"), std::string::npos);  // each page's picture inside the document
}

TEST_F(PdfTest, AFileThatIsNotAPdfIsSaidSo) {
  const auto path = write("fake.pdf", "<html>not a pdf</html>");
  EXPECT_FALSE(pdf::is_pdf(path));
  const auto read = pdf::info(path);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().kind, ErrorKind::InvalidArgument);
  EXPECT_NE(read.error().message.find("cannot read " + path + " as a PDF"), std::string::npos) << read.error().message;
  EXPECT_FALSE(pdf::is_pdf((dir_ / "missing.pdf").string()));
}

TEST_F(PdfTest, PagesOutOfOrderAreRefused) {
  const auto path = write("report.pdf", test::make_pdf({"One"}));
  const auto html = pdf::to_html(path, 2, 1);
  ASSERT_FALSE(html);
  EXPECT_EQ(html.error().kind, ErrorKind::InvalidArgument);
}

TEST_F(PdfTest, WithoutPopplerTheErrorSaysWhatToInstall) {
  const auto path = write("report.pdf", test::make_pdf({"One"}));
  const std::string saved = std::getenv("PATH") != nullptr ? std::getenv("PATH") : "";
  ::setenv("PATH", dir_.c_str(), 1);  // a folder with no programs in it
  const bool available = pdf::available();
  const auto read = pdf::info(path);
  ::setenv("PATH", saved.c_str(), 1);
  EXPECT_FALSE(available);
  ASSERT_FALSE(read);
  EXPECT_EQ(read.error().kind, ErrorKind::Unsupported);
  EXPECT_NE(read.error().message.find("apt-get install poppler-utils"), std::string::npos) << read.error().message;
}

}  // namespace
}  // namespace vimgpt
