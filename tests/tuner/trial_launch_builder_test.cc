#include "tuner/trial_launch_builder.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"

namespace vernier::tuner {
namespace {

using ::testing::ElementsAre;
using ::testing::IsEmpty;

v1::ReplicaSpec Spec(const std::string& role, int index, int gpus) {
  v1::ReplicaSpec spec;
  spec.set_role(role);
  spec.set_index(index);
  spec.set_gpu_count(gpus);
  return spec;
}

// A job whose trials run one master (or chief), `workers` workers, `ps`
// parameter servers and `evaluators` evaluators, one GPU for the master
// and each worker.
v1::Job DistributedJob(int workers, int ps, int evaluators, const std::string& master_role) {
  v1::Job job;
  job.set_job_id("dist");
  job.set_job_dir("/runs");
  job.add_command("train");
  job.mutable_training_input()->set_scale_tier("CUSTOM");
  job.mutable_training_input()->set_worker_count(workers);
  *job.add_replica_specs() = Spec(master_role, 0, 1);
  for (int i = 0; i < workers; ++i) *job.add_replica_specs() = Spec("worker", i, 1);
  for (int i = 0; i < ps; ++i) *job.add_replica_specs() = Spec("ps", i, 0);
  for (int i = 0; i < evaluators; ++i) *job.add_replica_specs() = Spec("evaluator", i, 0);
  return job;
}

// Grants ports 5000, 5001, ... and GPUs 0, 1, ... in replica order.
ReplicaGrants SequentialGrants(const v1::Job& job) {
  ReplicaGrants grants;
  grants.server_grants_gpus = true;
  int next_gpu = 0;
  for (int i = 0; i < job.replica_specs_size(); ++i) {
    grants.ports.push_back(5000 + i);
    std::vector<int> gpus;
    for (int g = 0; g < job.replica_specs(i).gpu_count(); ++g) gpus.push_back(next_gpu++);
    grants.gpus.push_back(gpus);
  }
  return grants;
}

google::protobuf::Struct ParseJson(const std::string& json) {
  google::protobuf::Struct parsed;
  EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, &parsed).ok()) << json;
  return parsed;
}

std::vector<std::string> Strings(const google::protobuf::Value& list) {
  std::vector<std::string> strings;
  for (const google::protobuf::Value& value : list.list_value().values()) {
    strings.push_back(value.string_value());
  }
  return strings;
}

const google::protobuf::Value& Field(const google::protobuf::Struct& object,
                                     const std::string& name) {
  static const google::protobuf::Value kMissing;
  auto it = object.fields().find(name);
  EXPECT_NE(it, object.fields().end()) << "no field " << name;
  return it == object.fields().end() ? kMissing : it->second;
}

TEST(TrialLaunchBuilderTest, FlagsUseTheShortestExactForm) {
  v1::ParameterValue value;
  value.set_parameter_name("batch_size");
  value.set_double_value(32);
  EXPECT_EQ(ParameterFlag(value), "--batch_size=32");
  value.set_double_value(0.1);
  EXPECT_EQ(ParameterFlag(value), "--batch_size=0.1");
  value.set_double_value(1e-5);
  EXPECT_EQ(ParameterFlag(value), "--batch_size=1e-05");
  value.set_int_value(-3);
  EXPECT_EQ(ParameterFlag(value), "--batch_size=-3");
  value.set_string_value("adam");
  EXPECT_EQ(ParameterFlag(value), "--batch_size=adam");
}

TEST(TrialLaunchBuilderTest, MasterRunsTheAgentAroundTheTrainerWithItsFlags) {
  v1::Job job;
  job.set_job_id("sweep");
  job.set_job_dir("/runs");
  job.add_command("python3");
  job.add_command("train.py");
  job.mutable_training_input()->add_args("--epochs=2");
  v1::Study study;
  study.set_name("sweep");
  study.mutable_spec()->add_metrics()->set_metric_id("accuracy");
  v1::Trial trial;
  trial.set_id(7);
  v1::ParameterValue& lr = *trial.add_parameters();
  lr.set_parameter_name("lr");
  lr.set_double_value(0.25);
  LaunchSettings settings{"/bin/vernier-agent", "127.0.0.1:9", std::chrono::milliseconds(1500)};

  const scheduler::TrialLaunch launch = BuildTrialLaunch(job, study, trial, settings, 0);
  EXPECT_EQ(launch.trial_dir, "/runs/7");
  ASSERT_EQ(launch.replicas.size(), 1u);
  const scheduler::ReplicaLaunch& master = launch.replicas[0];
  EXPECT_EQ(master.role, "master");
  EXPECT_EQ(master.log_path, "/runs/7/logs/master-0.log");
  EXPECT_THAT(master.argv,
              ElementsAre("/bin/vernier-agent", "--server", "127.0.0.1:9", "--study", "sweep",
                          "--trial", "7", "--role", "master", "--index", "0", "--attempt", "0",
                          "--metric-tag", "accuracy", "--trial-dir", "/runs/7", "--grace-period-ms",
                          "1500", "--heartbeat-interval-ms", "5000", "--", "python3", "train.py",
                          "--epochs=2", "--lr=0.25", "--job-dir=/runs/7"));
  EXPECT_EQ(master.env.at("CLOUD_ML_JOB_ID"), "sweep");
}

