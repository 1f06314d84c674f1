#include "scheduler/nvml_gpu_source.h"

#include <dlfcn.h>

#include <string>

#include "absl/strings/str_cat.h"

namespace vernier::scheduler {
namespace {

// NVML's C API, as nvml.h declares it; declared here so that building needs
// no CUDA headers.
using NvmlReturn = int;
constexpr NvmlReturn kNvmlSuccess = 0;
using NvmlDevice = struct NvmlDeviceOpaque*;
// NVML_DEVICE_UUID_V2_BUFFER_SIZE.
constexpr unsigned int kUuidBufferSize = 96;

class Library {
 public:
  explicit Library(const char* name) : handle_(dlopen(name, RTLD_NOW | RTLD_LOCAL)) {}
  ~Library() {
    if (handle_ != nullptr) dlclose(handle_);
  }
  Library(const Library&) = delete;
  Library& operator=(const Library&) = delete;

  bool loaded() const { return handle_ != nullptr; }
  template <typename Function>
  Function* Find(const char* symbol) const {
    return reinterpret_cast<Function*>(dlsym(handle_, symbol));
  }

 private:
  void* handle_;
};

}  // namespace

absl::StatusOr<std::vector<GpuDevice>> ListNvmlGpus(const char* library) {
  const Library nvml(library);
  if (!nvml.loaded()) {
    const char* error = dlerror();
    return absl::UnavailableError(error != nullptr ? std::string(error)
                                                   : absl::StrCat("cannot load ", library));
  }
  auto* init = nvml.Find<NvmlReturn()>("nvmlInit_v2");
  auto* shutdown = nvml.Find<NvmlReturn()>("nvmlShutdown");
  auto* get_count = nvml.Find<NvmlReturn(unsigned int*)>("nvmlDeviceGetCount_v2");
  auto* get_handle =
      nvml.Find<NvmlReturn(unsigned int, NvmlDevice*)>("nvmlDeviceGetHandleByIndex_v2");
  auto* get_uuid = nvml.Find<NvmlReturn(NvmlDevice, char*, unsigned int)>("nvmlDeviceGetUUID");
  if (init == nullptr || shutdown == nullptr || get_count == nullptr) {
    return absl::UnavailableError(
        absl::StrCat(library, " lacks nvmlInit_v2, nvmlShutdown or nvmlDeviceGetCount_v2"));
  }
  if (const NvmlReturn status = init(); status != kNvmlSuccess) {
    return absl::UnavailableError(absl::StrCat("nvmlInit_v2 failed with NVML error ", status));
  }
  unsigned int count = 0;
  const NvmlReturn counted = get_count(&count);
  std::vector<GpuDevice> devices;
  for (unsigned int index = 0; counted == kNvmlSuccess && index < count; ++index) {
    GpuDevice& device = devices.emplace_back();
    device.index = static_cast<int>(index);
    NvmlDevice handle = nullptr;
    char uuid[kUuidBufferSize] = {};
    if (get_handle != nullptr && get_uuid != nullptr &&
        get_handle(index, &handle) == kNvmlSuccess &&
        get_uuid(handle, uuid, kUuidBufferSize) == kNvmlSuccess) {
      device.uuid = uuid;
    }
  }
  shutdown();
  if (counted != kNvmlSuccess) {
    return absl::UnavailableError(
        absl::StrCat("nvmlDeviceGetCount_v2 failed with NVML error ", counted));
  }
  return devices;
}

}  // namespace vernier::scheduler
