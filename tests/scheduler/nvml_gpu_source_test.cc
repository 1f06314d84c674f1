#include "scheduler/nvml_gpu_source.h"

#include <stdlib.h>

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/subprocess.h"

namespace vernier::scheduler {
namespace {

using ::testing::ContainsRegex;
using ::testing::ElementsAre;
using ::testing::HasSubstr;

// The fake NVML that tests/CMakeLists.txt builds.
class FakeNvmlTest : public ::testing::Test {
 protected:
  void TearDown() override {
    unsetenv("FAKE_NVML_UUIDS");
    unsetenv("FAKE_NVML_INIT_ERROR");
  }

  const std::string library_ = testing::BinaryPath("fake_nvml/libnvidia-ml.so.1");
};

TEST_F(FakeNvmlTest, ListsEveryGpuWithItsUuid) {
  setenv("FAKE_NVML_UUIDS", "GPU-0123,GPU-4567", 1);
  absl::StatusOr<std::vector<GpuDevice>> devices = ListNvmlGpus(library_.c_str());
  ASSERT_TRUE(devices.ok()) << devices.status();
  EXPECT_THAT(*devices, ElementsAre(GpuDevice{0, "GPU-0123"}, GpuDevice{1, "GPU-4567"}));
}

TEST_F(FakeNvmlTest, AFailedInitIsUnavailable) {
  setenv("FAKE_NVML_INIT_ERROR", "9", 1);
  absl::StatusOr<std::vector<GpuDevice>> devices = ListNvmlGpus(library_.c_str());
  EXPECT_EQ(devices.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(devices.status().message(), HasSubstr("nvmlInit_v2 failed with NVML error 9"));
}

TEST(NvmlGpuSourceTest, AMissingLibraryIsUnavailable) {
  absl::StatusOr<std::vector<GpuDevice>> devices = ListNvmlGpus("/nonexistent/libnvidia-ml.so.1");
  EXPECT_EQ(devices.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(devices.status().message(), HasSubstr("/nonexistent/libnvidia-ml.so.1"));
}

TEST(NvmlGpuSourceTest, ALibraryWithoutNvmlIsUnavailable) {
  absl::StatusOr<std::vector<GpuDevice>> devices = ListNvmlGpus("libm.so.6");
  EXPECT_EQ(devices.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(devices.status().message(), HasSubstr("libm.so.6 lacks nvmlInit_v2"));
}

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
