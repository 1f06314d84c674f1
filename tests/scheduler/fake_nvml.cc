// A fake NVML, built as bin/fake_nvml/libnvidia-ml.so.1, for the tests of
// GPU discovery on machines without an NVIDIA driver. Its GPUs are the UUIDs
// in $FAKE_NVML_UUIDS (comma-separated; default three GPUs); nvmlInit_v2
// returns $FAKE_NVML_INIT_ERROR when set.
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

namespace {

std::vector<std::string> Uuids() {
  const char* given = std::getenv("FAKE_NVML_UUIDS");
  const std::string text = given != nullptr ? given : "GPU-aaaa1111,GPU-bbbb2222,GPU-cccc3333";
  std::vector<std::string> uuids;
  size_t start = 0;
  while (start <= text.size() && !text.empty()) {
    const size_t comma = text.find(',', start);
    const size_t end = comma == std::string::npos ? text.size() : comma;
    uuids.push_back(text.substr(start, end - start));
    start = end + 1;
  }
  return uuids;
}

}  // namespace

extern "C" {

int nvmlInit_v2() {
  const char* error = std::getenv("FAKE_NVML_INIT_ERROR");
  return error != nullptr ? std::atoi(error) : 0;
}

int nvmlShutdown() { return 0; }

int nvmlDeviceGetCount_v2(unsigned int* count) {
  *count = static_cast<unsigned int>(Uuids().size());
  return 0;
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void** device) {
  if (index >= Uuids().size()) return 2;  // NVML_ERROR_INVALID_ARGUMENT
  *device = reinterpret_cast<void*>(static_cast<std::uintptr_t>(index) + 1);
  return 0;
}

int nvmlDeviceGetUUID(void* device, char* uuid, unsigned int length) {
  const std::vector<std::string> uuids = Uuids();
  const size_t index = reinterpret_cast<std::uintptr_t>(device) - 1;
  if (index >= uuids.size() || uuids[index].size() + 1 > length) return 2;
  std::memcpy(uuid, uuids[index].c_str(), uuids[index].size() + 1);
  return 0;
}

}  // extern "C"
