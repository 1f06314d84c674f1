#ifndef VERNIER_TESTS_SUPPORT_COUNTING_JOB_H_
#define VERNIER_TESTS_SUPPORT_COUNTING_JOB_H_

#include <cstddef>
#include <string>

#include "tests/support/server_process.h"
#include "tests/support/tuning_job.h"
#include "vernier/v1/job.pb.h"

namespace vernier::testing {

// What the fault-injection tests (issue 38) run is tuning_job.h's
// CountingJob: trials that count their launches in their trial dir
// (`launches`) and print `steps` steps of `accuracy`.

// Submits `job` over gRPC and waits until `active` of its trials run.
void SubmitAndWaitForActiveTrials(const ServerProcess& server, const v1::Job& job, int active);

// Waits for the job to end; it must have SUCCEEDED, waiting for nothing,
// with `trials` trials each SUCCEEDED, launched once (attempt 0) and with
// every one of its `steps` steps stored.
void ExpectSucceededEveryTrialOnce(const ServerProcess& server, const std::string& job_id,
                                   const std::string& runs_dir, int trials, int steps);

// How often `what` occurs in `text`.
size_t CountOccurrences(const std::string& text, const std::string& what);

}  // namespace vernier::testing

#endif  // VERNIER_TESTS_SUPPORT_COUNTING_JOB_H_
