// An agent that knows several servers leaves one that hangs (accepts
// connections, never answers: a SIGSTOPped `vernier serve`) for the next,
// for measurements, the exit report and heartbeats alike (issue 35 item 10).
#include "trainer-agent/server_pool.h"

#include <arpa/inet.h>
#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/trainer-agent/captured_log.h"
#include "tests/trainer-agent/recording_agent_service.h"
#include "trainer-agent/heartbeat_sender.h"
#include "trainer-agent/measurement_reporter.h"

namespace vernier::agent {
namespace {

using ::testing::HasSubstr;

// A TCP port on loopback that accepts connections (the kernel completes
// them) and never reads or answers, as a stopped server does.
class HungServer {
 public:
  HungServer() {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    socklen_t length = sizeof(address);
    if (fd_ < 0 || bind(fd_, reinterpret_cast<sockaddr*>(&address), length) != 0 ||
        listen(fd_, 64) != 0 ||
        getsockname(fd_, reinterpret_cast<sockaddr*>(&address), &length) != 0) {
      return;
    }
    port_ = ntohs(address.sin_port);
  }
  ~HungServer() {
    if (fd_ >= 0) close(fd_);
  }
  int port() const { return port_; }
  std::string address() const { return absl::StrCat("127.0.0.1:", port_); }

 private:
  int fd_ = -1;
  int port_ = 0;
};

ReporterOptions Options() {
  ReporterOptions options;
  options.replica.set_study_name("hang");
  options.replica.set_trial_id(1);
  options.replica.set_role("master");
  options.rpc_deadline = absl::Milliseconds(500);
  options.initial_backoff = absl::Milliseconds(20);
  options.max_backoff = absl::Milliseconds(200);
  options.seed = 3;
  return options;
}

class ServerPoolTest : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_NE(hung_.port(), 0);
    ASSERT_FALSE(sockets_.path().empty());
    server_ = testing::StartServer(sockets_.address(), service_);
    ASSERT_NE(server_, nullptr);
  }
  void TearDown() override { server_->Shutdown(); }

  // The hung server first, then the good one.
  std::shared_ptr<ServerPool> Pool(const ReporterOptions& options) {
    std::vector<std::string> targets = {hung_.address(), sockets_.address()};
    std::vector<std::shared_ptr<grpc::ChannelInterface>> channels;
    for (const std::string& target : targets) {
      channels.push_back(MeasurementReporter::CreateChannel(target, options));
    }
    return std::make_shared<ServerPool>(targets, std::move(channels), log_.logger());
  }

  HungServer hung_;
  testing::CapturedLog log_;
  testing::SocketDirectory sockets_;
  testing::RecordingAgentService service_;
  std::unique_ptr<grpc::Server> server_;
};

TEST_F(ServerPoolTest, MeasurementsAndTheExitReachTheNextServerWhenTheFirstHangs) {
  const ReporterOptions options = Options();
  MeasurementReporter reporter(Pool(options), options, log_.logger());
  v1::Measurement measurement;
  measurement.set_step(1);
  reporter.Enqueue(measurement);
  ASSERT_TRUE(reporter.Flush(absl::Now() + absl::Seconds(30)).ok()) << log_.Text();
  v1::ReportExitRequest exit;
  exit.set_exit_code(0);
  ASSERT_TRUE(reporter.ReportExit(exit, absl::Now() + absl::Seconds(30)).ok()) << log_.Text();
  reporter.Shutdown();
  EXPECT_EQ(service_.StoredCopy().size(), 1u);
  EXPECT_EQ(service_.ExitsCopy().size(), 1u);
  // A new connection to it never gets the server's SETTINGS (UNAVAILABLE);
  // one made before it hung sees its calls time out (DEADLINE_EXCEEDED).
  EXPECT_THAT(log_.Text(),
              HasSubstr(absl::StrCat("server ", hung_.address(), " did not answer (")));
}

TEST_F(ServerPoolTest, HeartbeatsReachTheNextServerWhenTheFirstHangs) {
  const ReporterOptions options = Options();
  HeartbeatSender heartbeats(
      Pool(options),
      HeartbeatOptions{options.replica, absl::Milliseconds(100), absl::Milliseconds(500)}, {},
      log_.logger());
  EXPECT_TRUE(service_.WaitFor([&] { return !service_.heartbeats().empty(); }, absl::Seconds(30)))
      << log_.Text();
  heartbeats.Shutdown();
}

TEST_F(ServerPoolTest, AServerThatAnswersWithAnErrorIsKept) {
  std::shared_ptr<ServerPool> shared = Pool(Options());
  ServerPool& pool = *shared;
  const ServerPool::Pick first = pool.Current();
  EXPECT_EQ(first.index, 0u);
  pool.Done(first, grpc::Status(grpc::StatusCode::FAILED_PRECONDITION, "not the attempt"));
  pool.Done(first, grpc::Status::OK);
  EXPECT_EQ(pool.Current().index, 0u);
  // Two calls that failed on the same server move on once.
  pool.Done(first, grpc::Status(grpc::StatusCode::UNAVAILABLE, "refused"));
  pool.Done(first, grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "silent"));
  EXPECT_EQ(pool.Current().index, 1u);
  // Round the list.
  pool.Done(pool.Current(), grpc::Status(grpc::StatusCode::DEADLINE_EXCEEDED, "silent"));
  EXPECT_EQ(pool.Current().index, 0u);
}

TEST_F(ServerPoolTest, OneServerIsNeverLeft) {
  std::shared_ptr<ServerPool> pool = ServerPool::Single(
      MeasurementReporter::CreateChannel(sockets_.address(), Options()), log_.logger());
  pool->Done(pool->Current(), grpc::Status(grpc::StatusCode::UNAVAILABLE, "refused"));
  EXPECT_EQ(pool->Current().index, 0u);
}

}  // namespace
}  // namespace vernier::agent
