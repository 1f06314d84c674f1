#include "tuner/rpc_authorizer.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "auth/token_file.h"
#include "google/protobuf/text_format.h"
#include "tests/support/fake_clock.h"
#include "tests/support/subprocess.h"
#include "tuner/agent_credentials.h"
#include "tuner/auth_service_impl.h"
#include "tuner/storage/sqlite/sqlite_storage.h"

namespace vernier::tuner {
namespace {

using ::testing::HasSubstr;

class RpcAuthorizerTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<storage::SqliteStorage>> store =
        storage::SqliteStorage::Open(dir_.path() + "/vernier.db");
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    gate_ = std::make_unique<RpcAuthorizer>(*store_, clock_.AsClock(), absl::Seconds(5));
  }

  v1::CreateTokenResponse Issue(const std::string& user, v1::Role role,
                                absl::Duration expires = absl::ZeroDuration()) {
    absl::StatusOr<v1::CreateTokenResponse> issued =
        IssueApiToken(*store_, user, role, expires, "test", clock_.Now());
    EXPECT_TRUE(issued.ok()) << issued.status();
    return *issued;
  }

  testing::TempDir dir_;
  testing::FakeClock clock_;
  std::unique_ptr<storage::SqliteStorage> store_;
  std::unique_ptr<RpcAuthorizer> gate_;
};

TEST_F(RpcAuthorizerTest, AuthenticatesAnIssuedTokenAndRecordsItsUse) {
  const v1::CreateTokenResponse issued = Issue("alice", v1::DEVELOPER);
  absl::StatusOr<auth::Identity> who = gate_->Authenticate("Bearer " + issued.token());
  ASSERT_TRUE(who.ok()) << who.status();
  EXPECT_EQ(who->user, "alice");
  EXPECT_EQ(who->role, v1::DEVELOPER);
  EXPECT_EQ(who->token_id, issued.info().id());
  absl::StatusOr<std::vector<v1::ApiToken>> stored = store_->ListApiTokens();
  ASSERT_TRUE(stored.ok());
  ASSERT_EQ(stored->size(), 1u);
  EXPECT_TRUE((*stored)[0].has_last_use_time());
  // Only the hash is stored.
  EXPECT_THAT((*stored)[0].DebugString(), ::testing::Not(HasSubstr(issued.token())));
}

