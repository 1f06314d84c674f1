#include "trainer-agent/measurement_reporter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/time/clock.h"
#include "tests/trainer-agent/captured_log.h"
#include "tests/trainer-agent/recording_agent_service.h"

namespace vernier::agent {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::SizeIs;

v1::Measurement MakeMeasurement(int64_t step, double value) {
  v1::Measurement measurement;
  measurement.set_step(step);
  v1::Metric* metric = measurement.add_metrics();
  metric->set_metric_id("accuracy");
  metric->set_value(value);
  return measurement;
}

std::vector<int64_t> Keys(const std::map<int64_t, v1::Measurement>& stored) {
  std::vector<int64_t> keys;
  for (const auto& [sequence_number, measurement] : stored) keys.push_back(sequence_number);
  return keys;
}

std::vector<int64_t> Range(int64_t first, int64_t last) {
  std::vector<int64_t> values;
  for (int64_t i = first; i <= last; ++i) values.push_back(i);
  return values;
}

class MeasurementReporterTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(sockets_.path().empty()); }
  void TearDown() override {
    reporter_.reset();
    if (server_) server_->Shutdown();
  }

  ReporterOptions Options() {
    ReporterOptions options;
    options.replica.set_study_name("lr_sweep_001");
    options.replica.set_trial_id(3);
    options.replica.set_role("master");
    options.replica.set_index(0);
    options.rpc_deadline = absl::Milliseconds(500);
    options.initial_backoff = absl::Milliseconds(20);
    options.max_backoff = absl::Milliseconds(200);
    options.seed = 7;
    return options;
  }

  void StartServer() {
    server_ = testing::StartServer(sockets_.address(), service_);
    ASSERT_NE(server_, nullptr);
  }

  void CreateReporter(const ReporterOptions& options) {
    reporter_ = std::make_unique<MeasurementReporter>(
        MeasurementReporter::CreateChannel(sockets_.address(), options), options, log_.logger());
  }

  bool WaitForStored(size_t count, absl::Duration timeout = absl::Seconds(10)) {
    return service_.WaitFor([&] { return service_.stored().size() >= count; }, timeout);
  }

  // Polls the reporter's counters, which no server event signals.
  bool WaitForFailedAttempts(int64_t count, absl::Duration timeout = absl::Seconds(10)) {
    const absl::Time deadline = absl::Now() + timeout;
    while (reporter_->counters().failed_attempts < count) {
      if (absl::Now() > deadline) return false;
      absl::SleepFor(absl::Milliseconds(10));
    }
    return true;
  }

  testing::CapturedLog log_;
  testing::SocketDirectory sockets_;
  testing::RecordingAgentService service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<MeasurementReporter> reporter_;
};

TEST_F(MeasurementReporterTest, MeasurementsArriveInOrderWithIncreasingSequenceNumbers) {
  StartServer();
  ReporterOptions options = Options();
  options.max_batch_size = 30;
  CreateReporter(options);
  for (int64_t step = 1; step <= 250; ++step) {
    EXPECT_EQ(reporter_->Enqueue(MakeMeasurement(step, step / 1000.0)), step);
  }
  ASSERT_TRUE(reporter_->Flush(absl::Now() + absl::Seconds(10)).ok());
  const auto stored = service_.StoredCopy();
  EXPECT_EQ(Keys(stored), Range(1, 250));
  for (const auto& [sequence_number, measurement] : stored) {
    EXPECT_EQ(measurement.step(), sequence_number);
  }
  int64_t last = 0;
  for (const v1::ReportMeasurementsRequest& request : service_.MeasurementRequestsCopy()) {
    EXPECT_LE(request.measurements_size(), 30);
    EXPECT_EQ(request.replica().study_name(), "lr_sweep_001");
    EXPECT_EQ(request.replica().trial_id(), 3);
    EXPECT_EQ(request.replica().role(), "master");
    for (const v1::Measurement& measurement : request.measurements()) {
      EXPECT_EQ(measurement.sequence_number(), last + 1);
      last = measurement.sequence_number();
    }
  }
  EXPECT_EQ(service_.DuplicatesCopy(), 0);
  EXPECT_EQ(reporter_->counters().acknowledged, 250);
  EXPECT_EQ(reporter_->queued(), 0u);
}

