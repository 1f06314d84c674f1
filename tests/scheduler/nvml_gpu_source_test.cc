#include "scheduler/nvml_gpu_source.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace vernier::scheduler {
namespace {

using ::testing::ContainsRegex;

TEST(NvmlGpuSourceTest, AnswersOrSaysWhyNot) {
  // Where no NVIDIA driver is installed NVML is unavailable, and says so;
  // where one is, it lists GPUs numbered from 0.
  absl::StatusOr<std::vector<GpuDevice>> devices = ListNvmlGpus();
  if (!devices.ok()) {
    EXPECT_EQ(devices.status().code(), absl::StatusCode::kUnavailable);
    EXPECT_THAT(std::string(devices.status().message()), ContainsRegex("nvidia-ml|nvml"));
    return;
  }
  for (size_t i = 0; i < devices->size(); ++i) EXPECT_EQ((*devices)[i].index, static_cast<int>(i));
}

}  // namespace
}  // namespace vernier::scheduler
