// Issue 19 part 6: every RPC of every service, called as no token, a bad
// token, each role, the owner and a non-owner, and an agent credential,
// answers UNAUTHENTICATED, PERMISSION_DENIED or passes the gate as the rules
// say. The expectations below are written from docs/security.md, apart
// from the server's permission table, so that the two check each other.

#include <gmock/gmock.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <filesystem>
#include <fstream>
#include <future>
#include <map>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "google/protobuf/descriptor.h"
#include "google/protobuf/message.h"
#include "tests/support/server_process.h"
#include "tests/support/subprocess.h"
#include "tests/support/tuning_job.h"
#include "vernier/v1/agent_service.pb.h"
#include "vernier/v1/audit_service.pb.h"
#include "vernier/v1/auth_service.grpc.pb.h"
#include "vernier/v1/job_service.grpc.pb.h"
#include "vernier/v1/study_service.pb.h"

namespace vernier::testing {
namespace {

using google::protobuf::FieldDescriptor;
using google::protobuf::Message;
using google::protobuf::MethodDescriptor;
using ::testing::HasSubstr;

enum class Rule { kRead, kCreate, kChange, kOwnerOnly, kAdmin, kAgent };

// What each method takes, from docs/security.md.
const std::map<std::string, Rule>& Rules() {
  static const auto* rules = new std::map<std::string, Rule>{
      {"/vernier.v1.AuthService/CreateToken", Rule::kAdmin},
      {"/vernier.v1.AuthService/ListTokens", Rule::kAdmin},
      {"/vernier.v1.AuthService/RevokeToken", Rule::kAdmin},
      {"/vernier.v1.AuthService/ShareStudy", Rule::kOwnerOnly},
      {"/vernier.v1.AuthService/ShareJob", Rule::kOwnerOnly},
      {"/vernier.v1.AuthService/WhoAmI", Rule::kRead},
      {"/vernier.v1.StudyService/CreateStudy", Rule::kCreate},
      {"/vernier.v1.StudyService/GetStudy", Rule::kRead},
      {"/vernier.v1.StudyService/ListStudies", Rule::kRead},
      {"/vernier.v1.StudyService/DeleteStudy", Rule::kChange},
      {"/vernier.v1.StudyService/SuggestTrials", Rule::kChange},
      {"/vernier.v1.StudyService/CreateTrial", Rule::kChange},
      {"/vernier.v1.StudyService/GetTrial", Rule::kRead},
      {"/vernier.v1.StudyService/ListTrials", Rule::kRead},
      {"/vernier.v1.StudyService/AddMeasurement", Rule::kChange},
      {"/vernier.v1.StudyService/CompleteTrial", Rule::kChange},
      {"/vernier.v1.StudyService/StopTrial", Rule::kChange},
      {"/vernier.v1.StudyService/CheckEarlyStopping", Rule::kChange},
      {"/vernier.v1.StudyService/ListOptimalTrials", Rule::kRead},
      {"/vernier.v1.StudyService/ParseStudySpec", Rule::kRead},
      {"/vernier.v1.StudyService/SetStudyUserAttributes", Rule::kChange},
      {"/vernier.v1.StudyService/SetTrialUserAttributes", Rule::kChange},
      {"/vernier.v1.JobService/SubmitTrainingJob", Rule::kCreate},
      {"/vernier.v1.JobService/GetJob", Rule::kRead},
      {"/vernier.v1.JobService/ListTrialRuns", Rule::kRead},
      {"/vernier.v1.JobService/ListJobs", Rule::kRead},
      {"/vernier.v1.JobService/CancelJob", Rule::kChange},
      {"/vernier.v1.JobService/StreamLogs", Rule::kRead},
      // The job runs: an allowed caller gets FAILED_PRECONDITION.
      {"/vernier.v1.JobService/DeleteJob", Rule::kChange},
      {"/vernier.v1.AgentService/ReportMeasurements", Rule::kAgent},
      {"/vernier.v1.AgentService/ReportExit", Rule::kAgent},
      {"/vernier.v1.AgentService/Heartbeat", Rule::kAgent},
      {"/vernier.v1.AuditService/ListAuditEntries", Rule::kAdmin},
      {"/vernier.v1.AuditService/VerifyAuditLog", Rule::kAdmin},
  };
  return *rules;
}

enum class Caller { kNoToken, kBadToken, kViewer, kOwner, kOtherDeveloper, kAdmin, kAgent };
enum class Outcome { kUnauthenticated, kDenied, kAllowed };

const char* CallerName(Caller caller) {
  switch (caller) {
    case Caller::kNoToken: return "no token";
    case Caller::kBadToken: return "bad token";
    case Caller::kViewer: return "viewer";
    case Caller::kOwner: return "owner (developer)";
    case Caller::kOtherDeveloper: return "non-owner developer";
    case Caller::kAdmin: return "admin";
    case Caller::kAgent: return "agent";
  }
  return "?";
}

Outcome Expected(Rule rule, Caller caller) {
  if (caller == Caller::kNoToken || caller == Caller::kBadToken) return Outcome::kUnauthenticated;
  if (rule == Rule::kAgent) return caller == Caller::kAgent ? Outcome::kAllowed : Outcome::kDenied;
  if (caller == Caller::kAgent) return Outcome::kDenied;
  switch (rule) {
    case Rule::kRead:
      return Outcome::kAllowed;
    case Rule::kCreate:
      return caller == Caller::kViewer ? Outcome::kDenied : Outcome::kAllowed;
    case Rule::kChange:
    case Rule::kOwnerOnly:
      return caller == Caller::kOwner || caller == Caller::kAdmin ? Outcome::kAllowed
                                                                  : Outcome::kDenied;
    case Rule::kAdmin:
      return caller == Caller::kAdmin ? Outcome::kAllowed : Outcome::kDenied;
    case Rule::kAgent:
      break;
  }
  return Outcome::kDenied;
}

std::string ReadToken(const std::string& path) {
  std::ifstream in(path);
  std::stringstream text;
  text << in.rdbuf();
  std::string token = text.str();
  while (!token.empty() && (token.back() == '\n' || token.back() == ' ')) token.pop_back();
  return token;
}

class AuthorizationMatrixTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Start();
    channel_ = grpc::CreateChannel(server_.address(), grpc::InsecureChannelCredentials());
    admin_ = ReadToken(dir_.path() + "/data/admin.token");
    ASSERT_FALSE(admin_.empty());
    viewer_ = CreateToken("vic", v1::VIEWER);
    owner_ = CreateToken("dora", v1::DEVELOPER);
    other_ = CreateToken("dan", v1::DEVELOPER);