TEST_F(MeasurementReporterTest, SendsAsMeasurementsAppearWithoutFlush) {
  StartServer();
  CreateReporter(Options());
  reporter_->Enqueue(MakeMeasurement(1, 0.1));
  ASSERT_TRUE(WaitForStored(1));
  reporter_->Enqueue(MakeMeasurement(2, 0.2));
  ASSERT_TRUE(WaitForStored(2));
}

TEST_F(MeasurementReporterTest, BatchesRespectTheByteLimit) {
  StartServer();
  ReporterOptions options = Options();
  options.max_batch_bytes = 1;  // Every measurement is larger: one per request.
  CreateReporter(options);
  for (int step = 1; step <= 4; ++step) reporter_->Enqueue(MakeMeasurement(step, 0.5));
  ASSERT_TRUE(reporter_->Flush(absl::Now() + absl::Seconds(10)).ok());
  for (const auto& request : service_.MeasurementRequestsCopy()) {
    EXPECT_EQ(request.measurements_size(), 1);
  }
  EXPECT_EQ(Keys(service_.StoredCopy()), Range(1, 4));
}

TEST_F(MeasurementReporterTest, ServiceStartingLateGetsEverythingOnce) {
  CreateReporter(Options());
  for (int step = 1; step <= 20; ++step) reporter_->Enqueue(MakeMeasurement(step, 0.5));
  ASSERT_TRUE(WaitForFailedAttempts(2)) << "the reporter should be retrying";
  absl::SleepFor(absl::Milliseconds(300));  // The outage lasts a while.
  StartServer();
  ASSERT_TRUE(reporter_->Flush(absl::Now() + absl::Seconds(10)).ok());
  EXPECT_EQ(Keys(service_.StoredCopy()), Range(1, 20));
  EXPECT_EQ(service_.DuplicatesCopy(), 0);
  EXPECT_THAT(log_.Text(), HasSubstr("warning: cannot report measurements 1.."));
  EXPECT_THAT(log_.Text(), HasSubstr("service reachable again"));
}

TEST_F(MeasurementReporterTest, SurvivesARestartOfTheService) {
  StartServer();
  CreateReporter(Options());
  for (int step = 1; step <= 5; ++step) reporter_->Enqueue(MakeMeasurement(step, 0.5));
  ASSERT_TRUE(WaitForStored(5));
  server_->Shutdown();
  server_.reset();
  const int64_t failed_before = reporter_->counters().failed_attempts;
  for (int step = 6; step <= 10; ++step) reporter_->Enqueue(MakeMeasurement(step, 0.5));
  ASSERT_TRUE(WaitForFailedAttempts(failed_before + 2));
  StartServer();
  ASSERT_TRUE(reporter_->Flush(absl::Now() + absl::Seconds(10)).ok());
  EXPECT_EQ(Keys(service_.StoredCopy()), Range(1, 10));
  EXPECT_EQ(service_.DuplicatesCopy(), 0);
}

TEST_F(MeasurementReporterTest, RetryOfABatchStoredButAnsweredUnavailableIsStoredOnce) {
  StartServer();
  service_.AnswerUnavailableAfterStoring(1);
  CreateReporter(Options());
  for (int step = 1; step <= 3; ++step) reporter_->Enqueue(MakeMeasurement(step, 0.5));
  ASSERT_TRUE(reporter_->Flush(absl::Now() + absl::Seconds(10)).ok());
  const auto requests = service_.MeasurementRequestsCopy();
  ASSERT_GE(requests.size(), 2u);
  // The retry carries the same sequence numbers as the lost answer.
  EXPECT_EQ(requests[1].measurements(0).sequence_number(),
            requests[0].measurements(0).sequence_number());
  EXPECT_GE(service_.DuplicatesCopy(), 1);
  EXPECT_EQ(Keys(service_.StoredCopy()), Range(1, 3));
  EXPECT_EQ(reporter_->counters().acknowledged, 3);
}

