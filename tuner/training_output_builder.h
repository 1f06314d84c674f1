#ifndef VERNIER_TUNER_TRAINING_OUTPUT_BUILDER_H_
#define VERNIER_TUNER_TRAINING_OUTPUT_BUILDER_H_

#include <cstdint>
#include <map>
#include <span>
#include <string>
#include <string_view>

#include "vernier/v1/job.pb.h"
#include "vernier/v1/job_service.pb.h"
#include "vernier/v1/study.pb.h"

namespace vernier::tuner {

// AI Platform's trainingOutput for a job's trials: ranked trials best first,
// then the others by id; the counts by state, and the resumed copies marked
// and left out of completed_trial_count.
v1::TrainingOutput BuildTrainingOutput(const v1::StudySpec& spec,
                                       std::span<const v1::Trial> trials);

v1::TrialCounts CountTrialStates(std::span<const v1::Trial> trials);
v1::TrialCounts CountTrialStates(const std::map<v1::Trial::State, int64_t>& by_state);
// The trials that have ended, of those counted.
int64_t EndedTrials(const v1::TrialCounts& counts);

// The client id of the trials a job copies, at its start, from the job that
// its resumePreviousJobId names.
std::string ResumedClientId(std::string_view previous_job_id);
bool IsResumedCopy(const v1::Trial& trial);

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_TRAINING_OUTPUT_BUILDER_H_
