#include "tests/support/tuning_job.h"

#include "absl/strings/str_format.h"

namespace vernier::testing {

v1::Job TuningJob(const std::string& job_id, const std::string& dir, int max_trials, int parallel) {
  v1::Job job;
  job.set_job_id(job_id);
  job.set_job_dir(dir + "/" + job_id);
  job.add_command("/bin/true");
  v1::HyperparameterSpec& hyperparameters =
      *job.mutable_training_input()->mutable_hyperparameters();
  hyperparameters.set_goal(v1::MetricSpec::MAXIMIZE);
  hyperparameters.set_hyperparameter_metric_tag("accuracy");
  hyperparameters.set_max_trials(max_trials);
  hyperparameters.set_max_parallel_trials(parallel);
  hyperparameters.set_algorithm(v1::RANDOM_SEARCH);
  v1::ParameterSpec& lr = *hyperparameters.add_params();
  lr.set_parameter_name("lr");
  lr.set_type(v1::ParameterSpec::DOUBLE);
  lr.set_min_value(0.01);
  lr.set_max_value(0.1);
  return job;
}

v1::Job CountingJob(const std::string& job_id, const std::string& dir, int max_trials, int parallel,
                    int steps) {
  v1::Job job = TuningJob(job_id, dir, max_trials, parallel);
  job.clear_command();
  job.add_command("/bin/sh");
  job.add_command("-c");
  job.add_command(
      absl::StrFormat("echo launched >> launches; i=0; while [ $i -lt %d ]; do i=$((i+1)); "
                      "echo step=$i accuracy=0.$i; sleep 0.5; done",
                      steps));
  job.add_command("trainer");
  job.mutable_training_input()->set_scale_tier("BASIC");
  return job;
}

v1::Measurement AccuracyMeasurement(double accuracy) {
  v1::Measurement measurement;
  measurement.set_step(1);
  v1::Metric& metric = *measurement.add_metrics();
  metric.set_metric_id("accuracy");
  metric.set_value(accuracy);
  return measurement;
}

}  // namespace vernier::testing
