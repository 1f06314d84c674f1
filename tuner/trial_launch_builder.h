#ifndef VERNIER_TUNER_TRIAL_LAUNCH_BUILDER_H_
#define VERNIER_TUNER_TRIAL_LAUNCH_BUILDER_H_

#include <chrono>
#include <map>
#include <string>
#include <vector>

#include "scheduler/backend.h"
#include "tls/tls_options.h"
#include "vernier/v1/job.pb.h"
#include "vernier/v1/study.pb.h"

namespace vernier::tuner {

struct LaunchSettings {
  std::string agent_path;
  // Where agents reach the service, e.g. 127.0.0.1:7730.
  std::string server_address;
  std::chrono::milliseconds grace_period{10000};
  // How often agents send heartbeats; well inside the service's agent timeout.
  std::chrono::milliseconds heartbeat_interval{5000};
  // How agents dial the service over TLS: --tls-ca, --tls-server-name and,
  // under mutual TLS, --tls-cert and --tls-key (paths only); off: nothing.
  tls::ClientTlsOptions agent_tls{};
  // What replicas take from the server's environment (InheritedVariables).
  std::map<std::string, std::string> inherited_env{};
  // The podman that runs replicas with an image (imageUri); empty: none.
  std::string podman_path{};
};

// The trainer's flag for one hyperparameter: --name=value, numbers in their
// shortest exact form (a DISCRETE 32 is "32", not "32.0").
std::string ParameterFlag(const v1::ParameterValue& value);

// The replicas every trial of `job` runs: its replica_specs, or one master
// without GPUs for a job stored before they existed.
std::vector<v1::ReplicaSpec> ReplicaSpecsOf(const v1::Job& job);

// What a trial's replicas were granted, in ReplicaSpecsOf order.
struct ReplicaGrants {
  // Where the replicas listen (the local backend runs them all here).
  std::string host = "127.0.0.1";
  // One per replica; a missing entry or 0: no port reserved.
  std::vector<int> ports;
  // One per replica: the GPU device indexes granted to it.
  std::vector<std::vector<int>> gpus;
  // This server grants GPUs: a replica without any then sees
  // CUDA_VISIBLE_DEVICES="" rather than every GPU of the machine.
  bool server_grants_gpus = false;
};

// What the scheduler starts for one trial: one replica per ReplicaSpecsOf,
//   AGENT --server ... --study ... --trial N --role ROLE --index I ...
//         -- COMMAND ARGS --name=value ... --job-dir=JOB_DIR/N
// (with --metric-regex when the job has a metricRegex, and the agent's TLS
// flags --tls-ca, --tls-cert, --tls-key, --tls-server-name when the
// service uses TLS), its log at
// JOB_DIR/N/logs/ROLE-I.log, and the trial's environment
// (ReplicaEnvironment) with the variables of a replica on AI Platform on
// top: TF_CONFIG (cluster, task, job, environment), MASTER_ADDR,
// MASTER_PORT, WORLD_SIZE, RANK, LOCAL_RANK, CUDA_VISIBLE_DEVICES and
// CLOUD_ML_JOB_ID (the agent adds CLOUD_ML_TRIAL_ID and
// CLOUD_ML_HP_METRIC_FILE). A retry (attempt > 0) keeps the job dir, so
// the trainer resumes from its checkpoint. A replica whose spec has an
// image_uri runs its trainer in a container (scheduler::RunReplicaInContainer).
scheduler::TrialLaunch BuildTrialLaunch(const v1::Job& job, const v1::Study& study,
                                        const v1::Trial& trial, const LaunchSettings& settings,
                                        int attempt, const ReplicaGrants& grants = {});

}  // namespace vernier::tuner

#endif  // VERNIER_TUNER_TRIAL_LAUNCH_BUILDER_H_
