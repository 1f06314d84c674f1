#include "scheduler/nvidia_smi_gpu_source.h"

#include <stdlib.h>
#include <sys/stat.h>

#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/support/subprocess.h"

namespace vernier::scheduler {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

TEST(NvidiaSmiGpuSourceTest, ReadsIndexesAndUuids) {
  absl::StatusOr<std::vector<GpuDevice>> devices = ParseNvidiaSmiGpus(
      "0, GPU-5c4f2a0e-1b2c-3d4e-5f60-718293a4b5c6\n"
      "1, GPU-6d5e3b1f-2c3d-4e5f-6071-8293a4b5c6d7\n");
  ASSERT_TRUE(devices.ok()) << devices.status();
  EXPECT_THAT(*devices, ElementsAre(GpuDevice{0, "GPU-5c4f2a0e-1b2c-3d4e-5f60-718293a4b5c6"},
                                    GpuDevice{1, "GPU-6d5e3b1f-2c3d-4e5f-6071-8293a4b5c6d7"}));
}

TEST(NvidiaSmiGpuSourceTest, ReadsIndexesAloneAndNoGpus) {
  EXPECT_THAT(*ParseNvidiaSmiGpus("0\n1\r\n\n"), ElementsAre(GpuDevice{0, ""}, GpuDevice{1, ""}));
  EXPECT_THAT(*ParseNvidiaSmiGpus(""), IsEmpty());
}

TEST(NvidiaSmiGpuSourceTest, RefusesOutputThatIsNoGpuList) {
  absl::StatusOr<std::vector<GpuDevice>> devices = ParseNvidiaSmiGpus(
      "0, GPU-a\nNVIDIA-SMI has failed because it couldn't communicate with the NVIDIA driver\n");
  EXPECT_EQ(devices.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(devices.status().message(),
              HasSubstr("nvidia-smi output line 2 \"NVIDIA-SMI has failed"));
  EXPECT_EQ(ParseNvidiaSmiGpus("-1, GPU-a").status().code(), absl::StatusCode::kInvalidArgument);
}

// Runs ListNvidiaSmiGpus with PATH holding only a fake nvidia-smi.
class FakeNvidiaSmiTest : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* path = getenv("PATH");
    saved_path_ = path != nullptr ? path : "";
    setenv("PATH", (dir_.path() + ":/bin:/usr/bin").c_str(), 1);
  }
  void TearDown() override { setenv("PATH", saved_path_.c_str(), 1); }

  void WriteFake(const std::string& script) {
    const std::string path = dir_.path() + "/nvidia-smi";
    std::ofstream(path) << "#!/bin/sh\n" << script;
    chmod(path.c_str(), 0755);
  }

  testing::TempDir dir_;
  std::string saved_path_;
};

TEST_F(FakeNvidiaSmiTest, ListsWhatNvidiaSmiPrints) {
  WriteFake(
      "[ \"$*\" = \"--query-gpu=index,uuid --format=csv,noheader\" ] || exit 3\n"
      "echo '0, GPU-aaaa'\necho '1, GPU-bbbb'\n");
  absl::StatusOr<std::vector<GpuDevice>> devices = ListNvidiaSmiGpus();
  ASSERT_TRUE(devices.ok()) << devices.status();
  EXPECT_THAT(*devices, ElementsAre(GpuDevice{0, "GPU-aaaa"}, GpuDevice{1, "GPU-bbbb"}));
}

TEST_F(FakeNvidiaSmiTest, AFailingNvidiaSmiIsUnavailable) {
  WriteFake("echo 'NVIDIA-SMI has failed' >&2\nexit 9\n");
  absl::StatusOr<std::vector<GpuDevice>> devices = ListNvidiaSmiGpus();
  EXPECT_EQ(devices.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(devices.status().message(), HasSubstr("exited with status 9"));
}

TEST_F(FakeNvidiaSmiTest, AMissingNvidiaSmiIsUnavailable) {
  setenv("PATH", dir_.path().c_str(), 1);
  absl::StatusOr<std::vector<GpuDevice>> devices = ListNvidiaSmiGpus();
  EXPECT_EQ(devices.status().code(), absl::StatusCode::kUnavailable);
  EXPECT_THAT(devices.status().message(), HasSubstr("nvidia-smi is not on the PATH"));
}

}  // namespace
}  // namespace vernier::scheduler
