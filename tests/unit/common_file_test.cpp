// Reading a whole file: every byte back, and errors that name the path.
#include "common/file.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace vimgpt {
namespace {

namespace fs = std::filesystem;

class ReadFile : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("vimgpt-file-test-" + std::to_string(::getpid()));
    fs::create_directories(dir_);
  }
  void TearDown() override { fs::remove_all(dir_); }

  fs::path write(const std::string& name, const std::string& bytes) {
    std::ofstream(dir_ / name, std::ios::binary) << bytes;
    return dir_ / name;
  }

  fs::path dir_;
};

TEST_F(ReadFile, ReturnsEveryByte) {
  std::string bytes("a\0b\r\n\xff", 6);
  for (int i = 0; i < 20000; ++i) bytes += static_cast<char>(i % 251);
  auto read = read_file(write("bytes.bin", bytes));
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_EQ(*read, bytes);
}

TEST_F(ReadFile, AnEmptyFileIsAnEmptyString) {
  auto read = read_file(write("empty", ""));
  ASSERT_TRUE(read) << read.error().message;
  EXPECT_TRUE(read->empty());
}

TEST_F(ReadFile, AMissingFileOrAFolderIsAnIoErrorNamingThePath) {
  const auto missing = read_file(dir_ / "missing.txt");
  ASSERT_FALSE(missing);
  EXPECT_EQ(missing.error().kind, ErrorKind::Io);
  EXPECT_NE(missing.error().message.find((dir_ / "missing.txt").string()), std::string::npos);
  const auto folder = read_file(dir_);
  ASSERT_FALSE(folder);
  EXPECT_EQ(folder.error().kind, ErrorKind::Io);
  EXPECT_NE(folder.error().message.find("folder"), std::string::npos) << folder.error().message;
}

}  // namespace
}  // namespace vimgpt