    // dora's job, whose trial runs (sleeps) so its agent holds a credential.
    v1::SubmitTrainingJobRequest submit;
    *submit.mutable_job() = TuningJob(kJob, dir_.path() + "/jobs", 1, 1);
    submit.mutable_job()->clear_command();
    // The trial's flags go to sh as $0, $1, ...
    for (const char* part : {"/bin/sh", "-c", "sleep 300"}) submit.mutable_job()->add_command(part);
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + owner_);
    v1::Job job;
    const grpc::Status submitted =
        v1::JobService::NewStub(channel_)->SubmitTrainingJob(&context, submit, &job);
    ASSERT_TRUE(submitted.ok()) << submitted.error_message();
    EXPECT_EQ(job.owner(), "dora");
    const std::string agent_file = dir_.path() + "/jobs/" + kJob + "/1/.agent-token-0";
    const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
    while (!std::filesystem::exists(agent_file) && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    ASSERT_TRUE(std::filesystem::exists(agent_file)) << server_.log();
    EXPECT_EQ(std::filesystem::status(agent_file).permissions() & std::filesystem::perms::all,
              std::filesystem::perms::owner_read | std::filesystem::perms::owner_write);
    agent_ = ReadToken(agent_file);
  }

  std::string CreateToken(const std::string& user, v1::Role role) {
    grpc::ClientContext context;
    context.AddMetadata("authorization", "Bearer " + admin_);
    v1::CreateTokenRequest request;
    request.set_user(user);
    request.set_role(role);
    v1::CreateTokenResponse response;
    const grpc::Status status =
        v1::AuthService::NewStub(channel_)->CreateToken(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return response.token();
  }

  std::string TokenOf(Caller caller) const {
    switch (caller) {
      case Caller::kNoToken: return "";
      case Caller::kBadToken: return "vnr_" + std::string(64, '0');
      case Caller::kViewer: return viewer_;
      case Caller::kOwner: return owner_;
      case Caller::kOtherDeveloper: return other_;
      case Caller::kAdmin: return admin_;
      case Caller::kAgent: return agent_;
    }
    return "";
  }

  // A request naming dora's job (or its study, or its trial 1's attempt 0)
  // wherever it names a resource, harmless where the gate lets it through:
  // no user for tokens and shares, an empty job, a token id that is not one.
  static std::unique_ptr<Message> RequestFor(const MethodDescriptor& method, Caller caller) {
    std::unique_ptr<Message> request(
        google::protobuf::MessageFactory::generated_factory()->GetPrototype(method.input_type())->New());
    const auto* descriptor = request->GetDescriptor();
    const auto* reflection = request->GetReflection();
    for (const char* name : {"study_name", "job_id", "name"}) {
      if (const FieldDescriptor* field = descriptor->FindFieldByName(name);
          field != nullptr && field->type() == FieldDescriptor::TYPE_STRING) {
        reflection->SetString(request.get(), field, kJob);
      }
    }
    if (const FieldDescriptor* field = descriptor->FindFieldByName("trial_id");
        field != nullptr && field->cpp_type() == FieldDescriptor::CPPTYPE_INT64) {
      // A trial that is not there: trial 1 runs the agent, and a change to
      // it would end its attempt.
      reflection->SetInt64(request.get(), field, 999);
    }
    if (const FieldDescriptor* field = descriptor->FindFieldByName("token_id"); field != nullptr) {
      reflection->SetString(request.get(), field, "not-a-token");
    }
    if (const FieldDescriptor* field = descriptor->FindFieldByName("study");
        field != nullptr && field->cpp_type() == FieldDescriptor::CPPTYPE_MESSAGE) {
      // A new study per caller, invalid (no spec): refused after the gate.
      Message* study = reflection->MutableMessage(request.get(), field);
      study->GetReflection()->SetString(study, study->GetDescriptor()->FindFieldByName("name"),
                                        std::string("m_") + std::to_string(static_cast<int>(caller)));
    }
    if (const FieldDescriptor* field = descriptor->FindFieldByName("replica"); field != nullptr) {
      v1::ReplicaId replica;
      replica.set_study_name(kJob);
      replica.set_trial_id(1);
      replica.set_role("master");
      replica.set_index(0);
      replica.set_attempt(0);
      reflection->MutableMessage(request.get(), field)->CopyFrom(replica);
    }
    return request;
  }

  grpc::Status Call(const std::string& method, const Message& request, const std::string& token) {
    grpc::GenericStub stub(channel_);
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(30));
    if (!token.empty()) context.AddMetadata("authorization", "Bearer " + token);
    const std::string bytes = request.SerializeAsString();
    grpc::Slice slice(bytes);
    grpc::ByteBuffer buffer(&slice, 1);
    grpc::ByteBuffer response;
    std::promise<grpc::Status> done;
    stub.UnaryCall(&context, method, grpc::StubOptions(), &buffer, &response,
                   [&done](grpc::Status status) { done.set_value(std::move(status)); });
    return done.get_future().get();
  }