TEST_F(MeasurementReporterTest, ShouldStopPropagates) {
  StartServer();
  service_.SetShouldStop(true, "median stopping rule");
  CreateReporter(Options());
  EXPECT_FALSE(reporter_->should_stop());
  reporter_->Enqueue(MakeMeasurement(1, 0.1));
  ASSERT_TRUE(reporter_->Flush(absl::Now() + absl::Seconds(10)).ok());
  EXPECT_TRUE(reporter_->should_stop());
  EXPECT_EQ(reporter_->stop_reason(), "median stopping rule");
  EXPECT_THAT(log_.Text(), HasSubstr("service asks to stop the trial: median stopping rule"));
}

class NonRetryableTest : public MeasurementReporterTest,
                         public ::testing::WithParamInterface<grpc::StatusCode> {};

TEST_P(NonRetryableTest, RejectedBatchIsDroppedWithAnErrorAndTheNextOneGoesThrough) {
  StartServer();
  service_.RejectNextMeasurements(GetParam());
  CreateReporter(Options());
  reporter_->Enqueue(MakeMeasurement(1, 0.1));
  ASSERT_TRUE(reporter_->Flush(absl::Now() + absl::Seconds(10)).ok());
  EXPECT_EQ(reporter_->counters().dropped, 1);
  reporter_->Enqueue(MakeMeasurement(2, 0.2));
  ASSERT_TRUE(reporter_->Flush(absl::Now() + absl::Seconds(10)).ok());
  EXPECT_THAT(Keys(service_.StoredCopy()), ElementsAre(2));
  EXPECT_THAT(service_.MeasurementRequestsCopy(), SizeIs(2)) << "no retry of the rejected batch";
  EXPECT_THAT(log_.Text(), HasSubstr(absl::StrCat(
                               "error: service rejected measurements 1..1 with ",
                               absl::StatusCodeToString(static_cast<absl::StatusCode>(GetParam())),
                               ": scripted rejection; dropped them")));
}

INSTANTIATE_TEST_SUITE_P(Codes, NonRetryableTest,
                         ::testing::Values(grpc::StatusCode::INVALID_ARGUMENT,
                                           grpc::StatusCode::NOT_FOUND,
                                           grpc::StatusCode::FAILED_PRECONDITION));

TEST(MeasurementReporterRetryableTest, ClassifiesCodes) {
  for (grpc::StatusCode code :
       {grpc::StatusCode::UNAVAILABLE, grpc::StatusCode::DEADLINE_EXCEEDED,
        grpc::StatusCode::RESOURCE_EXHAUSTED, grpc::StatusCode::ABORTED, grpc::StatusCode::INTERNAL,
        grpc::StatusCode::UNKNOWN, grpc::StatusCode::CANCELLED}) {
    EXPECT_TRUE(MeasurementReporter::IsRetryable(code)) << code;
  }
  for (grpc::StatusCode code :
       {grpc::StatusCode::INVALID_ARGUMENT, grpc::StatusCode::NOT_FOUND,
        grpc::StatusCode::FAILED_PRECONDITION, grpc::StatusCode::ALREADY_EXISTS,
        grpc::StatusCode::PERMISSION_DENIED, grpc::StatusCode::UNIMPLEMENTED,
        grpc::StatusCode::UNAUTHENTICATED, grpc::StatusCode::OUT_OF_RANGE}) {
    EXPECT_FALSE(MeasurementReporter::IsRetryable(code)) << code;
  }
}

TEST(MeasurementReporterRetryableTest, ServerErrorsAreRetriedOnlyAFewTimes) {
  for (grpc::StatusCode code : {grpc::StatusCode::INTERNAL, grpc::StatusCode::UNKNOWN}) {
    EXPECT_TRUE(MeasurementReporter::WorthRetrying(code, 1)) << code;
    EXPECT_FALSE(
        MeasurementReporter::WorthRetrying(code, MeasurementReporter::kMaxServerErrorAttempts))
        << code;
  }
  EXPECT_TRUE(MeasurementReporter::WorthRetrying(grpc::StatusCode::UNAVAILABLE, 1000));
  EXPECT_FALSE(MeasurementReporter::WorthRetrying(grpc::StatusCode::INVALID_ARGUMENT, 0));
}

