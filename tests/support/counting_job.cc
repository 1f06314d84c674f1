#include "tests/support/counting_job.h"

#include <grpcpp/grpcpp.h>

#include <set>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/support/job_client.h"
#include "tests/support/subprocess.h"
#include "tests/support/tuning_job.h"

namespace vernier::testing {

void SubmitAndWaitForActiveTrials(const ServerProcess& server, const v1::Job& job, int active) {
  grpc::ClientContext context;
  v1::SubmitTrainingJobRequest request;
  *request.mutable_job() = job;
  v1::Job submitted;
  const grpc::Status status = server.JobStub()->SubmitTrainingJob(&context, request, &submitted);
  ASSERT_TRUE(status.ok()) << status.error_message();
  WaitForJob(server, job.job_id(), [active](const v1::GetJobResponse& polled) {
    return polled.trial_counts().active() >= active;
  });
}

void ExpectSucceededEveryTrialOnce(const ServerProcess& server, const std::string& job_id,
                                   const std::string& runs_dir, int trials, int steps) {
  const v1::GetJobResponse ended = WaitForJob(server, job_id, Ended);
  EXPECT_EQ(ended.job().state(), v1::Job::SUCCEEDED) << ended.job().error_message() << server.log();
  EXPECT_FALSE(ended.job().has_waiting_for_store_since());
  EXPECT_FALSE(ended.job().has_waiting_for_slurm_since());
  const std::vector<v1::Trial> listed = ListTrials(server, job_id);
  ASSERT_EQ(listed.size(), static_cast<size_t>(trials));
  for (const v1::Trial& trial : listed) {
    SCOPED_TRACE(absl::StrCat("trial ", trial.id()));
    EXPECT_EQ(trial.state(), v1::Trial::SUCCEEDED) << trial.status_reason();
    EXPECT_EQ(trial.final_measurement().step(), steps);
    std::set<int64_t> seen;
    for (const v1::Measurement& measurement : trial.measurements()) seen.insert(measurement.step());
    EXPECT_EQ(seen.size(), static_cast<size_t>(steps)) << trial.DebugString();
    EXPECT_EQ(ReadFile(absl::StrCat(runs_dir, "/", job_id, "/", trial.id(), "/launches")),
              "launched\n")
        << "launched more than once";
  }
  for (const v1::TrialRun& run : ended.trial_runs()) EXPECT_EQ(run.attempt(), 0);
}

size_t CountOccurrences(const std::string& text, const std::string& what) {
  size_t count = 0;
  for (size_t at = text.find(what); at != std::string::npos; at = text.find(what, at + 1)) {
    ++count;
  }
  return count;
}

}  // namespace vernier::testing
