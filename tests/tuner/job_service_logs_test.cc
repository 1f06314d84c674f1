// JobService.StreamLogs over gRPC, against a real SQLite store holding a
// trial run of several replicas: every replica's lines, tagged with trial,
// role, index and attempt, including replicas that start later and a retry
// that appends to the same files.
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "gmock/gmock.h"
#include "scheduler/local/local_admission.h"
#include "scheduler/local/local_backend.h"
#include "tests/support/subprocess.h"
#include "tuner/job_controller.h"
#include "tuner/job_service_impl.h"
#include "tuner/storage/storage_factory.h"
#include "tuner/study_manager.h"
#include "vernier/v1/job_service.grpc.pb.h"

namespace vernier::tuner {
namespace {

using ::testing::ElementsAre;
using ::testing::IsSupersetOf;

std::string Tagged(const v1::LogLine& line) {
  return absl::StrCat(line.trial_id(), " ", line.role(), "-", line.index(), " #", line.attempt(),
                      ": ", line.text());
}

void Append(const std::string& path, const std::string& text) {
  std::ofstream(path, std::ios::app) << text;
}

class JobServiceLogsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    absl::StatusOr<std::unique_ptr<storage::Storage>> store =
        storage::OpenStorage(absl::StrCat("sqlite:", dir_.path(), "/vernier.db"));
    ASSERT_TRUE(store.ok()) << store.status();
    store_ = *std::move(store);
    studies_ = std::make_unique<StudyManager>(*store_, SystemClock());
    // Not started: the test writes the runs the controller would.
    jobs_ = std::make_unique<JobController>(*store_, *studies_, backend_, admission_,
                                            JobControllerOptions{}, SystemClock());
    service_ = std::make_unique<JobServiceImpl>(*jobs_, *store_, std::chrono::milliseconds(20));
    grpc::ServerBuilder builder;
    int port = 0;
    builder.AddListeningPort("127.0.0.1:0", grpc::InsecureServerCredentials(), &port);
    builder.RegisterService(service_.get());
    server_ = builder.BuildAndStart();
    stub_ = v1::JobService::NewStub(
        grpc::CreateChannel(absl::StrCat("127.0.0.1:", port), grpc::InsecureChannelCredentials()));

    v1::Job job;
    job.set_job_id("logs");
    job.set_job_dir(dir_.path() + "/runs");
    job.add_command("true");
    v1::ParameterSpec* param =
        job.mutable_training_input()->mutable_hyperparameters()->add_params();
    param->set_parameter_name("x");
    param->set_type(v1::ParameterSpec::DOUBLE);
    param->set_min_value(0);
    param->set_max_value(1);
    ASSERT_TRUE(jobs_->SubmitJob(job).ok());
  }

  void TearDown() override { server_->Shutdown(); }

  std::string LogPath(const std::string& replica) {
    return dir_.path() + "/runs/1/logs/" + replica + ".log";
  }

  void PutRun(int attempt, const std::vector<std::pair<std::string, int>>& replicas) {
    v1::TrialRun run;
    run.set_trial_id(1);
    run.set_attempt(attempt);
    for (const auto& [role, index] : replicas) {
      v1::ReplicaStatus* replica = run.add_replicas();
      replica->set_role(role);
      replica->set_index(index);
      replica->set_log_path(LogPath(absl::StrCat(role, "-", index)));
    }
    ASSERT_TRUE(store_->PutTrialRun("logs", run).ok());
  }

  void EndJob() {
    ASSERT_TRUE(store_
                    ->UpdateJob("logs",
                                [](v1::Job& job) {
                                  job.set_state(v1::Job::SUCCEEDED);
                                  return absl::OkStatus();
                                })
                    .ok());
  }

  // Every line of a followed stream, read on a thread of its own.
  class Follower {
   public:
    explicit Follower(v1::JobService::Stub& stub) {
      thread_ = std::thread([this, &stub] {
        v1::StreamLogsRequest request;
        request.set_job_id("logs");
        request.set_follow(true);
        std::unique_ptr<grpc::ClientReader<v1::LogLine>> reader =
            stub.StreamLogs(&context_, request);
        v1::LogLine line;
        while (reader->Read(&line)) {
          absl::MutexLock lock(&mutex_);
          lines_.push_back(Tagged(line));
        }
        status_ = reader->Finish();
      });
    }
    ~Follower() {
      if (thread_.joinable()) {
        context_.TryCancel();
        thread_.join();
      }
    }
    // Waits until `count` lines have arrived (or 20 s passed).
    std::vector<std::string> WaitFor(size_t count) {
      absl::MutexLock lock(&mutex_);
      want_ = count;
      mutex_.AwaitWithTimeout(absl::Condition(this, &Follower::Enough), absl::Seconds(20));
      return lines_;
    }
    grpc::Status Join() {
      thread_.join();
      return status_;
    }

   private:
    bool Enough() const ABSL_EXCLUSIVE_LOCKS_REQUIRED(mutex_) { return lines_.size() >= want_; }

    grpc::ClientContext context_;
    absl::Mutex mutex_;
    std::vector<std::string> lines_ ABSL_GUARDED_BY(mutex_);
    size_t want_ ABSL_GUARDED_BY(mutex_) = 0;
    grpc::Status status_;
    std::thread thread_;
  };

