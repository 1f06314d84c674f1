#include "tuner/storage/page_token.h"

#include <cstdint>
#include <limits>
#include <string>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/tuner/storage/storage_test_matchers.h"

namespace vernier::storage::testing {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;

TEST(PageTokenTest, StudyTokensRoundTripAnyName) {
  for (const std::string name : {"a", "study-1", "with:colon and space", "ünïcode"}) {
    absl::StatusOr<std::string> decoded = DecodeStudyPageToken(EncodeStudyPageToken(name));
    ASSERT_THAT(decoded, IsOk());
    EXPECT_EQ(*decoded, name);
  }
}

TEST(PageTokenTest, TrialTokensRoundTrip) {
  for (const int64_t id :
       {int64_t{0}, int64_t{1}, int64_t{12345}, std::numeric_limits<int64_t>::max()}) {
    absl::StatusOr<int64_t> decoded = DecodeTrialPageToken(EncodeTrialPageToken(id));
    ASSERT_THAT(decoded, IsOk());
    EXPECT_EQ(*decoded, id);
  }
}

TEST(PageTokenTest, JobTokensRoundTripIdsWithColons) {
  const JobPageCursor cursor{.create_time_micros = -5, .job_id = "job:with:colons"};
  absl::StatusOr<JobPageCursor> decoded = DecodeJobPageToken(EncodeJobPageToken(cursor));
  ASSERT_THAT(decoded, IsOk());
  EXPECT_EQ(decoded->create_time_micros, -5);
  EXPECT_EQ(decoded->job_id, "job:with:colons");
}

TEST(PageTokenTest, TokensAreUrlSafe) {
  const std::string token = EncodeStudyPageToken("?>?>~~~>>>");
  EXPECT_EQ(token.find_first_of("+/="), std::string::npos) << token;
}

TEST(PageTokenTest, GarbageIsInvalidArgumentQuotingTheToken) {
  EXPECT_THAT(DecodeTrialPageToken("***"),
              StatusIs(absl::StatusCode::kInvalidArgument,
                       AllOf(HasSubstr("page_token \"***\""), HasSubstr("trial listing"))));
  EXPECT_THAT(DecodeStudyPageToken("***"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("study listing")));
  EXPECT_THAT(DecodeJobPageToken("***"),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("job listing")));
}

TEST(PageTokenTest, LongGarbageIsShortenedInTheMessage) {
  const std::string token(500, 'A');
  absl::StatusOr<int64_t> decoded = DecodeTrialPageToken(token);
  EXPECT_THAT(decoded, StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("AAA...\"")));
  EXPECT_LT(decoded.status().message().size(), 300u);
}

TEST(PageTokenTest, TokenOfAnotherListingIsRejected) {
  EXPECT_THAT(DecodeTrialPageToken(EncodeStudyPageToken("s1")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("trial listing")));
  EXPECT_THAT(DecodeStudyPageToken(EncodeTrialPageToken(3)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("study listing")));
  EXPECT_THAT(DecodeJobPageToken(EncodeTrialPageToken(3)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("job listing")));
}

TEST(PageTokenTest, WellFormedBase64WithBadContentIsRejected) {
  // Right tags, wrong payloads: not a number, a negative id, no job id, no
  // study name.
  EXPECT_THAT(DecodeTrialPageToken(absl::WebSafeBase64Escape("trial:abc")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("trial listing")));
  EXPECT_THAT(DecodeJobPageToken(absl::WebSafeBase64Escape("job:soon:job_1")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("job listing")));
  EXPECT_THAT(DecodeTrialPageToken(EncodeTrialPageToken(-4)),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("trial listing")));
  EXPECT_THAT(
      DecodeJobPageToken(EncodeJobPageToken(JobPageCursor{.create_time_micros = 7, .job_id = ""})),
      StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("job listing")));
  EXPECT_THAT(DecodeStudyPageToken(EncodeStudyPageToken("")),
              StatusIs(absl::StatusCode::kInvalidArgument, HasSubstr("study listing")));
}

}  // namespace
}  // namespace vernier::storage::testing