// A report the service cannot parse is answered INTERNAL on every try: the
// agent once retried it until it gave up (an hour) while the trial stayed
// RUNNING.
TEST_F(MeasurementReporterTest, ReportExitStopsRetryingAServerErrorThatComesEveryTime) {
  StartServer();
  service_.RejectExits(grpc::StatusCode::INTERNAL);
  CreateReporter(Options());
  const absl::Status status =
      reporter_->ReportExit(v1::ReportExitRequest(), absl::Now() + absl::Seconds(60));
  EXPECT_EQ(status.code(), absl::StatusCode::kInternal) << status;
  EXPECT_THAT(status.message(), HasSubstr("service rejected the exit report (5 times in a row)"));
  EXPECT_TRUE(service_.WaitFor(
      [&] {
        return service_.exit_requests().size() ==
               static_cast<size_t>(MeasurementReporter::kMaxServerErrorAttempts);
      },
      absl::Seconds(1)));
}

TEST_F(MeasurementReporterTest, TransientRejectionIsRetried) {
  StartServer();
  service_.RejectNextMeasurements(grpc::StatusCode::RESOURCE_EXHAUSTED);
  CreateReporter(Options());
  reporter_->Enqueue(MakeMeasurement(1, 0.1));
  ASSERT_TRUE(reporter_->Flush(absl::Now() + absl::Seconds(10)).ok());
  EXPECT_THAT(Keys(service_.StoredCopy()), ElementsAre(1));
  EXPECT_EQ(reporter_->counters().dropped, 0);
}

TEST_F(MeasurementReporterTest, FlushNamesWhatIsStillWaiting) {
  CreateReporter(Options());
  reporter_->Enqueue(MakeMeasurement(1, 0.1));
  reporter_->Enqueue(MakeMeasurement(2, 0.2));
  const absl::Status status = reporter_->Flush(absl::Now() + absl::Milliseconds(300));
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(status.message(),
              HasSubstr("2 measurements still unacknowledged by the service (from sequence "
                        "number 1)"));
}

TEST_F(MeasurementReporterTest, FullQueueDropsTheOldest) {
  ReporterOptions options = Options();
  options.max_queued = 3;
  CreateReporter(options);
  for (int step = 1; step <= 5; ++step) reporter_->Enqueue(MakeMeasurement(step, 0.5));
  EXPECT_EQ(reporter_->counters().dropped, 2);
  EXPECT_EQ(reporter_->queued(), 3u);
  EXPECT_THAT(log_.Text(), HasSubstr("error: 4 measurements ("));
  EXPECT_THAT(log_.Text(),
              HasSubstr("waiting for the service exceed the buffer limit (3 measurements, 67108864 "
                        "bytes); dropped the oldest, sequence number 1 (1 dropped so far)"));
  StartServer();
  ASSERT_TRUE(reporter_->Flush(absl::Now() + absl::Seconds(10)).ok());
  // A batch already on its way when its measurements were dropped may still
  // arrive; what stayed queued always does.
  EXPECT_THAT(Keys(service_.StoredCopy()), ::testing::IsSupersetOf({3, 4, 5}));
}

TEST_F(MeasurementReporterTest, ReportExitFillsTheReplica) {
  StartServer();
  CreateReporter(Options());
  v1::ReportExitRequest request;
  request.set_exit_code(1);
  request.set_log_tail("Traceback ...\n");
  ASSERT_TRUE(reporter_->ReportExit(request, absl::Now() + absl::Seconds(10)).ok());
  const auto exits = service_.ExitsCopy();
  ASSERT_THAT(exits, SizeIs(1));
  EXPECT_EQ(exits[0].replica().study_name(), "lr_sweep_001");
  EXPECT_EQ(exits[0].replica().trial_id(), 3);
  EXPECT_EQ(exits[0].exit_code(), 1);
  EXPECT_EQ(exits[0].log_tail(), "Traceback ...\n");
}

