#include "auth/access_decision.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "auth/roles.h"

namespace vernier::auth {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

Identity User(std::string name, v1::Role role) { return Identity{std::move(name), role, "id", {}}; }

const MethodPermission& Row(const char* method) { return *FindPermission(method); }

ResourceAccess StudyOf(std::string owner) { return ResourceAccess{"study", "s1", std::move(owner), {}}; }

TEST(AccessDecisionTest, ViewerReadsButDoesNotChange) {
  const Identity viewer = User("vic", v1::VIEWER);
  EXPECT_TRUE(DecideAccess(viewer, Row("/vernier.v1.StudyService/GetStudy"), nullptr, nullptr).ok());
  const absl::Status denied =
      DecideAccess(viewer, Row("/vernier.v1.StudyService/CreateStudy"), nullptr, nullptr);
  EXPECT_EQ(denied.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(denied.message(), AllOf(HasSubstr("/vernier.v1.StudyService/CreateStudy"),
                                      HasSubstr("needs the developer role"),
                                      HasSubstr("vic (viewer) has viewer")));
}

TEST(AccessDecisionTest, DeveloperChangesOwnAndSharedOnly) {
  const MethodPermission& complete = Row("/vernier.v1.StudyService/CompleteTrial");
  const Identity dev = User("dora", v1::DEVELOPER);
  const ResourceAccess own = StudyOf("dora");
  EXPECT_TRUE(DecideAccess(dev, complete, &own, nullptr).ok());
  const ResourceAccess other = StudyOf("bob");
  const absl::Status denied = DecideAccess(dev, complete, &other, nullptr);
  EXPECT_EQ(denied.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(denied.message(),
              AllOf(HasSubstr("may not change study \"s1\" (owner bob)"), HasSubstr("studies share")));
  ResourceAccess shared = other;
  v1::AccessGrant& grant = shared.grants.emplace_back();
  grant.set_user("dora");
  grant.set_role(v1::VIEWER);
  EXPECT_FALSE(DecideAccess(dev, complete, &shared, nullptr).ok()) << "a viewer grant changes nothing";
  grant.set_role(v1::DEVELOPER);
  EXPECT_TRUE(DecideAccess(dev, complete, &shared, nullptr).ok());
  // Sharing on is the owner's alone.
  EXPECT_EQ(DecideAccess(dev, Row("/vernier.v1.AuthService/ShareStudy"), &shared, nullptr).code(),
            absl::StatusCode::kPermissionDenied);
}

TEST(AccessDecisionTest, AGrantNeverRaisesAViewer) {
  ResourceAccess shared = StudyOf("bob");
  v1::AccessGrant& grant = shared.grants.emplace_back();
  grant.set_user("vic");
  grant.set_role(v1::DEVELOPER);
  EXPECT_EQ(DecideAccess(User("vic", v1::VIEWER), Row("/vernier.v1.StudyService/StopTrial"),
                         &shared, nullptr)
                .code(),
            absl::StatusCode::kPermissionDenied);
}

TEST(AccessDecisionTest, AdminDoesEverythingButAgentReports) {
  const Identity admin = User("root", v1::ADMIN);
  const ResourceAccess unowned = StudyOf("");
  EXPECT_TRUE(DecideAccess(admin, Row("/vernier.v1.StudyService/DeleteStudy"), &unowned, nullptr).ok());
  EXPECT_TRUE(DecideAccess(admin, Row("/vernier.v1.AuthService/CreateToken"), nullptr, nullptr).ok());
  EXPECT_EQ(DecideAccess(User("dora", v1::DEVELOPER), Row("/vernier.v1.AuthService/CreateToken"),
                         nullptr, nullptr)
                .code(),
            absl::StatusCode::kPermissionDenied);
  const absl::Status report =
      DecideAccess(admin, Row("/vernier.v1.AgentService/ReportExit"), nullptr, nullptr);
  EXPECT_EQ(report.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(report.message(), HasSubstr("is for a trial's own agent"));
}

TEST(AccessDecisionTest, UnownedResourceIsTheAdminsOnly) {
  const ResourceAccess unowned = StudyOf("");
  const absl::Status denied = DecideAccess(
      User("dora", v1::DEVELOPER), Row("/vernier.v1.StudyService/DeleteStudy"), &unowned, nullptr);
  EXPECT_EQ(denied.code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(denied.message(), HasSubstr("made before owners existed"));
}

TEST(AccessDecisionTest, AgentReportsForItsOwnAttemptOnly) {
  Identity agent = User("vernier-agent", v1::AGENT);
  agent.agent_scope.set_study_name("job1");
  agent.agent_scope.set_trial_id(3);
  agent.agent_scope.set_attempt(1);
  const MethodPermission& exit = Row("/vernier.v1.AgentService/ReportExit");
  v1::AgentScope replica = agent.agent_scope;
  EXPECT_TRUE(DecideAccess(agent, exit, nullptr, &replica).ok());
  replica.set_trial_id(4);
  EXPECT_THAT(DecideAccess(agent, exit, nullptr, &replica).message(),
              AllOf(HasSubstr("for trial 3 of study \"job1\", attempt 1 only"),
                    HasSubstr("not trial 4")));
  replica = agent.agent_scope;
  replica.set_attempt(0);
  EXPECT_EQ(DecideAccess(agent, exit, nullptr, &replica).code(), absl::StatusCode::kPermissionDenied);
  EXPECT_THAT(DecideAccess(agent, Row("/vernier.v1.StudyService/GetStudy"), nullptr, nullptr).message(),
              HasSubstr("an agent's credential may only report for its own trial attempt"));
}

TEST(RolesTest, ParsesUserRolesOnly) {
  EXPECT_EQ(*ParseUserRole("Developer", "--role"), v1::DEVELOPER);
  const absl::StatusOr<v1::Role> agent = ParseUserRole("agent", "--role");
  EXPECT_EQ(agent.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(agent.status().message(),
              HasSubstr("--role: unknown role \"agent\"; use viewer, developer or admin"));
  EXPECT_TRUE(RoleIncludes(v1::ADMIN, v1::VIEWER));
  EXPECT_FALSE(RoleIncludes(v1::VIEWER, v1::DEVELOPER));
  EXPECT_FALSE(RoleIncludes(v1::ADMIN, v1::AGENT));
  EXPECT_FALSE(RoleIncludes(v1::AGENT, v1::VIEWER));
}

}  // namespace
}  // namespace vernier::auth
