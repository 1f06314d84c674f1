// The job model end to end: the real `vernier serve` expands trainingInput
// into replicas at submit, refuses impossible requests with INVALID_ARGUMENT
// (over gRPC, and through the CLI at the YAML line), reads an operator's
// machine types, and `jobs describe` shows the replicas.
#include <gmock/gmock.h>
#include <grpcpp/grpcpp.h>
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/job_client.h"
#include "tests/support/server_process.h"
#include "tests/support/subprocess.h"
#include "vernier/v1/job_service.grpc.pb.h"

namespace vernier::testing {
namespace {

using ::testing::HasSubstr;

const std::vector<std::string> kSleeper = {"python3", "-c", "import time; time.sleep(120)"};

v1::Job JobWith(const std::string& job_id, const std::string& dir,
                const std::function<void(v1::TrainingInput&)>& set) {
  v1::Job job;
  job.set_job_id(job_id);
  job.set_job_dir(dir + "/" + job_id);
  for (const std::string& argument : kSleeper) job.add_command(argument);
  v1::TrainingInput& input = *job.mutable_training_input();
  v1::ParameterSpec* param = input.mutable_hyperparameters()->add_params();
  param->set_parameter_name("lr");
  param->set_type(v1::ParameterSpec::DOUBLE);
  param->set_min_value(0.01);
  param->set_max_value(0.1);
  set(input);
  return job;
}

grpc::Status SubmitOverGrpc(const ServerProcess& server, const v1::Job& job, v1::Job* created) {
  grpc::ClientContext context;
  v1::SubmitTrainingJobRequest request;
  *request.mutable_job() = job;
  return server.JobStub()->SubmitTrainingJob(&context, request, created);
}

void Cancel(const ServerProcess& server, const std::string& job_id) {
  CommandResult cancel = RunCommand(Cli(server, {"jobs", "cancel", job_id}));
  EXPECT_EQ(cancel.exit_code, 0) << cancel.err;
  WaitForJob(server, job_id, Ended);
}

class JobModelTest : public ::testing::Test {
 protected:
  TempDir dir_;
};

TEST_F(JobModelTest, ImpossibleRequestsAreInvalidArgumentOverGrpc) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  struct Case {
    std::function<void(v1::TrainingInput&)> set;
    std::string message;
  };
  const std::vector<Case> cases = {
      {[](v1::TrainingInput& input) {
         input.set_scale_tier("CUSTOM");
         input.set_master_type("n1-standard-8");
         input.set_worker_count(2);
       },
       "training_input.worker_count: a positive count needs a worker machine type, got 2"},
      {[](v1::TrainingInput& input) {
         input.set_scale_tier("CUSTOM");
         input.set_master_type("n1-standard-8");
         input.set_evaluator_type("n1-standard-4");
       },
       "training_input.evaluator_type: an evaluator machine type needs a positive evaluator "
       "count (how many each trial runs), got none"},
      {[](v1::TrainingInput& input) { input.set_master_type("complex_model_x"); },
       "training_input.master_type: unknown machine type \"complex_model_x\"; did you mean "
       "\"complex_model_l\"?"},
      {[](v1::TrainingInput& input) { input.set_scale_tier("CUSTOM"); },
       "training_input.scale_tier: the CUSTOM scale tier needs a master machine type"},
      {[](v1::TrainingInput& input) { input.set_scale_tier("BASIC_TPU"); },
       "training_input.scale_tier: BASIC_TPU needs Cloud TPUs, which Vernier does not run; use "
       "BASIC_GPU, or CUSTOM with acceleratorConfig for GPUs"},
      {[](v1::TrainingInput& input) {
         input.set_master_type("a2-highgpu-1g");
         input.mutable_master_config()->mutable_accelerator_config()->set_count(1);
         input.mutable_master_config()->mutable_accelerator_config()->set_type("NVIDIA_TESLA_A100");
       },
       "training_input.master_config.accelerator_config: machine type \"a2-highgpu-1g\" has 1 "
       "NVIDIA_TESLA_A100 GPU(s) built in and takes no acceleratorConfig; remove it or use a "
       "type without GPUs such as n1-standard-8"},
      {[](v1::TrainingInput& input) {
         input.set_master_type("n1-standard-8");
         input.mutable_master_config()->mutable_accelerator_config()->set_count(2);
         input.mutable_master_config()->mutable_accelerator_config()->set_type("NVIDIA_TESLA_T4");
       },
       "training_input.master_config.accelerator_config.count: master-0 needs 2 GPUs "
       "(n1-standard-8) but this server has 0 GPUs (`vernier serve --gpus` sets them)"},
      // Early stopping compares trials on one objective: refused, never
      // applied silently to the first of several.
      {[](v1::TrainingInput& input) {
         v1::HyperparameterSpec& hyperparameters = *input.mutable_hyperparameters();
         for (const auto& [id, goal] : {std::pair{"accuracy", v1::MetricSpec::MAXIMIZE},
                                        std::pair{"latency_ms", v1::MetricSpec::MINIMIZE}}) {
           v1::MetricSpec* metric = hyperparameters.add_metrics();
           metric->set_metric_id(id);
           metric->set_goal(goal);
         }
         hyperparameters.set_enable_trial_early_stopping(true);
         hyperparameters.mutable_early_stopping()->set_policy(v1::EarlyStoppingSpec::ASHA);
       },
       "training_input.hyperparameters.enable_trial_early_stopping: early stopping compares "
       "trials on one objective, and this study has 2 (a trial behind on one may lead on "
       "another); disable early stopping or keep one objective"},
      {[](v1::TrainingInput& input) {
         v1::HyperparameterSpec& hyperparameters = *input.mutable_hyperparameters();
         hyperparameters.set_hyperparameter_metric_tag("accuracy");
         v1::MetricSpec* metric = hyperparameters.add_metrics();
         metric->set_metric_id("accuracy");
         metric->set_goal(v1::MetricSpec::MAXIMIZE);
       },
       "training_input.hyperparameters.hyperparameter_metric_tag: give either metrics or goal "
       "with hyperparameterMetricTag, not both (metrics names every objective with its own "
       "goal)"},
  };
  for (const Case& test : cases) {
    v1::Job created;
    const grpc::Status status =
        SubmitOverGrpc(server, JobWith("impossible", dir_.path(), test.set), &created);
    EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT) << test.message;
    EXPECT_EQ(status.error_message(), test.message);
  }
  // Nothing was stored.
  CommandResult list = RunCommand(Cli(server, {"jobs", "list"}));
  EXPECT_EQ(list.out, "No jobs.\n");
}

