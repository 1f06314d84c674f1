#include "scheduler/container_command.h"

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace vernier::scheduler {
namespace {

using ::testing::Contains;
using ::testing::ElementsAre;
using ::testing::Not;

ContainerSpec Spec() {
  return {.podman_path = "/usr/bin/podman",
          .image = "localhost/trainer:1",
          .name = "vernier-job1-t3-master-0-a0",
          .job_dir = "/data/jobs/job1"};
}

TEST(ContainerNameTest, NamesJobTrialRoleIndexAndAttemptWithinPodmansRules) {
  EXPECT_EQ(ContainerName("job1", 3, "worker", 2, 1), "vernier-job1-t3-worker-2-a1");
  // Characters podman refuses in a name become '_'.
  EXPECT_EQ(ContainerName("my job/1", 12, "mas:ter", 0, 0), "vernier-my_job_1-t12-mas_ter-0-a0");
  EXPECT_NE(ContainerName("job1", 3, "worker", 2, 1), ContainerName("job1", 3, "worker", 2, 2));
}

TEST(PassedIntoContainerTest, KeepsTheImagesOwnHostVariables) {
  for (const char* host_only :
       {"PATH", "PYTHONPATH", "VIRTUAL_ENV", "CONDA_PREFIX", "LD_LIBRARY_PATH", "HOME", "USER",
        "LOGNAME", "SHELL", "TMPDIR", "XDG_RUNTIME_DIR", "VERNIER_AGENT_TOKEN_FILE",
        "CUDA_VISIBLE_DEVICES"}) {
    EXPECT_FALSE(PassedIntoContainer(host_only)) << host_only;
  }
  for (const char* passed : {"TF_CONFIG", "MASTER_ADDR", "RANK", "CLOUD_ML_JOB_ID",
                             "CLOUD_ML_TRIAL_ID", "CLOUD_ML_HP_METRIC_FILE", "WANDB_API_KEY"}) {
    EXPECT_TRUE(PassedIntoContainer(passed)) << passed;
  }
}

TEST(ContainerCommandTest, RunsTheCommandInTheImageWithTheJobDirHostNetworkAndVariablesByName) {
  EXPECT_THAT(ContainerCommand(Spec(), {"TF_CONFIG", "PATH", "SECRET_TOKEN"}, {}, false,
                               {"/app/train", "--lr=0.1"}),
              ElementsAre("/usr/bin/podman", "run", "--rm", "--replace", "--name",
                          "vernier-job1-t3-master-0-a0", "--network", "host", "--init", "--volume",
                          "/data/jobs/job1:/data/jobs/job1", "--env", "TF_CONFIG", "--env",
                          "SECRET_TOKEN", "localhost/trainer:1", "/app/train", "--lr=0.1"));
}

TEST(ContainerCommandTest, ExposesOnlyTheGrantedGpusCountedFromZeroInside) {
  const std::vector<std::string> argv =
      ContainerCommand(Spec(), {"CUDA_VISIBLE_DEVICES"}, {2, 5}, true, {"train"});
  EXPECT_THAT(argv, Contains("nvidia.com/gpu=2"));
  EXPECT_THAT(argv, Contains("nvidia.com/gpu=5"));
  EXPECT_THAT(argv, Contains("CUDA_VISIBLE_DEVICES=0,1"));
  EXPECT_THAT(argv, Not(Contains("CUDA_VISIBLE_DEVICES")));
}

TEST(ContainerCommandTest, AReplicaGrantedNoGpuSeesNone) {
  const std::vector<std::string> argv = ContainerCommand(Spec(), {}, {}, true, {"train"});
  EXPECT_THAT(argv, Contains("CUDA_VISIBLE_DEVICES="));
  EXPECT_THAT(argv, Not(Contains("--device")));
  // Without GPU grants, nothing about CUDA is set.
  EXPECT_THAT(ContainerCommand(Spec(), {}, {}, false, {"train"}),
              Not(Contains("CUDA_VISIBLE_DEVICES=")));
}

TEST(RunReplicaInContainerTest, WrapsTheTrainerAfterTheSeparatorAndTellsTheAgentTheContainer) {
  ReplicaLaunch replica;
  replica.argv = {"/bin/vernier-agent", "--trial", "3", "--", "/app/train", "--job-dir=/d/3"};
  replica.env = {{"TF_CONFIG", "{}"}, {"PATH", "/usr/bin"}, {"CUDA_VISIBLE_DEVICES", "1"}};
  replica.gpus = {1};
  RunReplicaInContainer(Spec(), replica);
  EXPECT_THAT(replica.argv,
              ElementsAre("/bin/vernier-agent", "--trial", "3", "--container",
                          "vernier-job1-t3-master-0-a0", "--podman", "/usr/bin/podman", "--",
                          "/usr/bin/podman", "run", "--rm", "--replace", "--name",
                          "vernier-job1-t3-master-0-a0", "--network", "host", "--init", "--volume",
                          "/data/jobs/job1:/data/jobs/job1", "--env", "TF_CONFIG", "--env",
                          "CLOUD_ML_TRIAL_ID", "--env", "CLOUD_ML_HP_METRIC_FILE", "--device",
                          "nvidia.com/gpu=1", "--env", "CUDA_VISIBLE_DEVICES=0",
                          "localhost/trainer:1", "/app/train", "--job-dir=/d/3"));
  // The host's environment stays the podman client's: it passes the values.
  EXPECT_EQ(replica.env.at("PATH"), "/usr/bin");
}

}  // namespace
}  // namespace vernier::scheduler