  testing::TempDir dir_;
  scheduler::LocalBackend backend_;
  scheduler::LocalAdmission admission_{{}, {}, [](int) { return true; }};
  std::unique_ptr<storage::Storage> store_;
  std::unique_ptr<StudyManager> studies_;
  std::unique_ptr<JobController> jobs_;
  std::unique_ptr<JobServiceImpl> service_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<v1::JobService::Stub> stub_;
};

TEST_F(JobServiceLogsTest, FollowsEveryReplicaLaterOnesAndRetries) {
  std::filesystem::create_directories(dir_.path() + "/runs/1/logs");
  Append(LogPath("master-0"), "master up\n");
  Append(LogPath("worker-0"), "worker up\n");
  PutRun(0, {{"master", 0}, {"worker", 0}});

  Follower follower(*stub_);
  EXPECT_THAT(follower.WaitFor(2), ::testing::UnorderedElementsAre("1 master-0 #0: master up",
                                                                   "1 worker-0 #0: worker up"));

  // A parameter server that starts later, and a line of the master.
  PutRun(0, {{"master", 0}, {"worker", 0}, {"ps", 0}});
  Append(LogPath("ps-0"), "ps up\n");
  Append(LogPath("master-0"), "step=1 loss=0.5\n");
  EXPECT_THAT(follower.WaitFor(4),
              IsSupersetOf({"1 ps-0 #0: ps up", "1 master-0 #0: step=1 loss=0.5"}));

  // The worker dies; its last words are written before the retry is stored,
  // and the retry appends to the same files.
  Append(LogPath("worker-0"), "worker crashed");
  PutRun(1, {{"master", 0}, {"worker", 0}, {"ps", 0}});
  // Lets the stream see the retry (it polls every 20 ms) before its output.
  std::this_thread::sleep_for(std::chrono::milliseconds(300));
  Append(LogPath("worker-0"), "worker up again\n");
  Append(LogPath("master-0"), "resumed from checkpoint\n");
  const std::vector<std::string> lines = follower.WaitFor(7);
  EXPECT_THAT(lines,
              IsSupersetOf({"1 worker-0 #0: worker crashed", "1 worker-0 #1: worker up again",
                            "1 master-0 #1: resumed from checkpoint"}))
      << ::testing::PrintToString(lines);

  Append(LogPath("ps-0"), "no newline at the end");
  EndJob();
  EXPECT_TRUE(follower.Join().ok());
  const std::vector<std::string> all = follower.WaitFor(8);
  EXPECT_EQ(all.size(), 8u) << ::testing::PrintToString(all);
  EXPECT_EQ(all.back(), "1 ps-0 #1: no newline at the end");
}

TEST_F(JobServiceLogsTest, WithoutFollowSendsWhatIsThereOfOneTrial) {
  std::filesystem::create_directories(dir_.path() + "/runs/1/logs");
  Append(LogPath("master-0"), "one\ntwo");
  Append(LogPath("evaluator-0"), "eval\n");
  PutRun(0, {{"master", 0}, {"evaluator", 0}});
  for (int64_t trial : {1, 2}) {
    grpc::ClientContext context;
    v1::StreamLogsRequest request;
    request.set_job_id("logs");
    request.set_trial_id(trial);
    std::unique_ptr<grpc::ClientReader<v1::LogLine>> reader = stub_->StreamLogs(&context, request);
    std::vector<std::string> lines;
    for (v1::LogLine line; reader->Read(&line);) lines.push_back(Tagged(line));
    const grpc::Status status = reader->Finish();
    if (trial == 1) {
      EXPECT_TRUE(status.ok()) << status.error_message();
      EXPECT_THAT(
          lines, ElementsAre("1 evaluator-0 #0: eval", "1 master-0 #0: one", "1 master-0 #0: two"));
    } else {
      // A trial the job does not have is an error, not an empty stream.
      EXPECT_EQ(status.error_code(), grpc::StatusCode::NOT_FOUND);
      EXPECT_THAT(status.error_message(), ::testing::HasSubstr("job \"logs\" has no trial 2"));
      EXPECT_TRUE(lines.empty());
    }
  }
}

// A log with a byte that is not UTF-8 once made the stream hang: the line
// could not be serialized into the LogLine's string.
TEST_F(JobServiceLogsTest, ALogWithAnyBytesStreams) {
  std::filesystem::create_directories(dir_.path() + "/runs/1/logs");
  Append(LogPath("master-0"), "loss=0.5\nbad \xff byte\n\xe8\xae");
  PutRun(0, {{"master", 0}});
  EndJob();
  grpc::ClientContext context;
  context.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(20));
  v1::StreamLogsRequest request;
  request.set_job_id("logs");
  request.set_follow(true);
  std::unique_ptr<grpc::ClientReader<v1::LogLine>> reader = stub_->StreamLogs(&context, request);
  std::vector<std::string> lines;
  for (v1::LogLine line; reader->Read(&line);) lines.push_back(Tagged(line));
  const grpc::Status status = reader->Finish();
  EXPECT_TRUE(status.ok()) << status.error_code() << ": " << status.error_message();
  EXPECT_THAT(lines, ElementsAre("1 master-0 #0: loss=0.5", "1 master-0 #0: bad \xef\xbf\xbd byte",
                                 "1 master-0 #0: \xef\xbf\xbd"));
}

}  // namespace
}  // namespace vernier::tuner
