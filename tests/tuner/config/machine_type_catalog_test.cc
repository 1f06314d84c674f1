#include "tuner/config/machine_type_catalog.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <fstream>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "tests/support/subprocess.h"

namespace vernier::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;

std::string Lines(const std::vector<std::string>& lines) { return absl::StrJoin(lines, "\n"); }

TEST(MachineTypeCatalogTest, TheBuiltInFileHoldsAiPlatformsTypesAndTiers) {
  const MachineTypeCatalog& catalog = MachineTypeCatalog::Default();
  const MachineType* standard_gpu = catalog.FindMachineType("standard_gpu");
  ASSERT_NE(standard_gpu, nullptr);
  EXPECT_EQ(standard_gpu->gpus, 1);
  EXPECT_EQ(standard_gpu->gpu_type, "NVIDIA_TESLA_K80");
  EXPECT_EQ(catalog.FindMachineType("complex_model_m_gpu")->gpus, 4);
  EXPECT_EQ(catalog.FindMachineType("complex_model_l_gpu")->gpus, 8);
  EXPECT_EQ(catalog.FindMachineType("a2-highgpu-8g")->gpus, 8);
  EXPECT_EQ(catalog.FindMachineType("a2-highgpu-8g")->gpu_type, "NVIDIA_TESLA_A100");
  const MachineType* n1 = catalog.FindMachineType("n1-standard-8");
  ASSERT_NE(n1, nullptr);
  EXPECT_EQ(n1->cpus, 8);
  EXPECT_EQ(n1->memory_mb, 30 * 1024);
  EXPECT_EQ(n1->gpus, 0);
  EXPECT_THAT(n1->accelerator_counts, ElementsAre(1, 2, 4, 8));
  for (const char* name : {"standard", "large_model", "complex_model_s", "complex_model_m",
                           "complex_model_l", "standard_p100", "standard_v100", "large_model_v100",
                           "complex_model_m_p100", "complex_model_l_v100", "n1-standard-96",
                           "n1-highmem-2", "n1-highcpu-96", "a2-highgpu-1g"}) {
    EXPECT_NE(catalog.FindMachineType(name), nullptr) << name;
  }
  const ScaleTier* standard_1 = catalog.FindScaleTier("STANDARD_1");
  ASSERT_NE(standard_1, nullptr);
  EXPECT_EQ(standard_1->worker_count, 4);
  EXPECT_EQ(standard_1->parameter_server_count, 3);
  const ScaleTier* premium_1 = catalog.FindScaleTier("PREMIUM_1");
  ASSERT_NE(premium_1, nullptr);
  EXPECT_EQ(premium_1->worker_count, 19);
  EXPECT_EQ(premium_1->parameter_server_count, 11);
  EXPECT_EQ(catalog.FindScaleTier("BASIC_GPU")->master_type, "standard_gpu");
  EXPECT_EQ(catalog.FindScaleTier("CUSTOM"), nullptr);
  EXPECT_EQ(catalog.FindScaleTier("BASIC_TPU"), nullptr);
}

TEST(MachineTypeCatalogTest, TheBuiltInTextIsTheRepositorysFile) {
  const char* source = std::getenv("VERNIER_SOURCE_DIR");
  std::ifstream file(std::string(source != nullptr ? source : ".") + "/config/machine-types.yaml");
  const std::string text((std::istreambuf_iterator<char>(file)), std::istreambuf_iterator<char>());
  ASSERT_FALSE(text.empty());
  EXPECT_EQ(DefaultMachineTypesYaml(), text);
}

TEST(MachineTypeCatalogTest, SuggestsTheClosestMachineTypeOrListsThem) {
  const MachineTypeCatalog& catalog = MachineTypeCatalog::Default();
  EXPECT_EQ(catalog.UnknownMachineTypeProblem("n1-standrd-8"),
            "unknown machine type \"n1-standrd-8\"; did you mean \"n1-standard-8\"?");
  EXPECT_THAT(catalog.UnknownMachineTypeProblem("zzzzzzzzzzzzzzzzzzz"),
              HasSubstr("; known: a2-highgpu-1g, a2-highgpu-2g"));
  EXPECT_EQ(catalog.UnknownAcceleratorTypeProblem("NVIDIA_TESLA_V10"),
            "unknown accelerator type \"NVIDIA_TESLA_V10\"; did you mean \"NVIDIA_TESLA_V100\"?");
}