TEST_F(JobModelTest, TheCliPointsServerSideErrorsAtTheYamlLine) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  const std::string config = dir_.path() + "/hp.yaml";
  WriteFile(config,
            "trainingInput:\n"
            "  scaleTier: CUSTOM\n"
            "  masterType: n1-standard-8\n"
            "  workerType: n1-standard-4\n"
            "  workerCount: 2\n"
            "  workerConfig:\n"
            "    acceleratorConfig: {count: 1, type: NVIDIA_TESLA_T4}\n"
            "  hyperparameters:\n"
            "    params:\n"
            "      - {parameterName: lr, type: DOUBLE, minValue: 0.01, maxValue: 0.1}\n");
  CommandResult submit =
      RunCommand(Submit(server, "gpus", config, dir_.path() + "/runs", kSleeper));
  EXPECT_EQ(submit.exit_code, 1);
  EXPECT_EQ(submit.err, "error: INVALID_ARGUMENT: " + config +
                            ":7:25: trainingInput.workerConfig.acceleratorConfig.count: worker-0 "
                            "needs 1 GPU (n1-standard-4) but this server has 0 GPUs (`vernier "
                            "serve --gpus` sets them)\n");

  // What the CLI checks itself names the line too.
  WriteFile(config,
            "trainingInput:\n"
            "  scaleTier: CUSTOM\n"
            "  masterType: n1-standard-8\n"
            "  workerCount: 2\n"
            "  hyperparameters:\n"
            "    params:\n"
            "      - {parameterName: lr, type: DOUBLE, minValue: 0.01, maxValue: 0.1}\n");
  submit = RunCommand(Submit(server, "workers", config, dir_.path() + "/runs", kSleeper));
  EXPECT_EQ(submit.exit_code, 1);
  EXPECT_THAT(submit.err, HasSubstr(config + ":4:3: trainingInput.workerCount: a positive count "
                                             "needs a worker machine type, got 2"));
}