  static constexpr char kJob[] = "authz_job";
  TempDir dir_;
  ServerProcess server_{dir_.path() + "/data"};
  std::shared_ptr<grpc::Channel> channel_;
  std::string admin_, viewer_, owner_, other_, agent_;
};

TEST_F(AuthorizationMatrixTest, EveryRpcAsEveryCallerMeetsTheRules) {
  std::vector<const MethodDescriptor*> methods;
  for (const google::protobuf::FileDescriptor* file :
       {v1::CreateTokenRequest::descriptor()->file(), v1::GetStudyRequest::descriptor()->file(),
        v1::GetJobRequest::descriptor()->file(), v1::HeartbeatRequest::descriptor()->file(),
        v1::ListAuditEntriesRequest::descriptor()->file()}) {
    for (int s = 0; s < file->service_count(); ++s) {
      for (int m = 0; m < file->service(s)->method_count(); ++m) {
        methods.push_back(file->service(s)->method(m));
      }
    }
  }
  // The agent's exit report and the cancel end the trial (and so the
  // agent's credential): last.
  const auto rank = [](const MethodDescriptor* method) {
    return method->name() == "ReportExit" ? 1 : method->name() == "CancelJob" ? 2 : 0;
  };
  std::stable_sort(methods.begin(), methods.end(),
                   [&](const MethodDescriptor* a, const MethodDescriptor* b) {
                     return rank(a) < rank(b);
                   });
  int calls = 0;
  for (const MethodDescriptor* method : methods) {
    const std::string path = "/" + method->service()->full_name() + "/" + method->name();
    const auto rule = Rules().find(path);
    ASSERT_NE(rule, Rules().end()) << path << " has no expectation in this test";
    for (Caller caller : {Caller::kNoToken, Caller::kBadToken, Caller::kViewer,
                          Caller::kOtherDeveloper, Caller::kOwner, Caller::kAdmin,
                          Caller::kAgent}) {
      const std::unique_ptr<Message> request = RequestFor(*method, caller);
      const grpc::Status status = Call(path, *request, TokenOf(caller));
      ++calls;
      const std::string where = path + " as " + CallerName(caller) + ": " +
                                std::to_string(status.error_code()) + " " + status.error_message();
      Outcome expected = Expected(rule->second, caller);
      // The agent's exit report settled its trial: from then on its
      // credential is dead (issue 35), before the server deletes it.
      if (caller == Caller::kAgent && rank(method) == 2) expected = Outcome::kUnauthenticated;
      switch (expected) {
        case Outcome::kUnauthenticated:
          EXPECT_EQ(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << where;
          EXPECT_THAT(status.error_message(), HasSubstr(path)) << where;
          break;
        case Outcome::kDenied:
          EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED) << where;
          EXPECT_THAT(status.error_message(), HasSubstr(path)) << where;
          break;
        case Outcome::kAllowed:
          EXPECT_NE(status.error_code(), grpc::StatusCode::UNAUTHENTICATED) << where;
          EXPECT_NE(status.error_code(), grpc::StatusCode::PERMISSION_DENIED) << where;
          break;
      }
    }
  }
  EXPECT_EQ(calls, static_cast<int>(Rules().size()) * 7);

  // No token used here reaches a log: the server's, or any replica's.
  std::vector<std::string> logs = {server_.log()};
  for (const auto& entry : std::filesystem::recursive_directory_iterator(dir_.path() + "/jobs")) {
    if (entry.path().extension() == ".log") logs.push_back(ReadFile(entry.path().string()));
  }
  for (const std::string& log : logs) {
    for (Caller caller : {Caller::kBadToken, Caller::kViewer, Caller::kOwner,
                          Caller::kOtherDeveloper, Caller::kAdmin, Caller::kAgent}) {
      EXPECT_THAT(log, ::testing::Not(HasSubstr(TokenOf(caller)))) << CallerName(caller);
    }
  }
}

