#include "tuner/cli/fetch_all_pages.h"

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "vernier/v1/job_service.pb.h"

namespace vernier::cli {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

v1::ListJobsResponse Page(const std::string& job_id, const std::string& next_page_token) {
  v1::ListJobsResponse page;
  page.add_jobs()->set_job_id(job_id);
  page.set_next_page_token(next_page_token);
  return page;
}

TEST(FetchAllPagesTest, FollowsTokensToTheLastPage) {
  std::vector<std::string> asked;
  std::vector<std::string> taken;
  absl::Status status = FetchAllPages(
      "server:1",
      [&](const std::string& token) -> absl::StatusOr<v1::ListJobsResponse> {
        asked.push_back(token);
        if (token.empty()) return Page("a", "t1");
        if (token == "t1") return Page("b", "t2");
        return Page("c", "");
      },
      [&](v1::ListJobsResponse& page) { taken.push_back(page.jobs(0).job_id()); });
  ASSERT_TRUE(status.ok()) << status;
  EXPECT_THAT(asked, ElementsAre("", "t1", "t2"));
  EXPECT_THAT(taken, ElementsAre("a", "b", "c"));
}

TEST(FetchAllPagesTest, PassesTheFetchErrorOn) {
  absl::Status status = FetchAllPages(
      "server:1",
      [](const std::string&) -> absl::StatusOr<v1::ListJobsResponse> {
        return absl::UnavailableError("down");
      },
      [](v1::ListJobsResponse&) { FAIL() << "nothing to take"; });
  EXPECT_EQ(status, absl::UnavailableError("down"));
}

TEST(FetchAllPagesTest, ARepeatedTokenIsAnInternalErrorNamingTheServer) {
  int calls = 0;
  absl::Status status = FetchAllPages(
      "server:1",
      [&](const std::string& token) -> absl::StatusOr<v1::ListJobsResponse> {
        ++calls;
        return Page("a", token.empty() ? "t1" : token);
      },
      [](v1::ListJobsResponse&) {});
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal);
  EXPECT_THAT(status.message(),
              HasSubstr("the server at server:1 returned the same page token \"t1\" twice"));
  EXPECT_EQ(calls, 2);
}

}  // namespace
}  // namespace vernier::cli
