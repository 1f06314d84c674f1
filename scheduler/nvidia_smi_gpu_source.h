#ifndef VERNIER_SCHEDULER_NVIDIA_SMI_GPU_SOURCE_H_
#define VERNIER_SCHEDULER_NVIDIA_SMI_GPU_SOURCE_H_

#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/gpu_inventory.h"

namespace vernier::scheduler {

// The command run, whose output ParseNvidiaSmiGpus reads.
inline constexpr char kNvidiaSmiQuery[] = "nvidia-smi --query-gpu=index,uuid --format=csv,noheader";

// This machine's GPUs as `nvidia-smi` lists them. Unavailable when it is
// not on the PATH or fails (no driver).
absl::StatusOr<std::vector<GpuDevice>> ListNvidiaSmiGpus();

// Reads kNvidiaSmiQuery's output: one "INDEX, UUID" (or "INDEX") line per
// GPU. InvalidArgument naming the line otherwise.
absl::StatusOr<std::vector<GpuDevice>> ParseNvidiaSmiGpus(std::string_view output);

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_NVIDIA_SMI_GPU_SOURCE_H_