TEST(TrialLaunchBuilderTest, TheServersTlsReachesTheAgentByPathsOnly) {
  v1::Job job;
  job.set_job_id("sweep");
  job.set_job_dir("/runs");
  job.add_command("train");
  v1::Study study;
  study.set_name("sweep");
  v1::Trial trial;
  trial.set_id(3);
  LaunchSettings settings{"/bin/vernier-agent", "10.0.0.5:7730"};
  settings.agent_tls = {.ca_path = "/certs/ca.pem",
                        .cert_path = "/certs/agent.pem",
                        .key_path = "/certs/agent.key",
                        .server_name = "gpu-head.example"};
  const std::vector<std::string> argv =
      BuildTrialLaunch(job, study, trial, settings, 0).replicas.at(0).argv;
  const auto separator = std::find(argv.begin(), argv.end(), "--");
  const std::vector<std::string> agent_flags(argv.begin(), separator);
  EXPECT_THAT(agent_flags,
              ::testing::IsSupersetOf({"--tls-ca", "/certs/ca.pem", "--tls-cert",
                                       "/certs/agent.pem", "--tls-key", "/certs/agent.key",
                                       "--tls-server-name", "gpu-head.example"}));
  const std::vector<std::string> plain =
      BuildTrialLaunch(job, study, trial, LaunchSettings{"/bin/vernier-agent", "h:1"}, 0)
          .replicas.at(0)
          .argv;
  for (const std::string& word : plain) EXPECT_FALSE(word.starts_with("--tls")) << word;
}

TEST(TrialLaunchBuilderTest, MetricRegexAndHeartbeatIntervalReachTheAgent) {
  v1::Job job;
  job.set_job_id("sweep");
  job.set_job_dir("/runs");
  job.add_command("train");
  job.mutable_training_input()->mutable_hyperparameters()->set_metric_regex(
      R"(acc (?P<accuracy>\S+))");
  v1::Study study;
  study.set_name("sweep");
  v1::Trial trial;
  trial.set_id(2);
  LaunchSettings settings{"/bin/vernier-agent", "127.0.0.1:9", std::chrono::milliseconds(1500),
                          std::chrono::milliseconds(250)};

  const scheduler::TrialLaunch launch = BuildTrialLaunch(job, study, trial, settings, 0);
  ASSERT_EQ(launch.replicas.size(), 1u);
  const std::vector<std::string>& argv = launch.replicas[0].argv;
  const auto separator = std::find(argv.begin(), argv.end(), "--");
  ASSERT_NE(separator, argv.end());
  EXPECT_THAT(std::vector<std::string>(separator - 4, separator + 2),
              ElementsAre("--heartbeat-interval-ms", "250", "--metric-regex",
                          R"(acc (?P<accuracy>\S+))", "--", "train"));
}

struct ReplicaCounts {
  int workers;
  int ps;
  int evaluators;
  std::string master_role;
};

class DistributedLaunchTest : public ::testing::TestWithParam<ReplicaCounts> {};

