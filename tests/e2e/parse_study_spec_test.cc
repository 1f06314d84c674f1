// StudyService.ParseStudySpec against a real `vernier serve`: the server
// reads a spec as `vernier jobs submit --config` reads the same file, and
// answers the StudySpec CreateStudy stores for it, or INVALID_ARGUMENT with
// the CLI's very message.
#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <string>
#include <utility>

#include "google/protobuf/util/message_differencer.h"
#include "tests/support/job_client.h"
#include "tests/support/server_process.h"
#include "tests/support/subprocess.h"

namespace vernier::testing {
namespace {

using ::testing::HasSubstr;

class ParseStudySpecTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Start();
    stub_ = server_.StudyStub();
  }

  grpc::Status Parse(const std::string& text, v1::SpecFormat format, const std::string& file_name,
                     v1::ParseStudySpecResponse* response) {
    grpc::ClientContext context;
    context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
    v1::ParseStudySpecRequest request;
    request.set_text(text);
    request.set_format(format);
    request.set_file_name(file_name);
    return stub_->ParseStudySpec(&context, request, response);
  }

  // What `vernier jobs submit --config PATH` prints on its standard error.
  std::string SubmitError(const std::string& path) {
    const CommandResult run =
        RunCommand(Submit(server_, "parse_check", path, dir_.path() + "/job", {"true"}));
    EXPECT_NE(run.exit_code, 0) << run.out;
    return run.err;
  }

  TempDir dir_;
  ServerProcess server_{dir_.path() + "/data"};
  std::unique_ptr<v1::StudyService::Stub> stub_;
};

TEST_F(ParseStudySpecTest, ErrorsAreTheClisWithFileLineAndField) {
  const struct {
    const char* name;
    const char* text;
    const char* message;
  } cases[] = {
      {"syntax.yaml", "trainingInput:\n  hyperparameters: [a, b\n", nullptr},
      {"unknown_key.yaml", "trainingInput:\n  hyperparameters:\n    maxTrails: 3\n",
       ":3:5: trainingInput.hyperparameters.maxTrails: unknown key \"maxTrails\"; did you mean "
       "\"maxTrials\"?"},
      {"wrong_type.yaml", "trainingInput:\n  hyperparameters:\n    maxTrials: ten\n",
       ":3:16: trainingInput.hyperparameters.maxTrials: expected an integer, got \"ten\""},
  };
  for (const auto& each : cases) {
    SCOPED_TRACE(each.name);
    const std::string path = dir_.path() + "/" + each.name;
    WriteFile(path, each.text);
    v1::ParseStudySpecResponse response;
    const grpc::Status status = Parse(each.text, v1::SPEC_FORMAT_UNSPECIFIED, path, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_THAT(status.error_message(), ::testing::StartsWith(path + ":"));
    if (each.message != nullptr) {
      EXPECT_EQ(status.error_message(), path + each.message);
    }
    EXPECT_THAT(status.error_message(), ::testing::Not(HasSubstr("\n")));
    // The CLI reads the same file with the same code and says the same.
    EXPECT_THAT(SubmitError(path), HasSubstr(status.error_message()));
  }
}

TEST_F(ParseStudySpecTest, EmptyTextIsInvalidArgument) {
  v1::ParseStudySpecResponse response;
  const grpc::Status status = Parse("", v1::SPEC_FORMAT_UNSPECIFIED, "", &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(),
            "<spec>:1:1: the document is empty; expected a hyperparameters mapping");
}

TEST_F(ParseStudySpecTest, UnknownFormatIsInvalidArgument) {
  v1::ParseStudySpecResponse response;
  const grpc::Status status = Parse("{}", static_cast<v1::SpecFormat>(9), "spec.json", &response);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(status.error_message(), ::testing::StartsWith("format: unknown spec format 9"));
}

TEST_F(ParseStudySpecTest, JsonFormatIsToldByTheFileNameOrGiven) {
  const std::string text = "maxTrials: 3\nparams: []\n";
  v1::ParseStudySpecResponse response;
  for (const auto& [format, name] : {std::pair{v1::SPEC_FORMAT_UNSPECIFIED, "spec.json"},
                                     std::pair{v1::SPEC_FORMAT_JSON, "spec.yaml"}}) {
    const grpc::Status status = Parse(text, format, name, &response);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
    EXPECT_EQ(status.error_message(),
              std::string(name) + ":1:1: expected a JSON object, starting with \"{\"");
  }
}

TEST_F(ParseStudySpecTest, TheAnswerIsWhatCreateStudyStores) {
  const std::string text =
      "goal: MINIMIZE\n"
      "hyperparameterMetricTag: loss\n"
      "maxTrials: 8\n"
      "enableTrialEarlyStopping: true\n"
      "earlyStopping: {policy: ASHA, gracePeriod: 2, reductionFactor: 2, maxStep: 16}\n"
      "params:\n"
      "  - {parameterName: x, type: INTEGER, minValue: 0, maxValue: 9}\n";
  v1::ParseStudySpecResponse response;
  const grpc::Status parsed = Parse(text, v1::SPEC_FORMAT_YAML, "asha.yaml", &response);
  ASSERT_TRUE(parsed.ok()) << parsed.error_message();
  EXPECT_EQ(response.spec().early_stopping().grace_period(), 2);
  EXPECT_EQ(response.spec().max_failed_trials(), 4);

  v1::Study study;
  study.set_name("from_yaml");
  *study.mutable_spec() = response.spec();
  study.mutable_spec()->set_seed(11);
  grpc::ClientContext context;
  v1::CreateStudyRequest request;
  *request.mutable_study() = study;
  v1::Study created;
  const grpc::Status status = stub_->CreateStudy(&context, request, &created);
  ASSERT_TRUE(status.ok()) << status.error_message();
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(created.spec(), study.spec()))
      << created.spec().DebugString();
}

}  // namespace
}  // namespace vernier::testing
