#include "scheduler/gpu_inventory.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace vernier::scheduler {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;

const std::vector<GpuDevice> kFourGpus = {
    {0, "GPU-aaaa1111"}, {1, "GPU-bbbb2222"}, {2, "GPU-bbbc3333"}, {3, "GPU-dddd4444"}};

GpuSource Answering(std::string name, std::vector<GpuDevice> devices) {
  return GpuSource{std::move(name), [devices] { return devices; }};
}

GpuSource Absent(std::string name, std::string why) {
  return GpuSource{std::move(name), [why]() -> absl::StatusOr<std::vector<GpuDevice>> {
                     return absl::UnavailableError(why);
                   }};
}

TEST(GpuInventoryTest, ParsesAnOperatorList) {
  EXPECT_THAT(*ParseGpuList("0,1,2,3"), ElementsAre(0, 1, 2, 3));
  EXPECT_THAT(*ParseGpuList(" 3, 1 "), ElementsAre(3, 1));
  EXPECT_THAT(*ParseGpuList("none"), IsEmpty());
  EXPECT_THAT(*ParseGpuList("NONE"), IsEmpty());
}

TEST(GpuInventoryTest, RefusesBadOperatorLists) {
  absl::StatusOr<std::vector<int>> letters = ParseGpuList("0,x");
  EXPECT_EQ(letters.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(letters.status().message(),
              HasSubstr("--gpus \"0,x\": \"x\" is not a GPU index; give indexes such as 0,1,2,3"));
  absl::StatusOr<std::vector<int>> twice = ParseGpuList("1,2,1");
  EXPECT_EQ(twice.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(twice.status().message(), HasSubstr("GPU 1 is listed twice"));
  absl::StatusOr<std::vector<int>> negative = ParseGpuList("-1");
  EXPECT_EQ(negative.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(negative.status().message(), HasSubstr("GPU index -1 is negative"));
  EXPECT_EQ(ParseGpuList("0,,1").status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(ParseGpuList("1.5").status().code(), absl::StatusCode::kInvalidArgument);
}

TEST(GpuInventoryTest, CudaVisibleDevicesKeepsOnlyTheListedIndexesInItsOrder) {
  EXPECT_THAT(*FilterByCudaVisibleDevices(kFourGpus, "2,0"), ElementsAre(2, 0));
  EXPECT_THAT(*FilterByCudaVisibleDevices(kFourGpus, " 1 "), ElementsAre(1));
  EXPECT_THAT(*FilterByCudaVisibleDevices(kFourGpus, ""), IsEmpty());
  // As in CUDA, a negative index ends the list.
  EXPECT_THAT(*FilterByCudaVisibleDevices(kFourGpus, "-1"), IsEmpty());
  EXPECT_THAT(*FilterByCudaVisibleDevices(kFourGpus, "3,-1,0"), ElementsAre(3));
}

TEST(GpuInventoryTest, CudaVisibleDevicesUuidsMapToIndexes) {
  EXPECT_THAT(*FilterByCudaVisibleDevices(kFourGpus, "GPU-dddd4444,GPU-aaaa1111"),
              ElementsAre(3, 0));
  // A unique prefix is enough, as for CUDA.
  EXPECT_THAT(*FilterByCudaVisibleDevices(kFourGpus, "GPU-bbbb"), ElementsAre(1));
  absl::StatusOr<std::vector<int>> ambiguous = FilterByCudaVisibleDevices(kFourGpus, "GPU-bbb");
  EXPECT_EQ(ambiguous.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(ambiguous.status().message(), HasSubstr("matches several GPUs' UUIDs"));
  absl::StatusOr<std::vector<int>> unknown = FilterByCudaVisibleDevices(kFourGpus, "GPU-ffff");
  EXPECT_EQ(unknown.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(unknown.status().message(),
              HasSubstr("CUDA_VISIBLE_DEVICES names GPU-ffff, which is none of this machine's GPUs "
                        "(GPU-aaaa1111, GPU-bbbb2222"));
  absl::StatusOr<std::vector<int>> no_uuids =
      FilterByCudaVisibleDevices({{0, ""}, {1, ""}}, "GPU-aaaa1111");
  EXPECT_THAT(no_uuids.status().message(), HasSubstr("their UUIDs are unknown"));
}

TEST(GpuInventoryTest, CudaVisibleDevicesRefusesWhatItCannotGrant) {
  absl::StatusOr<std::vector<int>> missing = FilterByCudaVisibleDevices(kFourGpus, "1,7");
  EXPECT_EQ(missing.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(missing.status().message(),
              HasSubstr("CUDA_VISIBLE_DEVICES names GPU 7, but this machine's GPUs are 0,1,2,3"));
  absl::StatusOr<std::vector<int>> mig = FilterByCudaVisibleDevices(kFourGpus, "MIG-1234");
  EXPECT_EQ(mig.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(mig.status().message(), HasSubstr("MIG device MIG-1234"));
  absl::StatusOr<std::vector<int>> garbage = FilterByCudaVisibleDevices(kFourGpus, "0,gpu1");
  EXPECT_THAT(garbage.status().message(), HasSubstr("\"gpu1\" is neither a GPU index nor"));
  absl::StatusOr<std::vector<int>> twice = FilterByCudaVisibleDevices(kFourGpus, "1,GPU-bbbb2222");
  EXPECT_THAT(twice.status().message(), HasSubstr("names GPU 1 twice"));
}

TEST(GpuInventoryTest, TheOperatorListOverridesDiscovery) {
  absl::StatusOr<GpuInventory> inventory =
      TakeGpuInventory("0,1,2,3", "7", {Answering("NVML", {{0, ""}})});
  ASSERT_TRUE(inventory.ok()) << inventory.status();
  EXPECT_THAT(inventory->gpus, ElementsAre(0, 1, 2, 3));
  EXPECT_EQ(inventory->source, "--gpus");
  EXPECT_THAT(TakeGpuInventory("none", nullptr, {Answering("NVML", kFourGpus)})->gpus, IsEmpty());
  EXPECT_EQ(TakeGpuInventory("0,x", nullptr, {}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(GpuInventoryTest, TheFirstSourceThatAnswersWins) {
  absl::StatusOr<GpuInventory> inventory =
      TakeGpuInventory("", nullptr,
                       {Absent("NVML", "cannot load libnvidia-ml.so.1"),
                        Answering("nvidia-smi", kFourGpus), Answering("later", {{9, ""}})});
  ASSERT_TRUE(inventory.ok()) << inventory.status();
  EXPECT_THAT(inventory->gpus, ElementsAre(0, 1, 2, 3));
  EXPECT_EQ(inventory->source, "nvidia-smi");
  EXPECT_THAT(inventory->detail, HasSubstr("NVML: cannot load libnvidia-ml.so.1"));
}

TEST(GpuInventoryTest, DiscoveredGpusAreFilteredByCudaVisibleDevices) {
  absl::StatusOr<GpuInventory> inventory =
      TakeGpuInventory("", "GPU-dddd4444,1", {Answering("NVML", kFourGpus)});
  ASSERT_TRUE(inventory.ok()) << inventory.status();
  EXPECT_THAT(inventory->gpus, ElementsAre(3, 1));
  EXPECT_THAT(inventory->detail, HasSubstr("CUDA_VISIBLE_DEVICES=\"GPU-dddd4444,1\""));
  EXPECT_EQ(TakeGpuInventory("", "5", {Answering("NVML", kFourGpus)}).status().code(),
            absl::StatusCode::kInvalidArgument);
}

TEST(GpuInventoryTest, NoSourceMeansNoGpus) {
  absl::StatusOr<GpuInventory> inventory =
      TakeGpuInventory("", "0", {Absent("NVML", "no library"), Absent("nvidia-smi", "not found")});
  ASSERT_TRUE(inventory.ok()) << inventory.status();
  EXPECT_THAT(inventory->gpus, IsEmpty());
  EXPECT_EQ(inventory->source, "none found");
  EXPECT_EQ(inventory->detail, "NVML: no library; nvidia-smi: not found");
}

}  // namespace
}  // namespace vernier::scheduler
