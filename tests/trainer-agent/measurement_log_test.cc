#include "trainer-agent/measurement_log.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <stdlib.h>

#include <deque>
#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "tests/support/subprocess.h"
#include "tests/trainer-agent/captured_log.h"

namespace vernier::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

v1::Measurement MakeMeasurement(int64_t sequence_number) {
  v1::Measurement measurement;
  measurement.set_sequence_number(sequence_number);
  measurement.set_step(sequence_number * 10);
  v1::Metric* metric = measurement.add_metrics();
  metric->set_metric_id("accuracy");
  metric->set_value(static_cast<double>(sequence_number) / 100);
  return measurement;
}

std::vector<int64_t> SequenceNumbers(const std::vector<v1::Measurement>& measurements) {
  std::vector<int64_t> numbers;
  for (const v1::Measurement& measurement : measurements) {
    numbers.push_back(measurement.sequence_number());
  }
  return numbers;
}

class MeasurementLogTest : public ::testing::Test {
 protected:
  void SetUp() override {
    path_ = dir_.path() + "/.vernier/master-0/measurements.log";
    replica_.set_study_name("sweep");
    replica_.set_trial_id(3);
    replica_.set_role("master");
  }

  std::unique_ptr<MeasurementLog> Open() {
    absl::StatusOr<std::unique_ptr<MeasurementLog>> log =
        MeasurementLog::Open(path_, replica_, log_.logger());
    EXPECT_TRUE(log.ok()) << log.status();
    return log.ok() ? *std::move(log) : nullptr;
  }

  testing::CapturedLog log_;
  vernier::testing::TempDir dir_;
  std::string path_;
  v1::ReplicaId replica_;
};

TEST_F(MeasurementLogTest, ANewLogHasNothingToRecover) {
  std::unique_ptr<MeasurementLog> log = Open();
  ASSERT_NE(log, nullptr);
  const MeasurementLog::Recovered recovered = log->TakeRecovered();
  EXPECT_THAT(recovered.unsettled, IsEmpty());
  EXPECT_EQ(recovered.last_sequence_number, 0);
  EXPECT_TRUE(std::filesystem::exists(path_));
}

TEST_F(MeasurementLogTest, ReopeningRecoversWhatWasNotAcknowledged) {
  {
    std::unique_ptr<MeasurementLog> log = Open();
    for (int64_t n = 1; n <= 5; ++n) ASSERT_TRUE(log->Append(MakeMeasurement(n)).ok());
    ASSERT_TRUE(log->MarkAcknowledged(3).ok());
    ASSERT_TRUE(log->Append(MakeMeasurement(6)).ok());
    ASSERT_TRUE(log->Sync().ok());
  }
  std::unique_ptr<MeasurementLog> log = Open();
  const MeasurementLog::Recovered recovered = log->TakeRecovered();
  EXPECT_THAT(SequenceNumbers(recovered.unsettled), ElementsAre(4, 5, 6));
  EXPECT_EQ(recovered.unsettled[0].step(), 40);
  EXPECT_DOUBLE_EQ(recovered.unsettled[0].metrics(0).value(), 0.04);
  EXPECT_EQ(recovered.settled_through, 3);
  EXPECT_EQ(recovered.last_sequence_number, 6);
}

TEST_F(MeasurementLogTest, DroppedMeasurementsAreNotRecoveredButNumberingContinues) {
  {
    std::unique_ptr<MeasurementLog> log = Open();
    for (int64_t n = 1; n <= 4; ++n) ASSERT_TRUE(log->Append(MakeMeasurement(n)).ok());
    ASSERT_TRUE(log->MarkDropped(4).ok());
  }
  const MeasurementLog::Recovered recovered = Open()->TakeRecovered();
  EXPECT_THAT(recovered.unsettled, IsEmpty());
  EXPECT_EQ(recovered.last_sequence_number, 4);
}

