// The StudyService over gRPC against a real `vernier serve`: what an ask/tell
// client sees of the default designer and of bad measurements.
#include <gmock/gmock.h>
#include <grpcpp/generic/generic_stub.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <future>
#include <limits>
#include <set>
#include <string>
#include <vector>

#include "tests/support/server_process.h"
#include "tests/support/subprocess.h"
#include "tests/support/token_channel.h"

namespace vernier::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

v1::Study LossStudy(const std::string& name) {
  v1::Study study;
  study.set_name(name);
  v1::ParameterSpec& x = *study.mutable_spec()->add_parameters();
  x.set_parameter_name("x");
  x.set_type(v1::ParameterSpec::DOUBLE);
  x.set_min_value(-2);
  x.set_max_value(2);
  v1::MetricSpec& loss = *study.mutable_spec()->add_metrics();
  loss.set_metric_id("loss");
  loss.set_goal(v1::MetricSpec::MINIMIZE);
  return study;
}

v1::Measurement Loss(double value) {
  v1::Measurement measurement;
  measurement.set_step(1);
  v1::Metric& metric = *measurement.add_metrics();
  metric.set_metric_id("loss");
  metric.set_value(value);
  return measurement;
}

class StudyServiceTest : public ::testing::Test {
 protected:
  void SetUp() override {
    server_.Start();
    stub_ = server_.StudyStub();
    grpc::ClientContext context;
    v1::CreateStudyRequest request;
    *request.mutable_study() = LossStudy("ask_tell");
    v1::Study created;
    ASSERT_TRUE(stub_->CreateStudy(&context, request, &created).ok());
  }

  std::vector<v1::Trial> Suggest(int count) {
    grpc::ClientContext context;
    v1::SuggestTrialsRequest request;
    request.set_study_name("ask_tell");
    request.set_count(count);
    v1::SuggestTrialsResponse response;
    const grpc::Status status = stub_->SuggestTrials(&context, request, &response);
    EXPECT_TRUE(status.ok()) << status.error_message();
    return {response.trials().begin(), response.trials().end()};
  }

  grpc::Status Complete(int64_t trial_id, double loss) {
    grpc::ClientContext context;
    v1::CompleteTrialRequest request;
    request.set_study_name("ask_tell");
    request.set_trial_id(trial_id);
    *request.mutable_final_measurement() = Loss(loss);
    v1::Trial trial;
    return stub_->CompleteTrial(&context, request, &trial);
  }

  TempDir dir_;
  ServerProcess server_{dir_.path() + "/data"};
  std::unique_ptr<v1::StudyService::Stub> stub_;
};

TEST_F(StudyServiceTest, OversizedFieldsAreRefusedNamingTheField) {
  struct Case {
    std::function<void(v1::Study&)> enlarge;
    std::string field;
  };
  const std::vector<Case> cases = {
      {[](v1::Study& study) { study.set_display_name(std::string(3 << 20, 'd')); },
       "study.display_name: is 3145728 bytes; at most 256"},
      {[](v1::Study& study) {
         study.mutable_spec()->mutable_metrics(0)->set_metric_id(std::string(300, 'm'));
       },
       "spec.metrics[0].metric_id: is 300 bytes; at most 256"},
      {[](v1::Study& study) {
         study.mutable_spec()->mutable_parameters(0)->set_parameter_name(std::string(300, 'p'));
       },
       "spec.parameters[0].parameter_name: is 300 bytes; at most 256"},
      {[](v1::Study& study) {
         for (int i = 0; i < 101; ++i) {
           v1::MetricSpec& metric = *study.mutable_spec()->add_metrics();
           metric.set_metric_id("m" + std::to_string(i));
           metric.set_goal(v1::MetricSpec::MAXIMIZE);
         }
       },
       "spec.metrics: has 102 metrics; at most 100"},
      {[](v1::Study& study) {
         // 5 parameters of 1,000 values of 250 bytes: within the per-value
         // limits, 1.25 MB together.
         for (int p = 0; p < 5; ++p) {
           v1::ParameterSpec& parameter = *study.mutable_spec()->add_parameters();
           parameter.set_parameter_name("c" + std::to_string(p));
           parameter.set_type(v1::ParameterSpec::CATEGORICAL);
           for (int i = 0; i < 1000; ++i) {
             parameter.add_categorical_values(std::to_string(i) + std::string(240, 'v'));
           }
         }
       },
       "spec.parameters: is "},
  };
  for (const Case& c : cases) {
    v1::CreateStudyRequest request;
    *request.mutable_study() = LossStudy("oversized");
    c.enlarge(*request.mutable_study());
    grpc::ClientContext context;
    v1::Study created;
    const grpc::Status status = stub_->CreateStudy(&context, request, &created);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << c.field;
    EXPECT_THAT(status.error_message(), HasSubstr(c.field));
    EXPECT_LT(status.error_message().size(), 1000u) << "the message repeats the value";
  }
}

