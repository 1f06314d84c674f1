#ifndef VERNIER_SCHEDULER_NVML_GPU_SOURCE_H_
#define VERNIER_SCHEDULER_NVML_GPU_SOURCE_H_

#include <vector>

#include "absl/status/statusor.h"
#include "scheduler/gpu_inventory.h"

namespace vernier::scheduler {

// This machine's GPUs through NVML, loaded with dlopen (never linked, so
// that Vernier runs where no NVIDIA driver is installed): nvmlInit_v2,
// nvmlDeviceGetCount_v2, the UUID of each device, nvmlShutdown.
// Unavailable when the library is absent or NVML fails to start.
// `library`: the driver's, found as dlopen finds it; tests name a fake.
absl::StatusOr<std::vector<GpuDevice>> ListNvmlGpus(const char* library = "libnvidia-ml.so.1");

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_NVML_GPU_SOURCE_H_
