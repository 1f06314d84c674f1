#include "trainer-agent/measurement_reporter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

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
  EXPECT_THAT(log_.Text(),
              HasSubstr("3 measurements waiting for the service (limit 3); dropped the oldest, "
                        "sequence number 1 (1 dropped so far)"));
  StartServer();
  ASSERT_TRUE(reporter_->Flush(absl::Now() + absl::Seconds(10)).ok());
  EXPECT_THAT(Keys(service_.StoredCopy()), ElementsAre(3, 4, 5));
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

}  // namespace
}  // namespace vernier::agent