// A study's answer is small (at most 1 MiB of spec), but a page of many is
// not: the server ends a list page before 3 MiB and the CLI follows every
// page, so `studies list` shows them all.
TEST_F(StudyServiceTest, StudiesListShowsEveryStudyWhenTheyPassOneAnswersSize) {
  constexpr int kStudies = 20;
  for (int s = 0; s < kStudies; ++s) {
    v1::CreateStudyRequest request;
    *request.mutable_study() = LossStudy("big_" + std::to_string(100 + s));
    v1::ParameterSpec& parameter = *request.mutable_study()->mutable_spec()->add_parameters();
    parameter.set_parameter_name("choice");
    parameter.set_type(v1::ParameterSpec::CATEGORICAL);
    for (int i = 0; i < 1000; ++i) {
      parameter.add_categorical_values(std::to_string(i) + std::string(240, 'v'));
    }
    grpc::ClientContext context;
    v1::Study created;
    const grpc::Status status = stub_->CreateStudy(&context, request, &created);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  const CommandResult list =
      RunCommand({BinaryPath("vernier"), "studies", "list", "--server", server_.address()});
  ASSERT_EQ(list.exit_code, 0) << list.err;
  for (int s = 0; s < kStudies; ++s) {
    EXPECT_THAT(list.out, HasSubstr("big_" + std::to_string(100 + s)));
  }
  EXPECT_THAT(list.out, HasSubstr("ask_tell"));
}

// ListTrials answers with the stored trials' bytes: the answer parses as a
// ListTrialsResponse, ends a page before 3 MiB however many trials were
// asked for, and its token resumes where the page ended.
TEST_F(StudyServiceTest, TrialsListEndsAPageBeforeThreeMiBAndItsTokenResumesIt) {
  // 60 parameters of 200-byte names and 250-byte values: about 27 kB a
  // trial, so 150 trials pass 3 MiB.
  constexpr int kTrials = 150;
  constexpr int kParameters = 60;
  const auto name_of = [](int p) { return "c" + std::to_string(p) + std::string(200, 'n'); };
  const auto value_of = [](int t) { return std::to_string(t % 2) + std::string(249, 'v'); };
  v1::CreateStudyRequest create;
  *create.mutable_study() = LossStudy("wide");
  for (int p = 0; p < kParameters; ++p) {
    v1::ParameterSpec& choice = *create.mutable_study()->mutable_spec()->add_parameters();
    choice.set_parameter_name(name_of(p));
    choice.set_type(v1::ParameterSpec::CATEGORICAL);
    choice.add_categorical_values(value_of(0));
    choice.add_categorical_values(value_of(1));
  }
  {
    grpc::ClientContext context;
    v1::Study created;
    const grpc::Status status = stub_->CreateStudy(&context, create, &created);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  for (int t = 0; t < kTrials; ++t) {
    grpc::ClientContext context;
    v1::CreateTrialRequest request;
    request.set_study_name("wide");
    v1::Trial& trial = *request.mutable_trial();
    v1::ParameterValue& x = *trial.add_parameters();
    x.set_parameter_name("x");
    x.set_double_value(0.001 * t);
    for (int p = 0; p < kParameters; ++p) {
      v1::ParameterValue& value = *trial.add_parameters();
      value.set_parameter_name(name_of(p));
      value.set_string_value(value_of(t + p));
    }
    v1::Trial created;
    const grpc::Status status = stub_->CreateTrial(&context, request, &created);
    ASSERT_TRUE(status.ok()) << status.error_message();
  }
  std::vector<int64_t> ids;
  std::string token;
  int pages = 0;
  do {
    grpc::ClientContext context;
    v1::ListTrialsRequest request;
    request.set_study_name("wide");
    request.set_page_token(token);
    v1::ListTrialsResponse response;
    const grpc::Status status = stub_->ListTrials(&context, request, &response);
    ASSERT_TRUE(status.ok()) << status.error_message();
    EXPECT_LE(response.ByteSizeLong(), 3u << 20);
    ASSERT_GT(response.trials_size(), 0);
    for (const v1::Trial& trial : response.trials()) {
      ids.push_back(trial.id());
      ASSERT_EQ(trial.parameters_size(), kParameters + 1);
      EXPECT_EQ(trial.parameters(kParameters).string_value(),
                value_of(trial.id() - 1 + kParameters - 1));
    }
    token = response.next_page_token();
    ++pages;
  } while (!token.empty() && pages < 10);
  EXPECT_EQ(pages, 2) << "150 trials of 27 kB come in two pages";
  ASSERT_EQ(ids.size(), static_cast<size_t>(kTrials));
  for (int t = 0; t < kTrials; ++t) EXPECT_EQ(ids[t], t + 1);
}

// The raw ListTrials handler reads its request itself: bytes that are no
// ListTrialsRequest are INVALID_ARGUMENT, a missing study is NOT_FOUND, and
// a negative page size INVALID_ARGUMENT.
TEST_F(StudyServiceTest, TrialsListRefusesARequestThatDoesNotParseAMissingStudyAndANegativePage) {
  grpc::GenericStub generic(
      ChannelWithLocalToken(server_.address(), grpc::InsecureChannelCredentials()));
  const std::string garbage = "\x0a\x64short";  // study_name claims 100 bytes
  grpc::Slice slice(garbage);
  const grpc::ByteBuffer request(&slice, 1);
  grpc::ByteBuffer response;
  grpc::ClientContext context;
  std::promise<grpc::Status> done;
  generic.UnaryCall(&context, "/vernier.v1.StudyService/ListTrials", grpc::StubOptions(), &request,
                    &response, [&done](grpc::Status status) { done.set_value(status); });
  const grpc::Status status = done.get_future().get();
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << status.error_message();
  EXPECT_THAT(status.error_message(), HasSubstr("vernier.v1.ListTrialsRequest"));

  grpc::ClientContext missing_context;
  v1::ListTrialsRequest missing;
  missing.set_study_name("nope");
  v1::ListTrialsResponse listed;
  const grpc::Status not_found = stub_->ListTrials(&missing_context, missing, &listed);
  EXPECT_EQ(not_found.error_code(), grpc::StatusCode::NOT_FOUND) << not_found.error_message();
  EXPECT_THAT(not_found.error_message(), HasSubstr("study \"nope\""));

  grpc::ClientContext negative_context;
  v1::ListTrialsRequest negative;
  negative.set_study_name("ask_tell");
  negative.set_page_size(-1);
  const grpc::Status refused = stub_->ListTrials(&negative_context, negative, &listed);
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << refused.error_message();
  EXPECT_THAT(refused.error_message(),
              HasSubstr("page_size is -1; it must be positive, or 0 for no limit"));
}

TEST_F(StudyServiceTest, NonFiniteMetricValuesAreInvalidArguments) {
  const int64_t id = Suggest(1).at(0).id();
  for (double bad :
       {std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity(),
        -std::numeric_limits<double>::infinity()}) {
    grpc::ClientContext context;
    v1::AddMeasurementRequest request;
    request.set_study_name("ask_tell");
    request.set_trial_id(id);
    *request.mutable_measurement() = Loss(bad);
    v1::Trial trial;
    const grpc::Status added = stub_->AddMeasurement(&context, request, &trial);
    EXPECT_EQ(added.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << bad;
    EXPECT_THAT(added.error_message(), HasSubstr("metric \"loss\""));
    EXPECT_THAT(added.error_message(), HasSubstr("values must be finite"));

    const grpc::Status completed = Complete(id, bad);
    EXPECT_EQ(completed.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << bad;
    EXPECT_THAT(completed.error_message(), HasSubstr("final measurement"));
  }
  // The trial is still running and takes a finite value.
  EXPECT_TRUE(Complete(id, 0.5).ok());
}

TEST_F(StudyServiceTest, TheDefaultDesignerHomesInOnTheOptimum) {
  // loss = (x - 0.7)^2: after a quasi-random start the Gaussian process
  // proposes points close to 0.7.
  std::set<double> seen;
  double best = INFINITY;
  for (int round = 0; round < 8; ++round) {
    for (const v1::Trial& trial : Suggest(2)) {
      const double x = trial.parameters(0).double_value();
      EXPECT_TRUE(seen.insert(x).second) << x;
      best = std::min(best, std::abs(x - 0.7));
      ASSERT_TRUE(Complete(trial.id(), (x - 0.7) * (x - 0.7)).ok());
    }
  }
  EXPECT_LT(best, 0.02);
  EXPECT_THAT(server_.log(), Not(HasSubstr("fell back")));
}

}  // namespace
}  // namespace vernier::testing