TEST_P(DistributedLaunchTest, EveryReplicaSeesTheClusterItsTaskAndItsGpus) {
  const ReplicaCounts counts = GetParam();
  v1::Job job = DistributedJob(counts.workers, counts.ps, counts.evaluators, counts.master_role);
  v1::Study study;
  study.set_name("dist");
  v1::Trial trial;
  trial.set_id(4);
  const ReplicaGrants grants = SequentialGrants(job);
  LaunchSettings settings{"/bin/vernier-agent", "127.0.0.1:9", std::chrono::milliseconds(1500)};

  const scheduler::TrialLaunch launch = BuildTrialLaunch(job, study, trial, settings, 1, grants);
  EXPECT_EQ(launch.attempt, 1);
  ASSERT_EQ(launch.replicas.size(),
            static_cast<size_t>(1 + counts.workers + counts.ps + counts.evaluators));
  std::vector<std::string> workers;
  for (int i = 0; i < counts.workers; ++i) workers.push_back(absl::StrCat("127.0.0.1:", 5001 + i));
  std::vector<std::string> ps;
  for (int i = 0; i < counts.ps; ++i) {
    ps.push_back(absl::StrCat("127.0.0.1:", 5001 + counts.workers + i));
  }
  for (size_t i = 0; i < launch.replicas.size(); ++i) {
    const scheduler::ReplicaLaunch& replica = launch.replicas[i];
    const v1::ReplicaSpec& spec = job.replica_specs(static_cast<int>(i));
    SCOPED_TRACE(absl::StrCat(spec.role(), "-", spec.index()));
    EXPECT_EQ(replica.role, spec.role());
    EXPECT_EQ(replica.index, spec.index());
    EXPECT_EQ(replica.gpu_count, spec.gpu_count());
    EXPECT_EQ(replica.gpus, grants.gpus[i]);
    EXPECT_EQ(replica.log_path,
              absl::StrCat("/runs/4/logs/", spec.role(), "-", spec.index(), ".log"));
    EXPECT_EQ(replica.argv.back(), "--job-dir=/runs/4");
    EXPECT_NE(std::find(replica.argv.begin(), replica.argv.end(), spec.role()), replica.argv.end());

    const google::protobuf::Struct tf_config = ParseJson(replica.env.at("TF_CONFIG"));
    const google::protobuf::Struct& cluster = Field(tf_config, "cluster").struct_value();
    EXPECT_THAT(Strings(Field(cluster, counts.master_role)), ElementsAre("127.0.0.1:5000"));
    EXPECT_EQ(cluster.fields().contains("worker"), counts.workers > 0);
    if (counts.workers > 0) {
      EXPECT_EQ(Strings(Field(cluster, "worker")), workers);
    }
    EXPECT_EQ(cluster.fields().contains("ps"), counts.ps > 0);
    if (counts.ps > 0) {
      EXPECT_EQ(Strings(Field(cluster, "ps")), ps);
    }
    EXPECT_FALSE(cluster.fields().contains("evaluator"));
    const google::protobuf::Struct& task = Field(tf_config, "task").struct_value();
    EXPECT_EQ(Field(task, "type").string_value(), spec.role());
    EXPECT_EQ(Field(task, "index").number_value(), spec.index());
    EXPECT_EQ(Field(task, "trial").string_value(), "4");
    EXPECT_EQ(Field(tf_config, "environment").string_value(), "cloud");
    EXPECT_EQ(Field(Field(tf_config, "job").struct_value(), "scaleTier").string_value(), "CUSTOM");

    EXPECT_EQ(replica.env.at("MASTER_ADDR"), "127.0.0.1");
    EXPECT_EQ(replica.env.at("MASTER_PORT"), "5000");
    EXPECT_EQ(replica.env.at("WORLD_SIZE"), absl::StrCat(1 + counts.workers));
    EXPECT_EQ(replica.env.at("CLOUD_ML_JOB_ID"), "dist");
    if (spec.role() == "worker") {
      EXPECT_EQ(replica.env.at("RANK"), absl::StrCat(spec.index() + 1));
      EXPECT_EQ(replica.env.at("LOCAL_RANK"), "0");
    } else if (spec.role() == counts.master_role) {
      EXPECT_EQ(replica.env.at("RANK"), "0");
    } else {
      EXPECT_FALSE(replica.env.contains("RANK"));
    }
    EXPECT_EQ(replica.env.at("CUDA_VISIBLE_DEVICES"), absl::StrJoin(grants.gpus[i], ","));
  }
}

INSTANTIATE_TEST_SUITE_P(
    ReplicaCounts, DistributedLaunchTest,
    ::testing::Values(ReplicaCounts{0, 0, 0, "master"}, ReplicaCounts{2, 1, 0, "master"},
                      ReplicaCounts{3, 2, 1, "chief"}, ReplicaCounts{1, 0, 2, "master"}),
    [](const ::testing::TestParamInfo<ReplicaCounts>& info) {
      return absl::StrCat(info.param.master_role, "_", info.param.workers, "w_", info.param.ps,
                          "ps_", info.param.evaluators, "e");
    });

TEST(TrialLaunchBuilderTest, ReplicaWithoutGpusSeesNoneWhenTheServerGrantsThem) {
  v1::Job job = DistributedJob(1, 1, 0, "master");
  v1::Study study;
  study.set_name("dist");
  v1::Trial trial;
  trial.set_id(1);
  const scheduler::TrialLaunch launch =
      BuildTrialLaunch(job, study, trial, LaunchSettings{}, 0, SequentialGrants(job));
  ASSERT_EQ(launch.replicas.size(), 3u);
  EXPECT_EQ(launch.replicas[0].env.at("CUDA_VISIBLE_DEVICES"), "0");
  EXPECT_EQ(launch.replicas[1].env.at("CUDA_VISIBLE_DEVICES"), "1");
  EXPECT_EQ(launch.replicas[2].env.at("CUDA_VISIBLE_DEVICES"), "");

  // Without a GPU inventory the machine's own setting is left alone.
  const scheduler::TrialLaunch plain = BuildTrialLaunch(job, study, trial, LaunchSettings{}, 0);
  EXPECT_FALSE(plain.replicas[2].env.contains("CUDA_VISIBLE_DEVICES"));
  EXPECT_THAT(plain.replicas[0].gpus, IsEmpty());
}

