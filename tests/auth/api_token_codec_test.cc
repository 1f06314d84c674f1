#include "auth/api_token_codec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>

#include "auth/token_file.h"

namespace vernier::auth {
namespace {

using ::testing::HasSubstr;

TEST(ApiTokenCodecTest, FormatsHashesAndRecognises) {
  TokenSecret secret{};
  secret[0] = 0xab;
  const std::string token = FormatToken(secret);
  EXPECT_EQ(token, "vnr_ab" + std::string(62, '0'));
  EXPECT_TRUE(LooksLikeToken(token));
  EXPECT_FALSE(LooksLikeToken("vnr_xyz"));
  // SHA-256 of the empty string.
  EXPECT_EQ(HashToken(""), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
  EXPECT_EQ(TokenIdOfHash(HashToken("")), "e3b0c44298fc");
  const absl::StatusOr<TokenSecret> a = RandomTokenSecret();
  const absl::StatusOr<TokenSecret> b = RandomTokenSecret();
  ASSERT_TRUE(a.ok() && b.ok());
  EXPECT_NE(*a, *b);
}

TEST(ApiTokenCodecTest, ReadsBearerAuthorization) {
  EXPECT_EQ(*TokenFromAuthorization("Bearer vnr_1"), "vnr_1");
  EXPECT_EQ(*TokenFromAuthorization("bearer   vnr_1 "), "vnr_1");
  EXPECT_EQ(TokenFromAuthorization("Basic dXNlcg==").status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(TokenFromAuthorization("Bearer ").status().message(), HasSubstr("Bearer TOKEN"));
}

class TokenFileTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = std::filesystem::temp_directory_path() /
           ("vernier-token-file-test-" + std::to_string(getpid()));
    std::filesystem::create_directories(dir_);
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::filesystem::path dir_;
};

TEST_F(TokenFileTest, WritesMode0600AndReadsBack) {
  const std::string path = (dir_ / "sub" / "token").string();
  ASSERT_TRUE(WriteTokenFile(path, "vnr_abc").ok());
  struct stat info = {};
  ASSERT_EQ(stat(path.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 0777, 0600u);
  EXPECT_EQ(*ReadTokenFile(path), "vnr_abc");
}

// A trial folder belongs to the trial user under `vernier serve
// --trial-user`: a trainer may plant a link where the server (root) writes
// the next attempt's credential. Nothing is written through it.
TEST_F(TokenFileTest, ALinkPlantedAtTheTemporaryNameIsNotWrittenThrough) {
  const std::string victim = (dir_ / "victim").string();
  std::ofstream(victim) << "precious\n";
  const std::string path = (dir_ / ".agent-token-1").string();
  std::filesystem::create_symlink(victim, path + ".tmp" + std::to_string(getpid()));
  ASSERT_TRUE(WriteTokenFile(path, "vnr_agent").ok());
  std::ifstream victim_file(victim);
  std::string line;
  std::getline(victim_file, line);
  EXPECT_EQ(line, "precious");
  EXPECT_EQ(*ReadTokenFile(path), "vnr_agent");
  EXPECT_FALSE(std::filesystem::is_symlink(path));
}

TEST_F(TokenFileTest, RefusesAFileOthersMayRead) {
  const std::string path = (dir_ / "token").string();
  std::ofstream(path) << "vnr_abc\n";
  chmod(path.c_str(), 0644);
  const absl::StatusOr<std::string> read = ReadTokenFile(path);
  EXPECT_EQ(read.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(read.status().message(), HasSubstr("mode 0644"));
  EXPECT_THAT(read.status().message(), HasSubstr("chmod 600 " + path));
}

TEST_F(TokenFileTest, MissingAndEmptyFiles) {
  EXPECT_EQ(ReadTokenFile((dir_ / "none").string()).status().code(), absl::StatusCode::kNotFound);
  const std::string path = (dir_ / "empty").string();
  ASSERT_TRUE(WriteTokenFile(path, "").ok());
  EXPECT_THAT(ReadTokenFile(path).status().message(), HasSubstr("is empty"));
}

TEST(TokenFileNameTest, LoopbackHostsShareOneFile) {
  EXPECT_EQ(TokenFileNameForAddress("127.0.0.1:7730"), "loopback-7730");
  EXPECT_EQ(TokenFileNameForAddress("localhost:7730"), "loopback-7730");
  EXPECT_EQ(TokenFileNameForAddress("[::1]:7730"), "loopback-7730");
  EXPECT_EQ(TokenFileNameForAddress("gpu-head.example:7730"), "gpu-head.example-7730");
  EXPECT_EQ(TokenFileNameForAddress("[fe80::1]:7730"), "_fe80__1_-7730");
}

TEST(TokenFileNameTest, ConfigDirFromTheEnvironment) {
  setenv("VERNIER_CONFIG_DIR", "/x/cfg", 1);
  EXPECT_EQ(TokenFileForAddress("localhost:1"), "/x/cfg/tokens/loopback-1");
  unsetenv("VERNIER_CONFIG_DIR");
}

}  // namespace
}  // namespace vernier::auth