TEST_F(MeasurementLogTest, ATornLastRecordIsCutOffAndTheRestKept) {
  {
    std::unique_ptr<MeasurementLog> log = Open();
    for (int64_t n = 1; n <= 3; ++n) ASSERT_TRUE(log->Append(MakeMeasurement(n)).ok());
  }
  const uintmax_t whole = std::filesystem::file_size(path_);
  // The agent was killed in the middle of writing a fourth record.
  {
    std::ofstream out(path_, std::ios::app | std::ios::binary);
    out << std::string("\x40\x00\x00\x00\x12\x34", 6);
  }
  {
    std::unique_ptr<MeasurementLog> log = Open();
    EXPECT_THAT(SequenceNumbers(log->TakeRecovered().unsettled), ElementsAre(1, 2, 3));
    EXPECT_EQ(std::filesystem::file_size(path_), whole);
    ASSERT_TRUE(log->Append(MakeMeasurement(4)).ok());
  }
  EXPECT_THAT(log_.Text(), HasSubstr("cut off 6 bytes of an incomplete record"));
  EXPECT_THAT(SequenceNumbers(Open()->TakeRecovered().unsettled), ElementsAre(1, 2, 3, 4));
}

TEST_F(MeasurementLogTest, ACorruptRecordEndsTheReplay) {
  {
    std::unique_ptr<MeasurementLog> log = Open();
    for (int64_t n = 1; n <= 3; ++n) ASSERT_TRUE(log->Append(MakeMeasurement(n)).ok());
  }
  // Flip a byte in the last record's payload: its checksum no longer holds.
  {
    std::fstream file(path_, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(-2, std::ios::end);
    file.put('\x7f');
  }
  EXPECT_THAT(SequenceNumbers(Open()->TakeRecovered().unsettled), ElementsAre(1, 2));
}

TEST_F(MeasurementLogTest, ALogOfAnotherReplicaIsMovedAside) {
  {
    std::unique_ptr<MeasurementLog> log = Open();
    ASSERT_TRUE(log->Append(MakeMeasurement(1)).ok());
  }
  replica_.set_study_name("another_job");
  const MeasurementLog::Recovered recovered = Open()->TakeRecovered();
  EXPECT_THAT(recovered.unsettled, IsEmpty());
  EXPECT_EQ(recovered.last_sequence_number, 0);
  EXPECT_TRUE(std::filesystem::exists(path_ + ".stale"));
  EXPECT_THAT(log_.Text(), HasSubstr("was written for study=sweep trial=3 master-0, not "
                                     "study=another_job trial=3 master-0; moved it to"));
}

TEST_F(MeasurementLogTest, GarbageIsMovedAside) {
  std::filesystem::create_directories(std::filesystem::path(path_).parent_path());
  std::ofstream(path_) << "not a measurement log";
  EXPECT_THAT(Open()->TakeRecovered().unsettled, IsEmpty());
  EXPECT_TRUE(std::filesystem::exists(path_ + ".stale"));
}

TEST_F(MeasurementLogTest, CompactionKeepsOnlyWhatIsUnsettled) {
  std::unique_ptr<MeasurementLog> log = Open();
  for (int64_t n = 1; n <= 1000; ++n) ASSERT_TRUE(log->Append(MakeMeasurement(n)).ok());
  ASSERT_TRUE(log->MarkAcknowledged(998).ok());
  const uint64_t before = log->size_bytes();
  const std::deque<v1::Measurement> unsettled = {MakeMeasurement(999), MakeMeasurement(1000)};
  ASSERT_TRUE(log->Compact(998, unsettled).ok());
  EXPECT_LT(log->size_bytes(), before / 100);
  EXPECT_EQ(std::filesystem::file_size(path_), log->size_bytes());
  ASSERT_TRUE(log->Append(MakeMeasurement(1001)).ok());
  log.reset();
  const MeasurementLog::Recovered recovered = Open()->TakeRecovered();
  EXPECT_THAT(SequenceNumbers(recovered.unsettled), ElementsAre(999, 1000, 1001));
  EXPECT_EQ(recovered.settled_through, 998);
}

TEST_F(MeasurementLogTest, AnUnusableDirectoryIsAnError) {
  path_ = "/dev/null/trial/.vernier/master-0/measurements.log";
  const absl::StatusOr<std::unique_ptr<MeasurementLog>> log =
      MeasurementLog::Open(path_, replica_, log_.logger());
  EXPECT_EQ(log.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(log.status().message(), HasSubstr("cannot create the directory of /dev/null/trial"));
}

}  // namespace
}  // namespace vernier::agent