TEST(TrialLaunchBuilderTest, AReplicaWithAnImageRunsItsTrainerInAContainer) {
  v1::Job job = DistributedJob(1, 0, 0, "master");
  job.mutable_replica_specs(1)->set_image_uri("localhost/trainer:1");
  v1::Study study;
  study.set_name("dist");
  v1::Trial trial;
  trial.set_id(4);
  LaunchSettings settings{"/bin/vernier-agent", "127.0.0.1:9"};
  settings.podman_path = "/usr/bin/podman";
  const scheduler::TrialLaunch launch =
      BuildTrialLaunch(job, study, trial, settings, 2, SequentialGrants(job));
  ASSERT_EQ(launch.replicas.size(), 2u);
  // The master has no image: its trainer runs as before.
  const std::vector<std::string>& master = launch.replicas[0].argv;
  EXPECT_EQ(*(std::find(master.begin(), master.end(), "--") + 1), "train");
  const std::vector<std::string>& worker = launch.replicas[1].argv;
  const auto separator = std::find(worker.begin(), worker.end(), "--");
  ASSERT_NE(separator, worker.end());
  EXPECT_THAT(
      std::vector<std::string>(separator - 4, separator),
      ElementsAre("--container", "vernier-dist-t4-worker-0-a2", "--podman", "/usr/bin/podman"));
  const std::string command = absl::StrJoin(separator + 1, worker.end(), " ");
  EXPECT_THAT(command, ::testing::StartsWith(
                           "/usr/bin/podman run --rm --replace --name vernier-dist-t4-worker-0-a2 "
                           "--network host --init --volume /runs:/runs "));
  EXPECT_THAT(command, ::testing::HasSubstr("--env TF_CONFIG "));
  EXPECT_THAT(command, ::testing::HasSubstr("--device nvidia.com/gpu=1 "));
  EXPECT_THAT(command, ::testing::HasSubstr("--env CUDA_VISIBLE_DEVICES=0 "));
  EXPECT_THAT(command, ::testing::EndsWith(" localhost/trainer:1 train --job-dir=/runs/4"));
  // The podman client gets the values, to pass them in by name.
  EXPECT_EQ(launch.replicas[1].env.at("CUDA_VISIBLE_DEVICES"), "1");
}

TEST(TrialLaunchBuilderTest, OldJobsRunOneMasterWithoutGpus) {
  v1::Job job;
  job.set_job_id("old");
  const std::vector<v1::ReplicaSpec> specs = ReplicaSpecsOf(job);
  ASSERT_EQ(specs.size(), 1u);
  EXPECT_EQ(specs[0].role(), "master");
  EXPECT_EQ(specs[0].index(), 0);
  EXPECT_EQ(specs[0].gpu_count(), 0);
}

}  // namespace
TEST(TrialLaunchBuilderTest, ReplicasGetTheTrialsEnvironmentWithVernierVariablesOnTop) {
  v1::Job job = DistributedJob(1, 0, 0, "master");
  (*job.mutable_environment())["PATH"] = "/venv/bin:/usr/bin";
  (*job.mutable_environment())["SHARED"] = "from the job";
  (*job.mutable_replica_specs(1)->mutable_env())["SHARED"] = "the worker's own";
  (*job.mutable_replica_specs(1)->mutable_env())["ONLY_WORKER"] = "1";
  LaunchSettings settings;
  settings.agent_path = "/bin/vernier-agent";
  settings.inherited_env = {{"HOME", "/home/dora"}, {"PATH", "/server/bin"}};
  v1::Study study;
  study.set_name("dist");
  v1::Trial trial;
  trial.set_id(3);
  const scheduler::TrialLaunch launch =
      BuildTrialLaunch(job, study, trial, settings, 0, SequentialGrants(job));
  ASSERT_EQ(launch.replicas.size(), 2u);
  const auto& master = launch.replicas[0].env;
  const auto& worker = launch.replicas[1].env;
  EXPECT_EQ(master.at("PATH"), "/venv/bin:/usr/bin");
  EXPECT_EQ(master.at("HOME"), "/home/dora");
  EXPECT_EQ(master.at("SHARED"), "from the job");
  EXPECT_FALSE(master.contains("ONLY_WORKER"));
  EXPECT_EQ(worker.at("SHARED"), "the worker's own");
  EXPECT_EQ(worker.at("ONLY_WORKER"), "1");
  EXPECT_EQ(worker.at("CLOUD_ML_JOB_ID"), "dist");
  EXPECT_EQ(worker.at("RANK"), "1");
}

}  // namespace vernier::tuner