TEST(MachineTypeCatalogTest, LoadsAnOperatorsFile) {
  testing::TempDir dir;
  const std::string path = dir.path() + "/types.yaml";
  std::ofstream(path) << Lines(
      {"acceleratorTypes: [NVIDIA_H100]",
       "machineTypes:", "  dgx: {cpus: 224, memoryGb: 2048, gpus: 8, gpuType: NVIDIA_H100}",
       "  cpu-box: {cpus: 64, memoryGb: 256.5}", "scaleTiers:", "  BASIC: {masterType: cpu-box}",
       "  BASIC_GPU: {masterType: dgx}"});
  absl::StatusOr<MachineTypeCatalog> catalog = MachineTypeCatalog::Load(path);
  ASSERT_TRUE(catalog.ok()) << catalog.status();
  EXPECT_EQ(catalog->FindMachineType("dgx")->gpus, 8);
  EXPECT_EQ(catalog->FindMachineType("cpu-box")->memory_mb, 262656);
  EXPECT_EQ(catalog->FindMachineType("standard"), nullptr);
  EXPECT_EQ(catalog->FindScaleTier("STANDARD_1"), nullptr);
  EXPECT_EQ(catalog->FindScaleTier("BASIC_GPU")->master_type, "dgx");

  EXPECT_EQ(MachineTypeCatalog::Load(dir.path() + "/missing.yaml").status().code(),
            absl::StatusCode::kNotFound);
  EXPECT_EQ(MachineTypeCatalog::Load(dir.path()).status().code(),
            absl::StatusCode::kInvalidArgument);
}

struct CatalogErrorCase {
  std::string name;
  std::vector<std::string> yaml;
  std::string message;
};

class MachineTypeCatalogErrorTest : public ::testing::TestWithParam<CatalogErrorCase> {};

