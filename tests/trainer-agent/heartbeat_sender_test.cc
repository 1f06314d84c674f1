#include "trainer-agent/heartbeat_sender.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <memory>

#include "absl/time/clock.h"
#include "tests/trainer-agent/captured_log.h"
#include "tests/trainer-agent/recording_agent_service.h"
#include "trainer-agent/measurement_reporter.h"

namespace vernier::agent {
namespace {

using ::testing::HasSubstr;

class HeartbeatSenderTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_FALSE(sockets_.path().empty()); }
  void TearDown() override {
    sender_.reset();
    if (server_) server_->Shutdown();
  }

  void StartServer() {
    server_ = testing::StartServer(sockets_.address(), service_);
    ASSERT_NE(server_, nullptr);
  }

  void CreateSender(absl::Duration interval, int64_t unacknowledged = 0,
                    absl::Duration rpc_deadline = absl::Seconds(5)) {
    HeartbeatOptions options;
    options.replica.set_study_name("lr_sweep_001");
    options.replica.set_trial_id(3);
    options.replica.set_role("master");
    options.interval = interval;
    options.rpc_deadline = rpc_deadline;
    ReporterOptions channel_options;
    channel_options.initial_backoff = absl::Milliseconds(20);
    channel_options.max_backoff = absl::Milliseconds(100);
    sender_ = std::make_unique<HeartbeatSender>(
        MeasurementReporter::CreateChannel(sockets_.address(), channel_options), options,
        [unacknowledged] { return unacknowledged; }, log_.logger());
  }

  bool WaitForHeartbeats(size_t count) {
    return service_.WaitFor([&] { return service_.heartbeats().size() >= count; },
                            absl::Seconds(10));
  }

  testing::CapturedLog log_;
  testing::SocketDirectory sockets_;
  testing::RecordingAgentService service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<HeartbeatSender> sender_;
};

TEST_F(HeartbeatSenderTest, BeatsAtOnceAndThenEveryInterval) {
  StartServer();
  CreateSender(absl::Milliseconds(50), /*unacknowledged=*/12);
  ASSERT_TRUE(WaitForHeartbeats(4));
  const auto heartbeats = service_.HeartbeatsCopy();
  EXPECT_EQ(heartbeats[0].replica().study_name(), "lr_sweep_001");
  EXPECT_EQ(heartbeats[0].replica().trial_id(), 3);
  EXPECT_EQ(heartbeats[0].replica().role(), "master");
  EXPECT_EQ(heartbeats[0].unacknowledged_measurements(), 12);
  EXPECT_FALSE(sender_->should_stop());
  EXPECT_GE(sender_->acknowledged(), 3);
}

TEST_F(HeartbeatSenderTest, AStopDecisionArrivesWithoutAnyMeasurement) {
  StartServer();
  service_.StopOnHeartbeat("median stopping rule");
  CreateSender(absl::Milliseconds(50));
  ASSERT_TRUE(WaitForHeartbeats(1));
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (!sender_->should_stop() && absl::Now() < deadline) absl::SleepFor(absl::Milliseconds(10));
  EXPECT_TRUE(sender_->should_stop());
  EXPECT_EQ(sender_->stop_reason(), "median stopping rule");
  EXPECT_THAT(log_.Text(), HasSubstr("the service asks to stop the trial: median stopping rule"));
}

TEST_F(HeartbeatSenderTest, KeepsBeatingThroughAnOutageAndSaysSo) {
  CreateSender(absl::Milliseconds(50), 0, /*rpc_deadline=*/absl::Milliseconds(50));
  absl::SleepFor(absl::Milliseconds(300));
  StartServer();
  ASSERT_TRUE(WaitForHeartbeats(2));
  const absl::Time deadline = absl::Now() + absl::Seconds(10);
  while (log_.Text().find("heartbeats reach the service again") == std::string::npos &&
         absl::Now() < deadline) {
    absl::SleepFor(absl::Milliseconds(10));
  }
  EXPECT_THAT(log_.Text(), HasSubstr("warning: heartbeat failed ("));
  EXPECT_THAT(log_.Text(), HasSubstr("heartbeats reach the service again"));
}

TEST_F(HeartbeatSenderTest, AServiceWithoutHeartbeatsEndsThemWithOneLine) {
  StartServer();
  service_.AnswerHeartbeatsUnimplemented();
  CreateSender(absl::Milliseconds(20));
  ASSERT_TRUE(WaitForHeartbeats(1));
  absl::SleepFor(absl::Milliseconds(200));
  EXPECT_EQ(service_.HeartbeatsCopy().size(), 1u);
  EXPECT_THAT(log_.Text(), HasSubstr("the service does not take heartbeats (UNIMPLEMENTED"));
}

TEST_F(HeartbeatSenderTest, ShutdownDoesNotWaitForTheNextBeat) {
  StartServer();
  CreateSender(absl::Hours(1));
  ASSERT_TRUE(WaitForHeartbeats(1));
  const absl::Time start = absl::Now();
  sender_->Shutdown();
  EXPECT_LT(absl::Now() - start, absl::Seconds(30));
}

}  // namespace
}  // namespace vernier::agent
