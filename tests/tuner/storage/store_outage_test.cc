#include "tuner/storage/store_outage.h"

#include <algorithm>
#include <string>

#include "absl/status/status.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/log_capture.h"
#include "tuner/storage/transient_error.h"
#include "vernier/grpc_status.h"

namespace vernier::storage {
namespace {

using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

const absl::Time kStart = absl::FromUnixSeconds(1'800'000'000);

absl::Status Lost() {
  return MarkTransient(absl::UnavailableError("lost the connection to the server"));
}

TEST(StoreOutageTest, LogsAnOutageOnceAtItsStartAndOnceAtItsEnd) {
  vernier::testing::LogCapture log;
  StoreOutage outage("PostgreSQL store db");
  EXPECT_FALSE(outage.Since().has_value());
  outage.Observe(Lost(), /*write=*/true, kStart);
  for (int i = 1; i <= 50; ++i) outage.Observe(Lost(), /*write=*/false, kStart + absl::Seconds(i));
  ASSERT_TRUE(outage.Since().has_value());
  EXPECT_EQ(*outage.Since(), kStart);
  EXPECT_EQ(outage.LastEnded(), absl::InfinitePast());
  outage.Observe(absl::OkStatus(), /*write=*/true, kStart + absl::Seconds(30));
  EXPECT_FALSE(outage.Since().has_value());
  EXPECT_EQ(outage.LastEnded(), kStart + absl::Seconds(30));
  const std::string text = log.Text();
  EXPECT_THAT(text, AllOf(HasSubstr("PostgreSQL store db is unavailable since"),
                          HasSubstr("lost the connection to the server"),
                          HasSubstr("PostgreSQL store db is back after 30s (51 calls failed")));
  // One line at each end, none per failed call.
  EXPECT_EQ(std::count(text.begin(), text.end(), '\n'), 2) << text;
}

TEST(StoreOutageTest, PermanentErrorsAndCallersOwnStatusesStartNoOutage) {
  vernier::testing::LogCapture log;
  StoreOutage outage("SQLite store /d/vernier.db");
  outage.Observe(absl::InternalError("no such table: trials"), true, kStart);
  outage.Observe(absl::UnavailableError("the caller's own, not the store's"), true, kStart);
  outage.Observe(absl::OkStatus(), true, kStart);
  EXPECT_FALSE(outage.Since().has_value());
  EXPECT_EQ(outage.LastEnded(), absl::InfinitePast());
  EXPECT_EQ(log.Text(), "");
}

TEST(StoreOutageTest, AnOutageOfWritesEndsOnlyWithAWrite) {
  // A full disk: reads pass while writes fail.
  StoreOutage outage("SQLite store /d/vernier.db");
  outage.Observe(MarkTransient(absl::ResourceExhaustedError("database or disk is full")),
                 /*write=*/true, kStart);
  outage.Observe(absl::OkStatus(), /*write=*/false, kStart + absl::Seconds(1));
  ASSERT_TRUE(outage.Since().has_value());
  outage.Observe(absl::OkStatus(), /*write=*/true, kStart + absl::Seconds(2));
  EXPECT_FALSE(outage.Since().has_value());
}

TEST(StoreOutageTest, AnOutageOfReadsEndsWithAnyCallThatPasses) {
  StoreOutage outage("PostgreSQL store db");
  outage.Observe(Lost(), /*write=*/false, kStart);
  outage.Observe(absl::OkStatus(), /*write=*/false, kStart + absl::Seconds(3));
  EXPECT_FALSE(outage.Since().has_value());
  // The next one starts afresh.
  vernier::testing::LogCapture log;
  outage.Observe(Lost(), /*write=*/false, kStart + absl::Seconds(9));
  EXPECT_EQ(*outage.Since(), kStart + absl::Seconds(9));
  EXPECT_THAT(log.Text(), Not(HasSubstr("back after")));
}

TEST(TransientErrorTest, OnlyMarkedErrorsAreTransient) {
  EXPECT_TRUE(IsTransientStoreError(Lost()));
  EXPECT_FALSE(IsTransientStoreError(absl::UnavailableError("unmarked")));
  EXPECT_FALSE(IsTransientStoreError(MarkTransient(absl::OkStatus())));
  EXPECT_TRUE(MarkTransient(absl::OkStatus()).ok());
}

TEST(TransientErrorTest, ClientsGetUnavailableForAnyTransientError) {
  const grpc::Status full =
      ToGrpcStatus(MarkTransient(absl::ResourceExhaustedError("database or disk is full")));
  EXPECT_EQ(full.error_code(), grpc::StatusCode::UNAVAILABLE);
  EXPECT_EQ(full.error_message(), "database or disk is full");
  EXPECT_EQ(ToGrpcStatus(MarkTransient(absl::InternalError("disk I/O error"))).error_code(),
            grpc::StatusCode::UNAVAILABLE);
  // Unmarked statuses keep their code.
  EXPECT_EQ(ToGrpcStatus(absl::InternalError("bug")).error_code(), grpc::StatusCode::INTERNAL);
  EXPECT_EQ(ToGrpcStatus(absl::ResourceExhaustedError("quota")).error_code(),
            grpc::StatusCode::RESOURCE_EXHAUSTED);
}

}  // namespace
}  // namespace vernier::storage
