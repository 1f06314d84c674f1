#include "http/dashboard_sessions.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "absl/time/time.h"

namespace vernier::http {
namespace {

using ::testing::HasSubstr;
using ::testing::MatchesRegex;
using ::testing::Not;

TEST(DashboardSessionsTest, ASessionIdIsRandomAndTellsNothingOfTheToken) {
  DashboardSessions sessions(absl::Hours(12), 100);
  std::set<std::string> ids;
  for (int i = 0; i < 20; ++i) {
    const absl::StatusOr<std::string> id = sessions.Open("Bearer vnr_secret");
    ASSERT_TRUE(id.ok()) << id.status();
    EXPECT_THAT(*id, MatchesRegex("[0-9a-f]{64}"));
    EXPECT_THAT(*id, Not(HasSubstr("secret")));
    ids.insert(*id);
  }
  EXPECT_EQ(ids.size(), 20u);
  for (const std::string& id : ids) EXPECT_EQ(sessions.Find(id), "Bearer vnr_secret");
  EXPECT_EQ(sessions.Find("vnr_secret"), "");
  EXPECT_EQ(sessions.Find(""), "");
}

TEST(DashboardSessionsTest, ASessionExpires) {
  absl::Time now = absl::FromUnixSeconds(1000);
  DashboardSessions sessions(absl::Hours(12), 100, [&now] { return now; });
  const std::string id = *sessions.Open("Bearer a");
  now += absl::Hours(11);
  EXPECT_EQ(sessions.Find(id), "Bearer a");
  now += absl::Hours(1);
  EXPECT_EQ(sessions.Find(id), "");
  EXPECT_EQ(sessions.Size(), 0u);
}

TEST(DashboardSessionsTest, ClosedSessionsAreGone) {
  DashboardSessions sessions(absl::Hours(12), 100);
  const std::string id = *sessions.Open("Bearer a");
  sessions.Close(id);
  EXPECT_EQ(sessions.Find(id), "");
  sessions.Close("unknown");
}

TEST(DashboardSessionsTest, AtTheLimitTheSessionThatExpiresFirstGoes) {
  absl::Time now = absl::FromUnixSeconds(1000);
  DashboardSessions sessions(absl::Hours(1), 2, [&now] { return now; });
  const std::string first = *sessions.Open("Bearer a");
  now += absl::Minutes(1);
  const std::string second = *sessions.Open("Bearer b");
  now += absl::Minutes(1);
  const std::string third = *sessions.Open("Bearer c");
  EXPECT_EQ(sessions.Size(), 2u);
  EXPECT_EQ(sessions.Find(first), "");
  EXPECT_EQ(sessions.Find(second), "Bearer b");
  EXPECT_EQ(sessions.Find(third), "Bearer c");
}

}  // namespace
}  // namespace vernier::http
