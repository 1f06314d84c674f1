#include "trainer-agent/server_target.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace vernier::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

TEST(ServerTargetsTest, OneAddressIsUsedAsGiven) {
  EXPECT_THAT(*ServerTargets("127.0.0.1:7730"), ElementsAre("127.0.0.1:7730"));
  EXPECT_THAT(*ServerTargets("unix:/run/vernier.sock"), ElementsAre("unix:/run/vernier.sock"));
  EXPECT_THAT(*ServerTargets("db.example.com:7730"), ElementsAre("db.example.com:7730"));
}

// One target each, so that the agent can leave one that hangs for the next
// (ServerPool); IPv4 and IPv6 hosts may mix.
TEST(ServerTargetsTest, SeveralServersAreOneTargetEachInTheirOrder) {
  absl::StatusOr<std::vector<std::string>> targets = ServerTargets("127.0.0.1:7731,127.0.0.2:7732");
  ASSERT_TRUE(targets.ok()) << targets.status();
  EXPECT_THAT(*targets, ElementsAre("127.0.0.1:7731", "127.0.0.2:7732"));
  targets = ServerTargets("[::1]:7731,127.0.0.1:7732,localhost:7733");
  ASSERT_TRUE(targets.ok()) << targets.status();
  EXPECT_THAT(*targets, ElementsAre("[::1]:7731", "127.0.0.1:7732", "localhost:7733"));
}

TEST(ServerTargetsTest, NamesTheEntryThatIsWrong) {
  absl::StatusOr<std::vector<std::string>> targets =
      ServerTargets("127.0.0.1:7731,,127.0.0.1:7732");
  EXPECT_EQ(targets.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(targets.status().message(), HasSubstr("empty entry"));
  targets = ServerTargets("127.0.0.1:7731,127.0.0.1");
  EXPECT_EQ(targets.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(targets.status().message(), HasSubstr("\"127.0.0.1\" is not HOST:PORT"));
  targets = ServerTargets("127.0.0.1:7731,127.0.0.1:99999");
  EXPECT_THAT(targets.status().message(), HasSubstr("\"127.0.0.1:99999\" is not HOST:PORT"));
  targets = ServerTargets("127.0.0.1:7731,no-such-host.invalid:7730");
  EXPECT_EQ(targets.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(targets.status().message(), HasSubstr("\"no-such-host.invalid\" does not resolve"));
}

}  // namespace
}  // namespace vernier::agent