TEST_F(JobModelTest, SubmitStoresTheReplicasAndDescribeShowsThem) {
  ServerProcess server(dir_.path() + "/data");
  server.Start();
  v1::Job created;
  const grpc::Status status = SubmitOverGrpc(server,
                                             JobWith("standard", dir_.path(),
                                                     [](v1::TrainingInput& input) {
                                                       input.set_scale_tier("STANDARD_1");
                                                       input.set_use_chief_in_tf_config(true);
                                                     }),
                                             &created);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(created.replica_specs_size(), 8);
  EXPECT_EQ(created.replica_specs(0).role(), "chief");
  EXPECT_EQ(created.replica_specs(0).machine_type(), "complex_model_m");
  EXPECT_EQ(created.replica_specs(7).role(), "ps");
  EXPECT_EQ(created.replica_specs(7).index(), 2);
  EXPECT_EQ(GetJob(server, "standard").job().replica_specs_size(), 8);

  CommandResult describe = RunCommand(Cli(server, {"jobs", "describe", "standard"}));
  ASSERT_EQ(describe.exit_code, 0) << describe.err;
  EXPECT_THAT(describe.out, HasSubstr("Replicas of each trial:\n"
                                      "  REPLICA      MACHINE_TYPE     CPUS   MEMORY  GPUS\n"
                                      "  chief-0      complex_model_m    16  14.4 GB  -\n"
                                      "  worker-0..3  standard            4    15 GB  -\n"
                                      "  ps-0..2      standard            4    15 GB  -\n"));
  Cancel(server, "standard");
}

TEST_F(JobModelTest, AnOperatorsMachineTypesReplaceTheBuiltInOnes) {
  const std::string types = dir_.path() + "/types.yaml";
  WriteFile(types,
            "acceleratorTypes: [NVIDIA_H100]\n"
            "machineTypes:\n"
            "  box: {cpus: 2, memoryGb: 4}\n"
            "  gpu-box: {cpus: 2, memoryGb: 4, acceleratorCounts: [1, 2]}\n"
            "scaleTiers:\n"
            "  BASIC: {masterType: box}\n");
  ServerProcess server(dir_.path() + "/data", 0, {"--machine-types", types});
  server.Start();
  v1::Job created;
  grpc::Status status =
      SubmitOverGrpc(server, JobWith("basic", dir_.path(), [](auto&) {}), &created);
  ASSERT_TRUE(status.ok()) << status.error_message();
  ASSERT_EQ(created.replica_specs_size(), 1);
  EXPECT_EQ(created.replica_specs(0).machine_type(), "box");
  EXPECT_EQ(created.replica_specs(0).memory_mb(), 4096);
  Cancel(server, "basic");

  status = SubmitOverGrpc(
      server,
      JobWith("standard", dir_.path(),
              [](v1::TrainingInput& input) { input.set_master_type("n1-standard-8"); }),
      &created);
  EXPECT_EQ(status.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_EQ(status.error_message(),
            "training_input.master_type: unknown machine type \"n1-standard-8\"; known: box, "
            "gpu-box");
  status = SubmitOverGrpc(
      server,
      JobWith("gpu", dir_.path(),
              [](v1::TrainingInput& input) {
                input.set_master_type("gpu-box");
                input.mutable_master_config()->mutable_accelerator_config()->set_count(1);
                input.mutable_master_config()->mutable_accelerator_config()->set_type(
                    "NVIDIA_TESLA_T4");
              }),
      &created);
  EXPECT_EQ(status.error_message(),
            "training_input.master_config.accelerator_config.type: unknown accelerator type "
            "\"NVIDIA_TESLA_T4\"; known: NVIDIA_H100");
}

TEST_F(JobModelTest, ABrokenMachineTypesFileStopsTheServerAtStart) {
  const std::string types = dir_.path() + "/types.yaml";
  WriteFile(types, "machineTypes:\n  box: {cpus: 2}\n");
  CommandResult serve = RunCommand({BinaryPath("vernier"), "serve", "--port", "0", "--data-dir",
                                    dir_.path() + "/data", "--machine-types", types});
  EXPECT_EQ(serve.exit_code, 1);
  EXPECT_THAT(serve.err, HasSubstr(types + ":2:8: machineTypes.box.memoryGb: is required"));

  serve = RunCommand({BinaryPath("vernier"), "serve", "--port", "0", "--data-dir",
                      dir_.path() + "/data", "--machine-types", dir_.path() + "/missing.yaml"});
  EXPECT_EQ(serve.exit_code, 1);
  EXPECT_THAT(serve.err, HasSubstr("missing.yaml\" does not exist"));
}

}  // namespace
}  // namespace vernier::testing
