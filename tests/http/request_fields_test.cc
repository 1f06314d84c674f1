#include "http/request_fields.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "vernier/v1/study_service.pb.h"

namespace vernier::http {
namespace {

TEST(RequestFieldsTest, SetsFieldsByProtoOrJsonNameAndType) {
  v1::ListTrialsRequest request;
  ASSERT_TRUE(SetFieldFromText("study_name", "s", request).ok());
  ASSERT_TRUE(SetFieldFromText("pageSize", "25", request).ok());
  ASSERT_TRUE(SetFieldFromText("page_token", "abc", request).ok());
  ASSERT_TRUE(SetFieldFromText("includeMeasurements", "true", request).ok());
  ASSERT_TRUE(SetFieldFromText("states", "SUCCEEDED", request).ok());
  ASSERT_TRUE(SetFieldFromText("states", "5", request).ok());
  EXPECT_EQ(request.study_name(), "s");
  EXPECT_EQ(request.page_size(), 25);
  EXPECT_EQ(request.page_token(), "abc");
  EXPECT_TRUE(request.include_measurements());
  ASSERT_EQ(request.states_size(), 2);
  EXPECT_EQ(request.states(0), v1::Trial::SUCCEEDED);
  EXPECT_EQ(request.states(1), v1::Trial::FAILED);

  v1::GetTrialRequest trial;
  ASSERT_TRUE(SetFieldFromText("trialId", "9000000000", trial).ok());
  EXPECT_EQ(trial.trial_id(), 9000000000);
}

TEST(RequestFieldsTest, TextNotOfTheFieldsTypeNamesTheParameter) {
  v1::ListTrialsRequest request;
  request.set_page_size(3);
  EXPECT_EQ(SetFieldFromText("pageSize", "x", request),
            absl::InvalidArgumentError("query parameter \"pageSize\": \"x\" is not an integer"));
  EXPECT_EQ(SetFieldFromText("pageSize", "99999999999", request).code(),
            absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(SetFieldFromText("includeMeasurements", "yes", request),
            absl::InvalidArgumentError(
                "query parameter \"includeMeasurements\": \"yes\" is not true or false"));
  EXPECT_EQ(SetFieldFromText("states", "DONE", request),
            absl::InvalidArgumentError(
                "query parameter \"states\": \"DONE\" is not a value of State"));
  EXPECT_EQ(SetFieldFromText("colour", "red", request),
            absl::InvalidArgumentError("unknown query parameter \"colour\""));
  // The message keeps what it had.
  EXPECT_EQ(request.page_size(), 3);
  EXPECT_EQ(request.states_size(), 0);
}

TEST(RequestFieldsTest, MessageFieldsAreNotQueryParameters) {
  v1::CreateStudyRequest request;
  EXPECT_EQ(SetFieldFromText("study", "x", request),
            absl::InvalidArgumentError("unknown query parameter \"study\""));
}

}  // namespace
}  // namespace vernier::http
