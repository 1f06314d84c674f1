#include "tuner/config/replica_spec_builder.h"

#include <gmock/gmock.h>
#include <google/protobuf/text_format.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "scheduler/local/local_admission.h"
#include "tuner/config/training_input_parser.h"

namespace vernier::config {
namespace {

using ::testing::ElementsAre;

v1::TrainingInput Input(const std::string& text) {
  v1::TrainingInput input;
  EXPECT_TRUE(google::protobuf::TextFormat::ParseFromString(text, &input)) << text;
  return input;
}

absl::StatusOr<std::vector<v1::ReplicaSpec>> Build(const v1::TrainingInput& input) {
  return BuildReplicaSpecs(input, MachineTypeCatalog::Default(),
                           ProtoPathLocator("training_input"));
}

std::vector<std::string> Names(const std::vector<v1::ReplicaSpec>& replicas) {
  std::vector<std::string> names;
  for (const v1::ReplicaSpec& replica : replicas) {
    names.push_back(absl::StrCat(replica.role(), "-", replica.index(), ":", replica.machine_type(),
                                 ":", replica.gpu_count()));
  }
  return names;
}

// An admission whose backend grants GPUs itself, with one node of `gpus`.
class AllocatingAdmission : public scheduler::Admission {
 public:
  explicit AllocatingAdmission(int gpus) : gpus_(gpus) {}
  absl::Status CheckCapacity(const std::vector<v1::ReplicaSpec>& replicas,
                             const scheduler::GangOwner&) override {
    asked = GpusPerReplica(replicas);
    for (int gpus : asked) {
      if (gpus > gpus_) {
        return absl::InvalidArgumentError(
            absl::StrCat("a replica asks for ", gpus, " GPUs; the largest node has ", gpus_));
      }
    }
    return absl::OkStatus();
  }
  bool GrantsGpus() const override { return false; }
  absl::StatusOr<scheduler::GangTicket> Request(const std::vector<int>&,
                                                const scheduler::GangOwner&) override {
    return absl::UnimplementedError("not in this test");
  }
  void Schedule() override {}
  bool IsGranted(scheduler::GangTicket) override { return false; }
  absl::StatusOr<scheduler::GangGrant> Grant(scheduler::GangTicket) override {
    return absl::UnimplementedError("not in this test");
  }
  absl::StatusOr<scheduler::GangTicket> Restore(const v1::TrialRun&,
                                                const scheduler::GangOwner&) override {
    return absl::UnimplementedError("not in this test");
  }
  void Release(scheduler::GangTicket) override {}
  std::optional<scheduler::GangWait> Waiting(std::string_view) override { return std::nullopt; }
  std::vector<int> asked;

