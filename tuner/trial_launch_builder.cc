#include "tuner/trial_launch_builder.h"

#include <charconv>
#include <map>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "google/protobuf/struct.pb.h"
#include "google/protobuf/util/json_util.h"
#include "scheduler/container_command.h"
#include "tuner/replica_environment.h"

namespace vernier::tuner {
namespace {

std::string ShortestDouble(double value) {
  char buffer[64];
  auto [end, error] = std::to_chars(buffer, buffer + sizeof(buffer), value);
  return std::string(buffer, end);
}

bool IsMasterRole(const std::string& role) { return role == "master" || role == "chief"; }

// Replicas that take part in PyTorch's process group.
bool HasRank(const std::string& role) { return IsMasterRole(role) || role == "worker"; }

int PortOf(const ReplicaGrants& grants, size_t replica) {
  return replica < grants.ports.size() ? grants.ports[replica] : 0;
}

std::vector<std::string> ReplicaAddresses(const std::vector<v1::ReplicaSpec>& specs,
                                          const ReplicaGrants& grants) {
  std::vector<std::string> addresses;
  for (size_t i = 0; i < specs.size(); ++i) {
    addresses.push_back(absl::StrCat(grants.host, ":", PortOf(grants, i)));
  }
  return addresses;
}

// TF_CONFIG's "cluster": every role's addresses by index. Evaluators are not
// part of the cluster, as on AI Platform.
google::protobuf::Value ClusterValue(const std::vector<v1::ReplicaSpec>& specs,
                                     const std::vector<std::string>& addresses) {
  std::map<std::string, std::map<int, std::string>> by_role;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (specs[i].role() == "evaluator") continue;
    by_role[specs[i].role()][specs[i].index()] = addresses[i];
  }
  google::protobuf::Value cluster;
  google::protobuf::Struct& fields = *cluster.mutable_struct_value();
  for (const auto& [role, members] : by_role) {
    google::protobuf::ListValue& list = *(*fields.mutable_fields())[role].mutable_list_value();
    for (const auto& [index, address] : members) list.add_values()->set_string_value(address);
  }
  return cluster;
}

// TF_CONFIG's "job": the training input in trainingInput's JSON names.
google::protobuf::Value TrainingInputValue(const v1::TrainingInput& input) {
  std::string json;
  google::protobuf::Value value;
  if (!google::protobuf::util::MessageToJsonString(input, &json).ok() ||
      !google::protobuf::util::JsonStringToMessage(json, &value).ok()) {
    value.mutable_struct_value();
  }
  return value;
}

std::string TfConfig(const google::protobuf::Value& cluster, const v1::ReplicaSpec& spec,
                     int64_t trial_id, const google::protobuf::Value& job) {
  google::protobuf::Struct config;
  auto& fields = *config.mutable_fields();
  fields["cluster"] = cluster;
  google::protobuf::Struct& task = *fields["task"].mutable_struct_value();
  (*task.mutable_fields())["type"].set_string_value(spec.role());
  (*task.mutable_fields())["index"].set_number_value(spec.index());
  (*task.mutable_fields())["trial"].set_string_value(absl::StrCat(trial_id));
  fields["job"] = job;
  fields["environment"].set_string_value("cloud");
  std::string json;
  if (!google::protobuf::util::MessageToJsonString(config, &json).ok()) return "{}";
  return json;
}

// The agent's TLS flags: paths, never the keys' contents.
void AppendAgentTlsFlags(const tls::ClientTlsOptions& tls, std::vector<std::string>& argv) {
  if (!tls.enabled()) return;
  const std::pair<const char*, const std::string*> flags[] = {{"--tls-ca", &tls.ca_path},
                                                              {"--tls-cert", &tls.cert_path},
                                                              {"--tls-key", &tls.key_path},
                                                              {"--tls-server-name", &tls.server_name}};
  for (const auto& [flag, value] : flags) {
    if (value->empty()) continue;
    argv.push_back(flag);
    argv.push_back(*value);
  }
}

}  // namespace

std::string ParameterFlag(const v1::ParameterValue& value) {
  std::string text;
  switch (value.value_case()) {
    case v1::ParameterValue::kDoubleValue:
      text = ShortestDouble(value.double_value());
      break;
    case v1::ParameterValue::kIntValue:
      text = absl::StrCat(value.int_value());
      break;
    case v1::ParameterValue::kStringValue:
      text = value.string_value();
      break;
    case v1::ParameterValue::VALUE_NOT_SET:
      break;
  }
  return absl::StrCat("--", value.parameter_name(), "=", text);
}

std::vector<v1::ReplicaSpec> ReplicaSpecsOf(const v1::Job& job) {
  if (!job.replica_specs().empty()) {
    return {job.replica_specs().begin(), job.replica_specs().end()};
  }
  v1::ReplicaSpec master;
  master.set_role("master");
  return {master};
}

