#include "auth/secret_redaction.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "vernier/v1/auth_service.pb.h"
#include "vernier/v1/job.pb.h"

namespace vernier::auth {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

TEST(SecretRedactionTest, NamesThatLookSecret) {
  for (const char* name :
       {"HF_TOKEN", "AWS_SECRET_ACCESS_KEY", "db_password", "PGPASSWD", "authorization",
        "GOOGLE_APPLICATION_CREDENTIALS", "api_key", "VERNIER_TOKEN_FILE", "token"}) {
    EXPECT_TRUE(LooksSecret(name)) << name;
  }
  for (const char* name : {"PATH", "HOME", "CUDA_VISIBLE_DEVICES", "token_id", "page_token",
                           "study_name", "LEARNING_RATE"}) {
    EXPECT_FALSE(LooksSecret(name)) << name;
  }
}

TEST(SecretRedactionTest, AssignmentsKeepTheNameAndHideTheValue) {
  EXPECT_EQ(RedactAssignment("HF_TOKEN=hf_abc123"), "HF_TOKEN=[redacted]");
  EXPECT_EQ(RedactAssignment("EPOCHS=3"), "EPOCHS=3");
  EXPECT_EQ(RedactAssignment("--lr=0.1"), "--lr=0.1");
  EXPECT_EQ(RedactAssignment("no assignment"), "no assignment");
  EXPECT_EQ(RedactAssignment("=value"), "=value");
}

TEST(SecretRedactionTest, TextAndCommandLinesHideEverySecretAssignment) {
  EXPECT_EQ(RedactText("env HF_TOKEN=hf_1 EPOCHS=3 python t.py --api-key=k2 'DB_PASSWORD=p3'"),
            "env HF_TOKEN=[redacted] EPOCHS=3 python t.py --api-key=[redacted] "
            "'DB_PASSWORD=[redacted]'");
  EXPECT_EQ(RedactText("  export AWS_SECRET_ACCESS_KEY=abc\nexport PATH=/bin\n"),
            "  export AWS_SECRET_ACCESS_KEY=[redacted]\nexport PATH=/bin\n");
  EXPECT_EQ(RedactText("'t.py' '--api-key' 'k1' '--lr' '0.1'"),
            "'t.py' '--api-key' [redacted] '--lr' '0.1'");
  EXPECT_EQ(RedactCommandLine({"python", "t.py", "--token", "tok1", "--lr", "0.1"}),
            (std::vector<std::string>{"python", "t.py", "--token", "[redacted]", "--lr", "0.1"}));
  EXPECT_EQ(RedactCommandLine({"sh", "-c", "HF_TOKEN=x python t.py"}),
            (std::vector<std::string>{"sh", "-c", "HF_TOKEN=[redacted] python t.py"}));
}

TEST(SecretRedactionTest, SummaryHidesSecretFieldsAndAssignmentsAndIsCut) {
  v1::Job job;
  job.set_job_id("j1");
  job.add_command("sh");
  job.add_command("-c");
  job.add_command("train");
  job.add_command("WANDB_API_KEY=wandb-secret-value");
  const std::string summary = RequestSummary(job);
  EXPECT_THAT(summary, HasSubstr("j1"));
  EXPECT_THAT(summary, HasSubstr("WANDB_API_KEY=[redacted]"));
  EXPECT_THAT(summary, Not(HasSubstr("wandb-secret-value")));

  v1::RevokeTokenRequest revoke;
  revoke.set_token_id("tok-1");
  EXPECT_THAT(RequestSummary(revoke), HasSubstr("tok-1"));

  job.set_job_id(std::string(1000, 'x'));
  EXPECT_LE(RequestSummary(job, 100).size(), 103u);
}

TEST(SecretRedactionTest, SummaryHidesTheValueAfterASecretFlagInACommandLine) {
  v1::Job job;
  job.set_job_id("j1");
  for (const char* argument : {"python", "train.py", "--api-key", "sk-live-1", "--password",
                               "hunter2", "--token", "tok-3", "--lr", "0.1"}) {
    job.add_command(argument);
  }
  job.mutable_training_input()->add_args("--db-password");
  job.mutable_training_input()->add_args("pw-4");
  const std::string summary = RequestSummary(job);
  for (const char* secret : {"sk-live-1", "hunter2", "tok-3", "pw-4"}) {
    EXPECT_THAT(summary, Not(HasSubstr(secret))) << summary;
  }
  EXPECT_THAT(summary, HasSubstr(R"(command: "--api-key" command: "[redacted]")"));
  EXPECT_THAT(summary, HasSubstr(R"(command: "--token" command: "[redacted]")"));
  EXPECT_THAT(summary, HasSubstr(R"(command: "--lr" command: "0.1")"));
  EXPECT_THAT(summary, HasSubstr(R"(args: "--db-password" args: "[redacted]")"));
}

}  // namespace
}  // namespace vernier::auth