TEST_F(AuthorizationMatrixTest, AnAgentCredentialReportsForItsOwnAttemptOnly) {
  v1::HeartbeatRequest heartbeat;
  heartbeat.mutable_replica()->set_study_name(kJob);
  heartbeat.mutable_replica()->set_trial_id(1);
  heartbeat.mutable_replica()->set_role("master");
  EXPECT_TRUE(Call("/vernier.v1.AgentService/Heartbeat", heartbeat, agent_).ok());
  for (auto change : std::vector<std::function<void(v1::ReplicaId&)>>{
           [](v1::ReplicaId& r) { r.set_attempt(1); }, [](v1::ReplicaId& r) { r.set_trial_id(2); },
           [](v1::ReplicaId& r) { r.set_study_name("other"); }}) {
    v1::HeartbeatRequest other = heartbeat;
    change(*other.mutable_replica());
    const grpc::Status status = Call("/vernier.v1.AgentService/Heartbeat", other, agent_);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::PERMISSION_DENIED) << other.ShortDebugString();
    EXPECT_THAT(status.error_message(), HasSubstr("this agent credential is for trial 1 of study"));
  }
  // Once the attempt ends (the job cancelled), the credential is dead.
  v1::CancelJobRequest cancel;
  cancel.set_job_id(kJob);
  ASSERT_TRUE(Call("/vernier.v1.JobService/CancelJob", cancel, owner_).ok());
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(120);
  grpc::Status after;
  do {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
    after = Call("/vernier.v1.AgentService/Heartbeat", heartbeat, agent_);
  } while (after.error_code() != grpc::StatusCode::UNAUTHENTICATED &&
           std::chrono::steady_clock::now() < deadline);
  EXPECT_EQ(after.error_code(), grpc::StatusCode::UNAUTHENTICATED) << after.error_message();
  // The credential's file goes once the attempt's replicas are gone.
  const std::string file = dir_.path() + "/jobs/" + kJob + "/1/.agent-token-0";
  while (std::filesystem::exists(file) && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(200));
  }
  EXPECT_FALSE(std::filesystem::exists(file));
}

}  // namespace
}  // namespace vernier::testing