scheduler::TrialLaunch BuildTrialLaunch(const v1::Job& job, const v1::Study& study,
                                        const v1::Trial& trial, const LaunchSettings& settings,
                                        int attempt, const ReplicaGrants& grants) {
  scheduler::TrialLaunch launch;
  launch.job_id = job.job_id();
  launch.study_name = study.name();
  launch.owner = job.owner();
  launch.trial_id = trial.id();
  launch.attempt = attempt;
  launch.job_dir = job.job_dir();
  launch.trial_dir = absl::StrCat(job.job_dir(), "/", trial.id());

  const std::vector<v1::ReplicaSpec> specs = ReplicaSpecsOf(job);
  const std::vector<std::string> addresses = ReplicaAddresses(specs, grants);
  const google::protobuf::Value cluster = ClusterValue(specs, addresses);
  const google::protobuf::Value job_value = TrainingInputValue(job.training_input());
  int master = 0;
  int world_size = 0;
  for (size_t i = 0; i < specs.size(); ++i) {
    if (IsMasterRole(specs[i].role())) master = static_cast<int>(i);
    if (HasRank(specs[i].role())) ++world_size;
  }
  const int master_port = PortOf(grants, master);

  const std::string metric_tag =
      study.spec().metrics().empty() ? "" : study.spec().metrics(0).metric_id();
  const std::string& metric_regex = job.training_input().hyperparameters().metric_regex();
  for (size_t i = 0; i < specs.size(); ++i) {
    const v1::ReplicaSpec& spec = specs[i];
    scheduler::ReplicaLaunch replica;
    replica.role = spec.role();
    replica.index = spec.index();
    replica.gpu_count = spec.gpu_count();
    if (i < grants.gpus.size()) replica.gpus = grants.gpus[i];
    replica.working_dir = job.working_dir().empty() ? launch.trial_dir : job.working_dir();
    replica.log_path =
        absl::StrCat(launch.trial_dir, "/logs/", spec.role(), "-", spec.index(), ".log");
    replica.argv = {settings.agent_path,
                    "--server",
                    settings.server_address,
                    "--study",
                    study.name(),
                    "--trial",
                    absl::StrCat(trial.id()),
                    "--role",
                    spec.role(),
                    "--index",
                    absl::StrCat(spec.index()),
                    "--attempt",
                    absl::StrCat(attempt),
                    "--metric-tag",
                    metric_tag,
                    "--trial-dir",
                    launch.trial_dir,
                    "--grace-period-ms",
                    absl::StrCat(settings.grace_period.count()),
                    "--heartbeat-interval-ms",
                    absl::StrCat(settings.heartbeat_interval.count())};
    if (!metric_regex.empty()) {
      replica.argv.push_back("--metric-regex");
      replica.argv.push_back(metric_regex);
    }
    AppendAgentTlsFlags(settings.agent_tls, replica.argv);
    replica.argv.push_back("--");
    for (const std::string& word : job.command()) replica.argv.push_back(word);
    for (const std::string& arg : job.training_input().args()) replica.argv.push_back(arg);
    for (const v1::ParameterValue& value : trial.parameters()) {
      replica.argv.push_back(ParameterFlag(value));
    }
    replica.argv.push_back(absl::StrCat("--job-dir=", launch.trial_dir));

    replica.env = ReplicaEnvironment(settings.inherited_env, job, spec);
    replica.env["CLOUD_ML_JOB_ID"] = job.job_id();
    replica.env["TF_CONFIG"] = TfConfig(cluster, spec, trial.id(), job_value);
    replica.env["MASTER_ADDR"] = grants.host;
    replica.env["MASTER_PORT"] = absl::StrCat(master_port);
    replica.env["WORLD_SIZE"] = absl::StrCat(world_size);
    if (HasRank(spec.role())) {
      // PyTorch on AI Platform: the master is rank 0, worker i is rank i + 1.
      replica.env["RANK"] = absl::StrCat(IsMasterRole(spec.role()) ? 0 : spec.index() + 1);
      replica.env["LOCAL_RANK"] = absl::StrCat(0);
    }
    if (grants.server_grants_gpus || !replica.gpus.empty()) {
      replica.env["CUDA_VISIBLE_DEVICES"] = absl::StrJoin(replica.gpus, ",");
    }
    if (!spec.image_uri().empty()) {
      scheduler::RunReplicaInContainer(
          {.podman_path = settings.podman_path,
           .image = spec.image_uri(),
           .name = scheduler::ContainerName(job.job_id(), trial.id(), spec.role(), spec.index(),
                                            attempt),
           .job_dir = job.job_dir()},
          replica);
    }
    launch.replicas.push_back(std::move(replica));
  }
  return launch;
}

}  // namespace vernier::tuner
