#include "trainer-agent/server_target.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace vernier::agent {
namespace {

using ::testing::HasSubstr;

TEST(ServerTargetTest, OneAddressIsUsedAsGiven) {
  EXPECT_EQ(*ServerTarget("127.0.0.1:7730"), "127.0.0.1:7730");
  EXPECT_EQ(*ServerTarget("unix:/run/vernier.sock"), "unix:/run/vernier.sock");
  EXPECT_EQ(*ServerTarget("db.example.com:7730"), "db.example.com:7730");
}

TEST(ServerTargetTest, SeveralServersBecomeOneTargetInTheirOrder) {
  absl::StatusOr<std::string> target = ServerTarget("127.0.0.1:7731,127.0.0.2:7732");
  ASSERT_TRUE(target.ok()) << target.status();
  EXPECT_EQ(*target, "ipv4:127.0.0.1:7731,127.0.0.2:7732");
  target = ServerTarget("[::1]:7731,[::1]:7732");
  ASSERT_TRUE(target.ok()) << target.status();
  EXPECT_EQ(*target, "ipv6:[::1]:7731,[::1]:7732");
}

TEST(ServerTargetTest, NamesTheEntryThatIsWrong) {
  absl::StatusOr<std::string> target = ServerTarget("127.0.0.1:7731,,127.0.0.1:7732");
  EXPECT_EQ(target.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(target.status().message(), HasSubstr("empty entry"));
  target = ServerTarget("127.0.0.1:7731,127.0.0.1");
  EXPECT_EQ(target.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(target.status().message(), HasSubstr("\"127.0.0.1\" is not HOST:PORT"));
  target = ServerTarget("127.0.0.1:7731,127.0.0.1:99999");
  EXPECT_THAT(target.status().message(), HasSubstr("\"127.0.0.1:99999\" is not HOST:PORT"));
  target = ServerTarget("127.0.0.1:7731,no-such-host.invalid:7730");
  EXPECT_EQ(target.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(target.status().message(), HasSubstr("\"no-such-host.invalid\" does not resolve"));
  target = ServerTarget("127.0.0.1:7731,[::1]:7732");
  EXPECT_EQ(target.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(target.status().message(), HasSubstr("mixes"));
}

}  // namespace
}  // namespace vernier::agent