 private:
  int gpus_;
};

// This machine's admission with `gpus` GPUs.
scheduler::LocalAdmission Local(int gpus) {
  std::vector<int> devices(gpus);
  for (int i = 0; i < gpus; ++i) devices[i] = i;
  return scheduler::LocalAdmission(devices, {}, [](int) { return true; });
}

TEST(ReplicaSpecBuilderTest, BasicIsOneStandardMaster) {
  absl::StatusOr<std::vector<v1::ReplicaSpec>> replicas =
      Build(Input(R"pb(scale_tier: "BASIC")pb"));
  ASSERT_TRUE(replicas.ok()) << replicas.status();
  ASSERT_THAT(Names(*replicas), ElementsAre("master-0:standard:0"));
  EXPECT_EQ((*replicas)[0].cpu_count(), 4);
  EXPECT_EQ((*replicas)[0].memory_mb(), 15 * 1024);
}

TEST(ReplicaSpecBuilderTest, BasicGpuHasOneK80) {
  absl::StatusOr<std::vector<v1::ReplicaSpec>> replicas =
      Build(Input(R"pb(scale_tier: "BASIC_GPU")pb"));
  ASSERT_TRUE(replicas.ok()) << replicas.status();
  ASSERT_THAT(Names(*replicas), ElementsAre("master-0:standard_gpu:1"));
  EXPECT_EQ((*replicas)[0].gpu_type(), "NVIDIA_TESLA_K80");
}

TEST(ReplicaSpecBuilderTest, PredefinedTiersExpandToAiPlatformsReplicaCounts) {
  absl::StatusOr<std::vector<v1::ReplicaSpec>> standard =
      Build(Input(R"pb(scale_tier: "STANDARD_1")pb"));
  ASSERT_TRUE(standard.ok()) << standard.status();
  EXPECT_THAT(Names(*standard),
              ElementsAre("master-0:complex_model_m:0", "worker-0:standard:0",
                          "worker-1:standard:0", "worker-2:standard:0", "worker-3:standard:0",
                          "ps-0:standard:0", "ps-1:standard:0", "ps-2:standard:0"));
  absl::StatusOr<std::vector<v1::ReplicaSpec>> premium =
      Build(Input(R"pb(scale_tier: "PREMIUM_1" use_chief_in_tf_config: true)pb"));
  ASSERT_TRUE(premium.ok()) << premium.status();
  ASSERT_EQ(premium->size(), 1u + 19 + 11);
  EXPECT_EQ((*premium)[0].role(), "chief");
  EXPECT_EQ((*premium)[19].role(), "worker");
  EXPECT_EQ((*premium)[19].index(), 18);
  EXPECT_EQ((*premium)[30].role(), "ps");
  EXPECT_EQ((*premium)[30].index(), 10);
}

TEST(ReplicaSpecBuilderTest, CustomTakesTypesCountsAcceleratorsAndEvaluators) {
  absl::StatusOr<std::vector<v1::ReplicaSpec>> replicas = Build(Input(R"pb(
    scale_tier: "CUSTOM"
    use_chief_in_tf_config: true
    master_type: "n1-standard-8"
    master_config { accelerator_config { count: 2 type: "NVIDIA_TESLA_T4" } }
    worker_type: "complex_model_m_gpu"
    worker_count: 2
    parameter_server_type: "n1-highmem-2"
    parameter_server_count: 1
    evaluator_type: "a2-highgpu-1g"
    evaluator_count: 1
  )pb"));
  ASSERT_TRUE(replicas.ok()) << replicas.status();
  EXPECT_THAT(Names(*replicas),
              ElementsAre("chief-0:n1-standard-8:2", "worker-0:complex_model_m_gpu:4",
                          "worker-1:complex_model_m_gpu:4", "ps-0:n1-highmem-2:0",
                          "evaluator-0:a2-highgpu-1g:1"));
  EXPECT_EQ((*replicas)[0].gpu_type(), "NVIDIA_TESLA_T4");
  EXPECT_EQ((*replicas)[1].gpu_type(), "NVIDIA_TESLA_K80");
  EXPECT_EQ((*replicas)[4].gpu_type(), "NVIDIA_TESLA_A100");
  EXPECT_EQ(GpusPerReplica(*replicas), (std::vector<int>{2, 4, 4, 0, 1}));
}

struct BuilderErrorCase {
  std::string name;
  std::string input;
  std::string message;
};

class ReplicaSpecBuilderErrorTest : public ::testing::TestWithParam<BuilderErrorCase> {};

TEST_P(ReplicaSpecBuilderErrorTest, NamesTheField) {
  absl::StatusOr<std::vector<v1::ReplicaSpec>> replicas = Build(Input(GetParam().input));
  ASSERT_FALSE(replicas.ok());
  EXPECT_EQ(replicas.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(replicas.status().message()), GetParam().message);
}

INSTANTIATE_TEST_SUITE_P(
    Errors, ReplicaSpecBuilderErrorTest,
    ::testing::ValuesIn(
        std::vector<BuilderErrorCase>{
            {"BasicTpu", R"pb(scale_tier: "BASIC_TPU")pb",
             "training_input.scale_tier: BASIC_TPU needs Cloud TPUs, which Vernier does not run; "
             "use "
             "BASIC_GPU, or CUSTOM with acceleratorConfig for GPUs"},
            {"TierNotInTheCatalog", R"pb(scale_tier: "ULTRA")pb",
             "training_input.scale_tier: scale tier \"ULTRA\" is not offered by this server's "
             "machine "
             "types; offered: BASIC, BASIC_GPU, PREMIUM_1, STANDARD_1, CUSTOM"},
            {"UnknownMasterType", R"pb(scale_tier: "CUSTOM" master_type: "n1-standard-7")pb",
             "training_input.master_type: unknown machine type \"n1-standard-7\"; did you mean "
             "\"n1-standard-4\"?"},
            {"UnknownWorkerType",
             R"pb(scale_tier: "CUSTOM"
                  master_type: "standard"
                  worker_type: "complex_modl_m"
                  worker_count: 1)pb",
             "training_input.worker_type: unknown machine type \"complex_modl_m\"; did you mean "
             "\"complex_model_m\"?"},
            {"UnknownEvaluatorType",
             R"pb(scale_tier: "CUSTOM"
                  master_type: "standard"
                  evaluator_type: "tpu"
                  evaluator_count: 1)pb",
             "training_input.evaluator_type: unknown machine type \"tpu\"; known: a2-highgpu-1g, "
             "a2-highgpu-2g, a2-highgpu-4g, a2-highgpu-8g, complex_model_l, complex_model_l_gpu, "
             "complex_model_l_v100, complex_model_m, complex_model_m_gpu, complex_model_m_p100, "
             "complex_model_m_v100, complex_model_s, large_model, large_model_v100, n1-highcpu-16, "
             "n1-highcpu-32, n1-highcpu-64, n1-highcpu-96, n1-highmem-16, n1-highmem-2, "
             "n1-highmem-32, n1-highmem-4, n1-highmem-64, n1-highmem-8, n1-highmem-96, "
             "n1-standard-16, n1-standard-32, n1-standard-4, n1-standard-64, n1-standard-8, "
             "n1-standard-96, standard, standard_gpu, standard_p100, standard_v100"},
            {"AcceleratorsOnFixedGpuType",
             R"pb(scale_tier: "CUSTOM"
                  master_type: "standard_v100"
                  master_config { accelerator_config { count: 1 type: "NVIDIA_TESLA_V100" } })pb",
             "training_input.master_config.accelerator_config: machine type \"standard_v100\" has "
             "1 "
             "NVIDIA_TESLA_V100 GPU(s) built in and takes no acceleratorConfig; remove it or use a "
             "type without GPUs such as n1-standard-8"},
            {"AcceleratorsOnLegacyCpuType",
             R"pb(scale_tier: "CUSTOM"
                  master_type: "standard"
                  master_config { accelerator_config { count: 1 type: "NVIDIA_TESLA_T4" } })pb",
             "training_input.master_config.accelerator_config: machine type \"standard\" takes no "
             "GPUs; use a Compute Engine type such as n1-standard-8 for acceleratorConfig"},
            {"AcceleratorCountNotAccepted",
             R"pb(scale_tier: "CUSTOM"
                  master_type: "n1-standard-8"
                  worker_type: "n1-standard-4"
                  worker_count: 2
                  worker_config { accelerator_config { count: 3 type: "NVIDIA_TESLA_T4" } })pb",
             "training_input.worker_config.accelerator_config.count: machine type "
             "\"n1-standard-4\" "
             "takes 1, 2 or 4 GPUs, got 3"},
            {"AcceleratorTypeWithoutCount",
             R"pb(scale_tier: "CUSTOM"
                  master_type: "n1-standard-8"
                  master_config { accelerator_config { type: "NVIDIA_TESLA_T4" } })pb",
             "training_input.master_config.accelerator_config.count: machine type "
             "\"n1-standard-8\" "
             "takes 1, 2, 4 or 8 GPUs, got 0"},
            {"UnknownAcceleratorType",
             R"pb(scale_tier: "CUSTOM"
                  master_type: "n1-standard-8"
                  master_config { accelerator_config { count: 1 type: "TPU_V2" } })pb",
             "training_input.master_config.accelerator_config.type: unknown accelerator type "
             "\"TPU_V2\"; known: NVIDIA_TESLA_K80, NVIDIA_TESLA_P4, NVIDIA_TESLA_P100, "
             "NVIDIA_TESLA_T4, NVIDIA_TESLA_V100, NVIDIA_TESLA_A100"},
            {"AcceleratorsOutsideCustom",
             R"pb(scale_tier: "BASIC"
                  master_config { accelerator_config { count: 1 type: "NVIDIA_TESLA_T4" } })pb",
             "training_input.master_config.accelerator_config: acceleratorConfig is only used with "
             "the CUSTOM scale tier; a predefined tier brings its own GPUs"},
            {"TooManyReplicas",
             R"pb(scale_tier: "CUSTOM"
                  master_type: "standard"
                  worker_type: "standard"
                  worker_count: 5000)pb",
             "training_input.worker_count: a trial of 5001 replicas is more than the 1024 Vernier "
             "runs per trial"},
        }),
    [](const ::testing::TestParamInfo<BuilderErrorCase>& info) { return info.param.name; });