TEST_F(MeasurementReporterTest, ReportExitRetriesTransientFailures) {
  StartServer();
  service_.AnswerExitsUnavailable(2);
  CreateReporter(Options());
  v1::ReportExitRequest request;
  request.set_exit_code(0);
  ASSERT_TRUE(reporter_->ReportExit(request, absl::Now() + absl::Seconds(10)).ok());
  EXPECT_THAT(service_.ExitsCopy(), SizeIs(1));
  EXPECT_THAT(log_.Text(), HasSubstr("exit reported after 3 attempts"));
}

TEST_F(MeasurementReporterTest, ReportExitGivesUpAfterTheLimit) {
  ReporterOptions options = Options();
  options.rpc_deadline = absl::Milliseconds(100);
  CreateReporter(options);
  const absl::Time start = absl::Now();
  const absl::Status status =
      reporter_->ReportExit(v1::ReportExitRequest(), absl::Now() + absl::Milliseconds(500));
  EXPECT_EQ(status.code(), absl::StatusCode::kDeadlineExceeded);
  EXPECT_THAT(status.message(), HasSubstr("gave up reporting the exit after"));
  EXPECT_THAT(status.message(), HasSubstr("last error DEADLINE_EXCEEDED"));
  EXPECT_GE(absl::Now() - start, absl::Milliseconds(300));
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
}

