#include "scheduler/container_command.h"

#include <algorithm>
#include <chrono>
#include <array>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"

namespace vernier::scheduler {
namespace {

constexpr std::array<std::string_view, 12> kHostOnlyVariables = {
    "PATH",    "PYTHONPATH", "VIRTUAL_ENV", "CONDA_PREFIX",    "LD_LIBRARY_PATH",
    "HOME",    "USER",       "LOGNAME",     "SHELL",           "TMPDIR",
    "XDG_RUNTIME_DIR", "VERNIER_AGENT_TOKEN_FILE"};

constexpr std::string_view kCudaVisibleDevices = "CUDA_VISIBLE_DEVICES";

// The variables the agent adds when it starts the trainer.
constexpr std::array<std::string_view, 2> kAgentVariables = {"CLOUD_ML_TRIAL_ID",
                                                             "CLOUD_ML_HP_METRIC_FILE"};

std::string NamePart(std::string_view text) {
  std::string part(text);
  for (char& c : part) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '.') c = '_';
  }
  return part;
}

}  // namespace

std::string ContainerName(std::string_view job_id, int64_t trial_id, std::string_view role,
                          int index, int attempt) {
  return absl::StrCat("vernier-", NamePart(job_id), "-t", trial_id, "-", NamePart(role), "-", index,
                      "-a", attempt);
}

bool PassedIntoContainer(std::string_view name) {
  if (name.empty() || name == kCudaVisibleDevices) return false;
  return std::find(kHostOnlyVariables.begin(), kHostOnlyVariables.end(), name) ==
         kHostOnlyVariables.end();
}

std::vector<std::string> ContainerCommand(const ContainerSpec& container,
                                          const std::vector<std::string>& env_names,
                                          const std::vector<int>& gpus,
                                          bool set_cuda_visible_devices,
                                          const std::vector<std::string>& command) {
  std::vector<std::string> argv = {container.podman_path,
                                   "run",
                                   "--rm",
                                   "--replace",
                                   "--name",
                                   container.name,
                                   "--network",
                                   "host",
                                   "--init",
                                   "--volume",
                                   absl::StrCat(container.job_dir, ":", container.job_dir)};
  for (const std::string& name : env_names) {
    if (!PassedIntoContainer(name)) continue;
    argv.push_back("--env");
    argv.push_back(name);
  }
  for (int gpu : gpus) {
    argv.push_back("--device");
    argv.push_back(absl::StrCat("nvidia.com/gpu=", gpu));
  }
  if (set_cuda_visible_devices) {
    std::string visible;
    for (size_t i = 0; i < gpus.size(); ++i) absl::StrAppend(&visible, i == 0 ? "" : ",", i);
    argv.push_back("--env");
    argv.push_back(absl::StrCat(std::string(kCudaVisibleDevices), "=", visible));
  }
  argv.push_back(container.image);
  argv.insert(argv.end(), command.begin(), command.end());
  return argv;
}

void RunReplicaInContainer(const ContainerSpec& container, ReplicaLaunch& replica) {
  const auto separator = std::find(replica.argv.begin(), replica.argv.end(), "--");
  const std::vector<std::string> command(
      separator == replica.argv.end() ? replica.argv.end() : separator + 1, replica.argv.end());
  std::vector<std::string> env_names;
  for (const auto& [name, value] : replica.env) env_names.push_back(name);
  for (std::string_view name : kAgentVariables) {
    if (!replica.env.contains(std::string(name))) env_names.emplace_back(name);
  }
  const std::vector<std::string> wrapped =
      ContainerCommand(container, env_names, replica.gpus,
                       replica.env.contains(std::string(kCudaVisibleDevices)), command);
  std::vector<std::string> argv(replica.argv.begin(), separator);
  argv.insert(argv.end(), {"--container", container.name, "--podman", container.podman_path, "--"});
  argv.insert(argv.end(), wrapped.begin(), wrapped.end());
  replica.argv = std::move(argv);
}

absl::StatusOr<CommandOutput> ForceRemoveContainers(const std::string& podman_path,
                                                    const std::vector<std::string>& names) {
  constexpr std::chrono::milliseconds kTimeout{30000};
  constexpr int kAttempts = 3;
  constexpr std::chrono::milliseconds kPause{250};
  std::vector<std::string> argv = {podman_path, "rm", "--force", "--ignore", "--time", "0"};
  argv.insert(argv.end(), names.begin(), names.end());
  return RunCommandUntilItSucceeds(argv, {}, kTimeout, kAttempts, kPause);
}

}  // namespace vernier::scheduler