const char kThreeReplicasOfTwoGpus[] = R"pb(
  scale_tier: "CUSTOM"
  master_type: "n1-standard-8"
  master_config { accelerator_config { count: 2 type: "NVIDIA_TESLA_T4" } }
  worker_type: "n1-standard-8"
  worker_count: 2
  worker_config { accelerator_config { count: 2 type: "NVIDIA_TESLA_T4" } }
)pb";

absl::Status PlanOn(scheduler::Admission& admission, const std::string& input) {
  return PlanReplicas(Input(input), MachineTypeCatalog::Default(), admission,
                      scheduler::GangOwner{"ada", "job1"}, ProtoPathLocator("training_input"))
      .status();
}

absl::Status PlanOn(scheduler::LocalAdmission admission, const std::string& input) {
  return PlanOn(static_cast<scheduler::Admission&>(admission), input);
}

TEST(ReplicaSpecBuilderTest, LocalTrialsMustFitTheServersGpus) {
  EXPECT_TRUE(PlanOn(Local(6), kThreeReplicasOfTwoGpus).ok());
  EXPECT_TRUE(PlanOn(Local(0), R"pb(scale_tier: "STANDARD_1")pb").ok());

  absl::Status total = PlanOn(Local(4), kThreeReplicasOfTwoGpus);
  EXPECT_EQ(total.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(total.message(),
            "training_input.master_config.accelerator_config.count: a trial needs 6 GPUs in all, "
            "its replicas together, but this server has 4 GPUs (`vernier serve --gpus` sets "
            "them); every replica of a trial runs here and they start together");

  absl::Status one = PlanOn(Local(1), kThreeReplicasOfTwoGpus);
  EXPECT_EQ(one.message(),
            "training_input.master_config.accelerator_config.count: master-0 needs 2 GPUs "
            "(n1-standard-8) but this server has 1 GPU (`vernier serve --gpus` sets them)");

  absl::Status fixed = PlanOn(Local(0), R"pb(scale_tier: "CUSTOM"
                                             master_type: "standard"
                                             worker_type: "complex_model_l_gpu"
                                             worker_count: 1)pb");
  EXPECT_EQ(fixed.message(),
            "training_input.worker_type: worker-0 needs 8 GPUs (complex_model_l_gpu) but this "
            "server has 0 GPUs (`vernier serve --gpus` sets them)");

  absl::Status tier = PlanOn(Local(0), R"pb(scale_tier: "BASIC_GPU")pb");
  EXPECT_EQ(tier.message(),
            "training_input.scale_tier: master-0 needs 1 GPU (standard_gpu) but this server has "
            "0 GPUs (`vernier serve --gpus` sets them)");
}

TEST(ReplicaSpecBuilderTest, AnAdmissionWhoseBackendGrantsGpusJudgesCapacity) {
  AllocatingAdmission slurm(4);
  EXPECT_TRUE(PlanOn(slurm, kThreeReplicasOfTwoGpus).ok());
  EXPECT_EQ(slurm.asked, (std::vector<int>{2, 2, 2}));

  absl::Status status = PlanOn(slurm, R"pb(scale_tier: "CUSTOM"
                                           master_type: "standard"
                                           worker_type: "a2-highgpu-8g"
                                           worker_count: 1)pb");
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(status.message(),
            "training_input.worker_type: a replica asks for 8 GPUs; the largest node has 4");
}

TEST(ReplicaSpecBuilderTest, ServerErrorsPointAtTheYamlLine) {
  const std::string path = ::testing::TempDir() + "/replica_spec_builder_test.yaml";
  std::ofstream(path) << "trainingInput:\n"
                         "  scaleTier: CUSTOM\n"
                         "  masterType: n1-standard-8\n"
                         "  workerType: n1-standard-4\n"
                         "  workerCount: 2\n"
                         "  workerConfig:\n"
                         "    acceleratorConfig:\n"
                         "      count: 3\n"
                         "      type: NVIDIA_TESLA_T4\n";
  absl::StatusOr<v1::TrainingInput> input = ParseTrainingInputFile(path);
  ASSERT_TRUE(input.ok()) << input.status();
  absl::StatusOr<std::vector<v1::ReplicaSpec>> replicas = Build(*input);
  ASSERT_FALSE(replicas.ok());
  const absl::Status located = LocateInTrainingInputFile(replicas.status(), path);
  EXPECT_EQ(located.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(located.message(),
            path +
                ":8:7: trainingInput.workerConfig.acceleratorConfig.count: machine type "
                "\"n1-standard-4\" takes 1, 2 or 4 GPUs, got 3");
  // A field the file does not hold takes its nearest parent's line.
  EXPECT_EQ(LocateInTrainingInputFile(
                absl::InvalidArgumentError("training_input.evaluator_type: nope"), path)
                .message(),
            path + ":1:1: trainingInput.evaluatorType: nope");
  // Anything else is left alone.
  const absl::Status other = absl::NotFoundError("training_input.x: gone");
  EXPECT_EQ(LocateInTrainingInputFile(other, path), other);
  const absl::Status unlocated = absl::InvalidArgumentError("job_dir must be absolute");
  EXPECT_EQ(LocateInTrainingInputFile(unlocated, path), unlocated);
}

}  // namespace
}  // namespace vernier::config