TEST_F(MeasurementReporterTest, ReportExitRejectedKeepsTheServiceCode) {
  StartServer();
  service_.RejectExits(grpc::StatusCode::NOT_FOUND);
  CreateReporter(Options());
  const absl::Status status =
      reporter_->ReportExit(v1::ReportExitRequest(), absl::Now() + absl::Seconds(10));
  EXPECT_EQ(status.code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(status.message(),
              HasSubstr("service rejected the exit report: scripted exit rejection"));
}

TEST_F(MeasurementReporterTest, ShutdownCancelsCallsInFlight) {
  ReporterOptions options = Options();
  options.rpc_deadline = absl::Seconds(60);
  CreateReporter(options);
  reporter_->Enqueue(MakeMeasurement(1, 0.1));
  absl::SleepFor(absl::Milliseconds(100));  // Let the call start waiting for a connection.
  const absl::Time start = absl::Now();
  reporter_->Shutdown();
  EXPECT_LT(absl::Now() - start, absl::Seconds(5));
  const absl::Status status =
      reporter_->ReportExit(v1::ReportExitRequest(), absl::Now() + absl::Seconds(10));
  EXPECT_EQ(status.code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(status.message(), HasSubstr("reporter shut down before the exit was reported"));
  const absl::Status flushed = reporter_->Flush(absl::Now() + absl::Seconds(1));
  EXPECT_EQ(flushed.code(), absl::StatusCode::kCancelled);
  EXPECT_THAT(flushed.message(),
              HasSubstr("reporter shut down with 1 measurements unacknowledged"));
}

class DurableReporterTest : public MeasurementReporterTest {
 protected:
  void SetUp() override {
    MeasurementReporterTest::SetUp();
    log_path_ = sockets_.path() + "/trial/.vernier/master-0/measurements.log";
  }
  ReporterOptions DurableOptions() {
    ReporterOptions options = Options();
    options.log_path = log_path_;
    return options;
  }
  // What a restarted agent would find in the log.
  MeasurementLog::Recovered Recover() {
    absl::StatusOr<std::unique_ptr<MeasurementLog>> log =
        MeasurementLog::Open(log_path_, Options().replica, log_.logger());
    EXPECT_TRUE(log.ok()) << log.status();
    return (*log)->TakeRecovered();
  }

  std::string log_path_;
};

TEST_F(DurableReporterTest, MeasurementsAreOnDiskBeforeTheServiceSeesThem) {
  CreateReporter(DurableOptions());
  for (int step = 1; step <= 3; ++step) reporter_->Enqueue(MakeMeasurement(step, 0.5));
  // No service: nothing acknowledged, everything in the log.
  reporter_->Shutdown();
  const MeasurementLog::Recovered recovered = Recover();
  ASSERT_THAT(recovered.unsettled, SizeIs(3));
  EXPECT_EQ(recovered.unsettled[2].sequence_number(), 3);
  EXPECT_EQ(recovered.settled_through, 0);
}

TEST_F(DurableReporterTest, ARestartedReporterSendsOnlyWhatWasNotAcknowledged) {
  StartServer();
  CreateReporter(DurableOptions());
  for (int step = 1; step <= 4; ++step) reporter_->Enqueue(MakeMeasurement(step, 0.5));
  ASSERT_TRUE(reporter_->Flush(absl::Now() + absl::Seconds(10)).ok());
  server_->Shutdown();
  server_.reset();
  for (int step = 5; step <= 7; ++step) reporter_->Enqueue(MakeMeasurement(step, 0.5));
  // The agent dies with 5..7 unacknowledged.
  reporter_.reset();
  const size_t requests_before = service_.MeasurementRequestsCopy().size();

  StartServer();
  CreateReporter(DurableOptions());
  EXPECT_EQ(reporter_->counters().recovered, 3);
  EXPECT_EQ(reporter_->Enqueue(MakeMeasurement(8, 0.5)), 8) << "numbering continues";
  ASSERT_TRUE(reporter_->Flush(absl::Now() + absl::Seconds(10)).ok());
  EXPECT_EQ(Keys(service_.StoredCopy()), Range(1, 8));
  EXPECT_EQ(service_.DuplicatesCopy(), 0);
  const auto requests = service_.MeasurementRequestsCopy();
  for (size_t i = requests_before; i < requests.size(); ++i) {
    for (const v1::Measurement& measurement : requests[i].measurements()) {
      EXPECT_GE(measurement.sequence_number(), 5) << "resent an acknowledged measurement";
    }
  }
  EXPECT_THAT(log_.Text(), HasSubstr("holds 3 measurements an earlier agent left unacknowledged "
                                     "(sequence numbers 5..7); sending them first"));
  reporter_.reset();
  EXPECT_THAT(Recover().unsettled, SizeIs(0));
}

TEST_F(DurableReporterTest, TheBufferIsBoundedInBytesAndSaysSo) {
  ReporterOptions options = DurableOptions();
  const size_t one = MakeMeasurement(1, 0.5).ByteSizeLong() + 2;  // With its sequence number.
  options.max_queued_bytes = 3 * one;
  CreateReporter(options);
  for (int step = 1; step <= 6; ++step) reporter_->Enqueue(MakeMeasurement(step, 0.5));
  EXPECT_EQ(reporter_->queued(), 3u);
  EXPECT_EQ(reporter_->counters().dropped, 3);
  EXPECT_THAT(log_.Text(), HasSubstr("exceed the buffer limit"));
  reporter_->Shutdown();
  const MeasurementLog::Recovered recovered = Recover();
  ASSERT_THAT(recovered.unsettled, SizeIs(3));
  EXPECT_EQ(recovered.unsettled[0].sequence_number(), 4);
}

TEST_F(DurableReporterTest, TheLogIsCompactedAsAcknowledgementsComeIn) {
  StartServer();
  ReporterOptions options = DurableOptions();
  options.compact_log_after_bytes = 4096;
  CreateReporter(options);
  for (int step = 1; step <= 2000; ++step) reporter_->Enqueue(MakeMeasurement(step, 0.5));
  ASSERT_TRUE(reporter_->Flush(absl::Now() + absl::Seconds(20)).ok());
  EXPECT_LT(std::filesystem::file_size(log_path_), 8192u);
  reporter_.reset();
  const MeasurementLog::Recovered recovered = Recover();
  EXPECT_THAT(recovered.unsettled, SizeIs(0));
  EXPECT_EQ(recovered.last_sequence_number, 2000);
}

TEST_F(DurableReporterTest, AnUnusableLogDirectoryFallsBackToMemory) {
  StartServer();
  ReporterOptions options = Options();
  options.log_path = "/dev/null/trial/.vernier/master-0/measurements.log";
  CreateReporter(options);
  reporter_->Enqueue(MakeMeasurement(1, 0.5));
  ASSERT_TRUE(reporter_->Flush(absl::Now() + absl::Seconds(10)).ok());
  EXPECT_THAT(log_.Text(), HasSubstr("cannot keep measurements on disk"));
  EXPECT_THAT(log_.Text(), HasSubstr("keeping them in memory only"));
}

}  // namespace
}  // namespace vernier::agent
