#ifndef VERNIER_TUNER_CONFIG_STUDY_SPEC_BUILDER_H_
#define VERNIER_TUNER_CONFIG_STUDY_SPEC_BUILDER_H_

#include "vernier/v1/job.pb.h"
#include "vernier/v1/study.pb.h"

namespace vernier::config {

// The study behind a tuning job, from its (validated) `hyperparameters:`
// block: the parameters as given; its metrics (objectives and outcome
// constraints), or one metric, hyperparameterMetricTag with the goal; the
// algorithm; the trial limits; early stopping switched on by
// enableTrialEarlyStopping with the block's own earlyStopping settings.
//
// maxFailedTrials 0 means "Vernier decides" (AI Platform leaves it to the
// service too): the study gives up after max(1, maxTrials / 2) failed trials,
// so a job whose trainer crashes on every trial stops after half its budget
// rather than burning all of it, while a few failures on a flaky machine do
// not end a long study.
v1::StudySpec StudySpecFromHyperparameters(const v1::HyperparameterSpec& hyperparameters);

}  // namespace vernier::config

#endif  // VERNIER_TUNER_CONFIG_STUDY_SPEC_BUILDER_H_
