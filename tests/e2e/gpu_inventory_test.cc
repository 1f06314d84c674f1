// `vernier serve` takes its GPU inventory from --gpus, or discovers it
// (NVML, then nvidia-smi) within CUDA_VISIBLE_DEVICES, and logs where it
// came from; a bad list stops it with a clear error.
#include <stdlib.h>
#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "scheduler/nvml_gpu_source.h"
#include "tests/support/server_process.h"
#include "tests/support/subprocess.h"

namespace vernier::testing {
namespace {

using ::testing::HasSubstr;

class GpuInventoryTest : public ::testing::Test {
 protected:
  CommandResult Serve(const std::vector<std::string>& args,
                      const std::map<std::string, std::string>& env = {}) {
    std::vector<std::string> argv = {BinaryPath("vernier"), "serve", "--port", "0", "--data-dir",
                                     dir_.path() + "/data"};
    argv.insert(argv.end(), args.begin(), args.end());
    return RunCommand(argv, std::chrono::seconds(30), env);
  }

  // A fake nvidia-smi listing GPUs 0 to 3, in a directory put first on the
  // PATH of this process (and so of the servers it starts).
  void PutFakeNvidiaSmiOnPath() {
    const std::string bin = dir_.path() + "/bin";
    std::filesystem::create_directories(bin);
    std::ofstream(bin + "/nvidia-smi") << "#!/bin/sh\n"
                                          "echo '0, GPU-aaaa1111'\necho '1, GPU-bbbb2222'\n"
                                          "echo '2, GPU-cccc3333'\necho '3, GPU-dddd4444'\n";
    chmod((bin + "/nvidia-smi").c_str(), 0755);
    SetEnv("PATH", bin + ":" + getenv("PATH"));
  }

  void SetEnv(const std::string& name, const std::string& value) {
    if (!saved_env_.contains(name)) {
      const char* old = getenv(name.c_str());
      saved_env_[name] = old != nullptr ? std::optional<std::string>(old) : std::nullopt;
    }
    setenv(name.c_str(), value.c_str(), 1);
  }

  void TearDown() override {
    for (const auto& [name, value] : saved_env_) {
      if (value.has_value()) {
        setenv(name.c_str(), value->c_str(), 1);
      } else {
        unsetenv(name.c_str());
      }
    }
  }

  TempDir dir_;
  std::map<std::string, std::optional<std::string>> saved_env_;
};

TEST_F(GpuInventoryTest, ABadGpuListStopsServe) {
  CommandResult letters = Serve({"--gpus", "0,x"});
  EXPECT_NE(letters.exit_code, 0);
  EXPECT_THAT(letters.err, HasSubstr("--gpus \"0,x\": \"x\" is not a GPU index"));
  CommandResult twice = Serve({"--gpus=2,2"});
  EXPECT_NE(twice.exit_code, 0);
  EXPECT_THAT(twice.err, HasSubstr("--gpus \"2,2\": GPU 2 is listed twice"));
  CommandResult negative = Serve({"--gpus=-1"});
  EXPECT_NE(negative.exit_code, 0);
  EXPECT_THAT(negative.err, HasSubstr("GPU index -1 is negative"));
}

TEST_F(GpuInventoryTest, TheOperatorsListIsUsedAsGivenAndLogged) {
  // Fake GPUs on a machine that may have none, whatever CUDA_VISIBLE_DEVICES says.
  SetEnv("CUDA_VISIBLE_DEVICES", "7");
  ServerProcess server(dir_.path() + "/data", 0, {"--gpus", "0,1,2,3"});
  server.Start();
  EXPECT_THAT(server.log(), HasSubstr("GPUs: 0,1,2,3 (source: --gpus)"));
  server.Stop();
}

TEST_F(GpuInventoryTest, DiscoveryRespectsCudaVisibleDevices) {
  if (scheduler::ListNvmlGpus().ok()) GTEST_SKIP() << "NVML answers here before nvidia-smi";
  PutFakeNvidiaSmiOnPath();
  SetEnv("CUDA_VISIBLE_DEVICES", "GPU-dddd4444,1");
  ServerProcess server(dir_.path() + "/data", 0);
  server.Start();
  EXPECT_THAT(server.log(), HasSubstr("GPUs: 3,1 (source: nvidia-smi;"));
  server.Stop();

  CommandResult missing = Serve({}, {{"CUDA_VISIBLE_DEVICES", "0,5"}});
  EXPECT_NE(missing.exit_code, 0);
  EXPECT_THAT(missing.err,
              HasSubstr("CUDA_VISIBLE_DEVICES names GPU 5, but this machine's GPUs are 0,1,2,3"));
}

TEST_F(GpuInventoryTest, DiscoveryAsksNvmlFirstAndMapsUuids) {
  // The fake NVML comes first on the library path, driver or not.
  SetEnv("LD_LIBRARY_PATH", BinaryPath("fake_nvml"));
  SetEnv("FAKE_NVML_UUIDS", "GPU-aaaa1111,GPU-bbbb2222,GPU-cccc3333");
  SetEnv("CUDA_VISIBLE_DEVICES", "GPU-cccc,GPU-aaaa1111");
  ServerProcess server(dir_.path() + "/data", 0);
  server.Start();
  EXPECT_THAT(server.log(), HasSubstr("GPUs: 2,0 (source: NVML; of GPUs 0,1,2, "
                                      "CUDA_VISIBLE_DEVICES=\"GPU-cccc,GPU-aaaa1111\""));
  server.Stop();
}

}  // namespace
}  // namespace vernier::testing
