#ifndef VERNIER_TUNER_TRAINING_OUTPUT_BUILDER_H_
#define VERNIER_TUNER_TRAINING_OUTPUT_BUILDER_H_

#include <span>

#include "vernier/v1/job.pb.h"
#include "vernier/v1/job_service.pb.h"
#include "vernier/v1/study.pb.h"

namespace vernier::tuner {

// AI Platform's trainingOutput for a job's trials: ranked trials best first,
// then the others by id.
v1::TrainingOutput BuildTrainingOutput(const v1::StudySpec& spec,
                                       std::span<const v1::Trial> trials);

v1::TrialCounts CountTrialStates(std::span<const v1::Trial> trials);

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_TRAINING_OUTPUT_BUILDER_H_
