#ifndef VERNIER_SCHEDULER_CONTAINER_COMMAND_H_
#define VERNIER_SCHEDULER_CONTAINER_COMMAND_H_

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/backend.h"
#include "scheduler/slurm/command_runner.h"

namespace vernier::scheduler {

// How a replica with an image (a role's imageUri) runs its trainer in a
// container with podman (docs/containers.md).
struct ContainerSpec {
  // The podman binary (absolute path).
  std::string podman_path;
  // The image, as podman names it (e.g. localhost/trainer:1).
  std::string image;
  // The container's name: ContainerName(...).
  std::string name;
  // Mounted read-write at the same path inside.
  std::string job_dir;
};

// The container name of one replica attempt, unique per job, trial, role,
// index and attempt, and within podman's name rules
// ([a-zA-Z0-9][a-zA-Z0-9_.-]*): vernier-JOB-tTRIAL-ROLE-INDEX-aATTEMPT, with
// any other character of the job id or role replaced by '_'. A cancel finds
// the container again by it.
std::string ContainerName(std::string_view job_id, int64_t trial_id, std::string_view role,
                          int index, int attempt);

// Whether a variable of the replica's environment is passed into its
// container. Not those that describe the host (PATH, PYTHONPATH,
// VIRTUAL_ENV, CONDA_PREFIX, LD_LIBRARY_PATH, HOME, USER, LOGNAME, SHELL,
// TMPDIR), for which the image keeps its own, nor the agent's credential
// file; CUDA_VISIBLE_DEVICES is renumbered (see ContainerCommand).
bool PassedIntoContainer(std::string_view name);

// The command that runs `command` in the container:
//   PODMAN run --rm --replace --name NAME --network host --init
//          -v JOB_DIR:JOB_DIR -e NAME ... [--device nvidia.com/gpu=N ...]
//          IMAGE COMMAND...
// Each of `env_names` that PassedIntoContainer is passed by name only, so
// that podman takes its value from its own environment and no value shows
// in `ps`. The granted GPUs `gpus` (host indexes) are exposed through CDI
// (nvidia-ctk's /etc/cdi/nvidia.yaml); inside, CUDA counts them from 0, so
// CUDA_VISIBLE_DEVICES is set to 0..k-1 when `set_cuda_visible_devices`
// (the replica had CUDA_VISIBLE_DEVICES on the host: "" when granted none).
std::vector<std::string> ContainerCommand(const ContainerSpec& container,
                                          const std::vector<std::string>& env_names,
                                          const std::vector<int>& gpus,
                                          bool set_cuda_visible_devices,
                                          const std::vector<std::string>& command);

// Turns a replica's launch (AGENT FLAGS... -- COMMAND...) into one whose
// trainer runs in the container: the command after "--" becomes
// ContainerCommand's, over every variable of the replica's environment and
// those the agent adds (CLOUD_ML_TRIAL_ID, CLOUD_ML_HP_METRIC_FILE), and
// the agent gets --container NAME --podman PODMAN before "--", to remove the
// container when it stops the trainer.
void RunReplicaInContainer(const ContainerSpec& container, ReplicaLaunch& replica);

// Removes the named containers at once, whatever they still run:
//   PODMAN rm --force --ignore --time 0 NAME...
// (at most 30 s). It runs again, after 250 ms and then 500 ms, when podman
// fails: a container caught between states as its trainer is killed
// ("container state improper") is removable a moment later. The last run's
// output, or why podman could not run.
absl::StatusOr<CommandOutput> ForceRemoveContainers(const std::string& podman_path,
                                                    const std::vector<std::string>& names);

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_CONTAINER_COMMAND_H_