TEST_P(MachineTypeCatalogErrorTest, NamesFileLineAndField) {
  absl::StatusOr<MachineTypeCatalog> catalog =
      MachineTypeCatalog::Parse(Lines(GetParam().yaml), "types.yaml");
  ASSERT_FALSE(catalog.ok());
  EXPECT_EQ(catalog.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(std::string(catalog.status().message()), GetParam().message);
}

const std::string kTypes = "machineTypes: {m: {cpus: 4, memoryGb: 15}}";

INSTANTIATE_TEST_SUITE_P(
    Errors, MachineTypeCatalogErrorTest,
    ::testing::ValuesIn(std::vector<CatalogErrorCase>{
        {"Syntax",
         {"machineTypes: [a"},
         "types.yaml:1:1: YAML syntax error: end of sequence flow not found"},
        {"NotAMapping",
         {"- a"},
         "types.yaml:1:1: expected a mapping with machineTypes, scaleTiers and acceleratorTypes"},
        {"NoMachineTypes",
         {"acceleratorTypes: [X]"},
         "types.yaml:1:1: machineTypes: is required: the machine types offered"},
        {"UnknownTopKey",
         {kTypes, "scaleTier: {}"},
         "types.yaml:2:1: scaleTier: unknown key \"scaleTier\"; did you mean \"scaleTiers\"?"},
        {"MissingCpus",
         {"machineTypes:", "  m: {memoryGb: 15}"},
         "types.yaml:2:6: machineTypes.m.cpus: is required"},
        {"MissingMemory",
         {"machineTypes:", "  m: {cpus: 4}"},
         "types.yaml:2:6: machineTypes.m.memoryGb: is required"},
        {"ZeroCpus",
         {"machineTypes:", "  m: {cpus: 0, memoryGb: 1}"},
         "types.yaml:2:13: machineTypes.m.cpus: must be at least 1, got 0"},
        // Found by fuzz/machine_type_catalog_fuzzer (seed huge_numbers.yaml):
        // the int cpus wrapped to a negative count and the memory in MB
        // overflowed.
        {"CpusOverAnInt",
         {"machineTypes:", "  m: {cpus: 99999999999, memoryGb: 1}"},
         "types.yaml:2:13: machineTypes.m.cpus: must be at most 2147483647, got 99999999999"},
        {"GpusOverAnInt",
         {"acceleratorTypes: [T4]",
          "machineTypes:", "  m: {cpus: 1, memoryGb: 1, gpus: 4294967297, gpuType: T4}"},
         "types.yaml:3:35: machineTypes.m.gpus: must be at most 2147483647, got 4294967297"},
        {"AcceleratorCountOverAnInt",
         {"machineTypes:", "  m: {cpus: 1, memoryGb: 1, acceleratorCounts: [2147483648]}"},
         "types.yaml:2:49: machineTypes.m.acceleratorCounts[0]: must be at most 2147483647, got "
         "2147483648"},
        {"MemoryOverAnExbibyte",
         {"machineTypes:", "  m: {cpus: 1, memoryGb: 1e308}"},
         "types.yaml:2:26: machineTypes.m.memoryGb: must be from 1 MB to 1 EiB (0.0009765625 to "
         "1073741824), got 1e308"},
        {"MemoryUnderAMegabyte",
         {"machineTypes:", "  m: {cpus: 1, memoryGb: 0.0001}"},
         "types.yaml:2:26: machineTypes.m.memoryGb: must be from 1 MB to 1 EiB (0.0009765625 to "
         "1073741824), got 0.0001"},
        {"MemoryNotANumber",
         {"machineTypes:", "  m: {cpus: 1, memoryGb: lots}"},
         "types.yaml:2:26: machineTypes.m.memoryGb: expected a number, got \"lots\""},
        {"UnknownMachineKey",
         {"machineTypes:", "  m: {cpus: 1, memoryGb: 1, gpu: 2}"},
         "types.yaml:2:29: machineTypes.m.gpu: unknown key \"gpu\"; did you mean \"gpus\"?"},
        {"GpusWithoutType",
         {"machineTypes:", "  m: {cpus: 1, memoryGb: 1, gpus: 2}"},
         "types.yaml:2:6: machineTypes.m.gpuType: is required with gpus: 2"},
        {"GpuTypeWithoutGpus",
         {"acceleratorTypes: [T4]", "machineTypes:", "  m: {cpus: 1, memoryGb: 1, gpuType: T4}"},
         "types.yaml:3:38: machineTypes.m.gpuType: is only meaningful with a positive gpus count"},
        {"UnknownGpuType",
         {"acceleratorTypes: [NVIDIA_TESLA_T4]",
          "machineTypes:", "  m: {cpus: 1, memoryGb: 1, gpus: 1, gpuType: NVIDIA_TESLA_T5}"},
         "types.yaml:3:47: machineTypes.m.gpuType: unknown accelerator type \"NVIDIA_TESLA_T5\"; "
         "did you mean \"NVIDIA_TESLA_T4\"?"},
        {"FixedGpusAndAcceleratorCounts",
         {"acceleratorTypes: [T4]", "machineTypes:",
          "  m: {cpus: 1, memoryGb: 1, gpus: 1, gpuType: T4, acceleratorCounts: [1]}"},
         "types.yaml:3:70: machineTypes.m.acceleratorCounts: a type with fixed gpus takes no "
         "acceleratorConfig"},
        {"BadAcceleratorCount",
         {"machineTypes:", "  m: {cpus: 1, memoryGb: 1, acceleratorCounts: [1, 0]}"},
         "types.yaml:2:52: machineTypes.m.acceleratorCounts[1]: must be at least 1, got 0"},
        {"DuplicateMachineType",
         {"machineTypes:", "  m: {cpus: 1, memoryGb: 1}", "  m: {cpus: 2, memoryGb: 1}"},
         "types.yaml:3:3: machineTypes.m: duplicate key \"m\""},
        {"UnknownTier",
         {kTypes, "scaleTiers:", "  STANDARD_2: {masterType: m}"},
         "types.yaml:3:3: scaleTiers.STANDARD_2: unknown key \"STANDARD_2\"; did you mean "
         "\"STANDARD_1\"?"},
        {"CustomIsNotATier",
         {kTypes, "scaleTiers:", "  CUSTOM: {masterType: m}"},
         "types.yaml:3:3: scaleTiers.CUSTOM: unknown key \"CUSTOM\"; known: BASIC, STANDARD_1, "
         "PREMIUM_1, BASIC_GPU"},
        {"TierWithoutMaster",
         {kTypes, "scaleTiers:", "  BASIC: {workerType: m, workerCount: 1}"},
         "types.yaml:3:10: scaleTiers.BASIC.masterType: is required"},
        {"TierWithUnknownType",
         {kTypes, "scaleTiers:", "  BASIC: {masterType: n}"},
         "types.yaml:3:23: scaleTiers.BASIC.masterType: unknown machine type \"n\"; did you mean "
         "\"m\"?"},
        {"TierWorkersWithoutType",
         {kTypes, "scaleTiers:", "  STANDARD_1: {masterType: m, workerCount: 4}"},
         "types.yaml:3:15: scaleTiers.STANDARD_1: workerType and workerCount go together: give "
         "both or none"},
        {"TierNegativeCount",
         {kTypes, "scaleTiers:",
          "  STANDARD_1: {masterType: m, parameterServerType: m, "
          "parameterServerCount: -1}"},
         "types.yaml:3:77: scaleTiers.STANDARD_1.parameterServerCount: must be at least 0, got -1"},
    }),
    [](const ::testing::TestParamInfo<CatalogErrorCase>& info) { return info.param.name; });

}  // namespace
}  // namespace vernier::config
