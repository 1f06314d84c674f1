#ifndef VERNIER_SCHEDULER_GPU_INVENTORY_H_
#define VERNIER_SCHEDULER_GPU_INVENTORY_H_

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace vernier::scheduler {

// One GPU as the driver numbers it (nvidia-smi's and NVML's index).
struct GpuDevice {
  int index = 0;
  // "GPU-..."; empty where the source does not tell.
  std::string uuid;

  bool operator==(const GpuDevice&) const = default;
};

// The GPUs `vernier serve` grants to replicas (device indexes, as
// CUDA_VISIBLE_DEVICES names them), and where the list came from.
struct GpuInventory {
  std::vector<int> gpus;
  // "--gpus", "NVML", "nvidia-smi", or "none found".
  std::string source;
  // Why each source that was tried gave nothing, and any filtering applied.
  std::string detail;
};

// One way of listing this machine's GPUs. An error (Unavailable, NotFound)
// means the source is absent or failed here; the next one is tried.
struct GpuSource {
  std::string name;
  std::function<absl::StatusOr<std::vector<GpuDevice>>()> list;
};

// The operator's `--gpus`: "none", or distinct non-negative indexes
// separated by commas. InvalidArgument naming the bad entry otherwise.
absl::StatusOr<std::vector<int>> ParseGpuList(std::string_view text);

// The indexes of `devices` that an inherited CUDA_VISIBLE_DEVICES leaves
// visible, in its order: indexes, or UUIDs ("GPU-...", a unique prefix is
// enough, as for CUDA) mapped through `devices`. Empty: none. As in CUDA,
// a negative index ends the list (so "-1" hides every GPU). An index or UUID
// this machine lacks, a MIG device, a duplicate or anything else is
// InvalidArgument.
absl::StatusOr<std::vector<int>> FilterByCudaVisibleDevices(const std::vector<GpuDevice>& devices,
                                                            std::string_view cuda_visible_devices);

// The inventory: `gpus_flag` as given when not empty (trusted: that is how
// tests get fake GPUs); otherwise the first of `sources` that answers, then
// CUDA_VISIBLE_DEVICES (`cuda_visible_devices`, nullptr when unset) applied.
absl::StatusOr<GpuInventory> TakeGpuInventory(std::string_view gpus_flag,
                                              const char* cuda_visible_devices,
                                              const std::vector<GpuSource>& sources);

// NVML (dlopen of libnvidia-ml.so.1), then nvidia-smi.
std::vector<GpuSource> LocalGpuSources();

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_GPU_INVENTORY_H_