TEST_F(RpcAuthorizerTest, UnknownExpiredAndRevokedTokensAreUnauthenticated) {
  EXPECT_EQ(gate_->Authenticate("Bearer vnr_unknown").status().code(),
            absl::StatusCode::kUnauthenticated);
  EXPECT_EQ(gate_->Authenticate("Token abc").status().code(), absl::StatusCode::kUnauthenticated);

  const v1::CreateTokenResponse brief = Issue("eve", v1::VIEWER, absl::Hours(1));
  EXPECT_TRUE(gate_->Authenticate("Bearer " + brief.token()).ok());
  clock_.Advance(absl::Hours(2));
  const absl::Status expired = gate_->Authenticate("Bearer " + brief.token()).status();
  EXPECT_EQ(expired.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(expired.message(), HasSubstr("of eve expired at"));

  const v1::CreateTokenResponse revoked = Issue("mallory", v1::ADMIN);
  EXPECT_TRUE(gate_->Authenticate("Bearer " + revoked.token()).ok());
  ASSERT_TRUE(store_
                  ->UpdateApiToken(revoked.info().id(),
                                   [&](v1::ApiToken& token) {
                                     *token.mutable_revoke_time() = ToTimestamp(clock_.Now());
                                     return absl::OkStatus();
                                   })
                  .ok());
  // Cached for up to the cache time unless this server revoked it.
  gate_->ForgetToken(revoked.info().id());
  const absl::Status refused = gate_->Authenticate("Bearer " + revoked.token()).status();
  EXPECT_EQ(refused.code(), absl::StatusCode::kUnauthenticated);
  EXPECT_THAT(refused.message(), HasSubstr("of mallory was revoked"));
}

// An agent credential stops the moment its attempt ends (issue 35): its
// trial settled, before the server deletes the credential once the
// replicas are gone, and with no cached lookup answering meanwhile.
TEST_F(RpcAuthorizerTest, AnAgentCredentialStopsAtOnceWhenItsTrialSettles) {
  v1::Study study;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(
      R"pb(name: "job1"
           spec { metrics { metric_id: "accuracy" goal: MAXIMIZE } })pb",
      &study));
  ASSERT_TRUE(store_->CreateStudy(study).ok());
  std::vector<v1::Trial> trials(1);
  trials[0].set_state(v1::Trial::ACTIVE);
  ASSERT_TRUE(store_->CreateTrials("job1", trials).ok());
  v1::AgentScope scope;
  scope.set_job_id("job1");
  scope.set_study_name("job1");
  scope.set_trial_id(1);
  AgentCredentials credentials(*store_, clock_.AsClock());
  absl::StatusOr<std::string> file = credentials.Issue(scope, dir_.path());
  ASSERT_TRUE(file.ok()) << file.status();
  absl::StatusOr<std::string> token = auth::ReadTokenFile(*file);
  ASSERT_TRUE(token.ok()) << token.status();
  const std::string bearer = "Bearer " + *token;
  absl::StatusOr<auth::Identity> who = gate_->Authenticate(bearer);
  ASSERT_TRUE(who.ok()) << who.status();
  EXPECT_EQ(who->role, v1::AGENT);

  ASSERT_TRUE(store_
                  ->UpdateTrial("job1", 1,
                                [](v1::Trial& trial) {
                                  trial.set_state(v1::Trial::SUCCEEDED);
                                  return absl::OkStatus();
                                })
                  .ok());
  const absl::Status ended = gate_->Authenticate(bearer).status();
  EXPECT_EQ(ended.code(), absl::StatusCode::kUnauthenticated) << ended;
  EXPECT_THAT(ended.message(), HasSubstr("ended with its attempt: trial 1 is SUCCEEDED"));

  // Deleted through another server sharing the store: gone at once too.
  ASSERT_TRUE(store_
                  ->UpdateTrial("job1", 1,
                                [](v1::Trial& trial) {
                                  trial.set_state(v1::Trial::ACTIVE);
                                  return absl::OkStatus();
                                })
                  .ok());
  ASSERT_TRUE(gate_->Authenticate(bearer).ok());
  ASSERT_TRUE(store_->DeleteApiToken(AgentCredentials::IdOf(scope)).ok());
  EXPECT_EQ(gate_->Authenticate(bearer).status().code(), absl::StatusCode::kUnauthenticated);
}

TEST_F(RpcAuthorizerTest, IssuingChecksUserRoleAndExpiry) {
  EXPECT_THAT(IssueApiToken(*store_, "", v1::VIEWER, absl::ZeroDuration(), "t", clock_.Now())
                  .status()
                  .message(),
              HasSubstr("user is required"));
  EXPECT_THAT(IssueApiToken(*store_, "bob", v1::AGENT, absl::ZeroDuration(), "t", clock_.Now())
                  .status()
                  .message(),
              HasSubstr("viewer, developer or admin, not agent"));
  EXPECT_EQ(IssueApiToken(*store_, "bob", v1::VIEWER, absl::Seconds(-1), "t", clock_.Now())
                .status()
                .code(),
            absl::StatusCode::kInvalidArgument);
  const v1::CreateTokenResponse a = Issue("bob", v1::VIEWER);
  const v1::CreateTokenResponse b = Issue("bob", v1::VIEWER);
  EXPECT_NE(a.token(), b.token());
  EXPECT_EQ(a.token().size(), 68u) << "vnr_ and 256 bits in hex";
}

}  // namespace
}  // namespace vernier::tuner
