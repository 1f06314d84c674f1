#include "scheduler/gpu_inventory.h"

#include <algorithm>
#include <set>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/strings/strip.h"
#include "scheduler/nvidia_smi_gpu_source.h"
#include "scheduler/nvml_gpu_source.h"

namespace vernier::scheduler {
namespace {

absl::string_view View(std::string_view text) {
  return absl::string_view(text.data(), text.size());
}

std::vector<absl::string_view> Entries(std::string_view text) {
  std::vector<absl::string_view> entries = absl::StrSplit(View(text), ',');
  for (absl::string_view& entry : entries) entry = absl::StripAsciiWhitespace(entry);
  return entries;
}

std::string Indexes(const std::vector<GpuDevice>& devices) {
  if (devices.empty()) return "none";
  return absl::StrJoin(devices, ",", [](std::string* out, const GpuDevice& device) {
    absl::StrAppend(out, device.index);
  });
}

// The device a UUID (or a unique prefix of one) names.
absl::StatusOr<int> DeviceWithUuid(const std::vector<GpuDevice>& devices, absl::string_view uuid) {
  std::vector<int> matches;
  for (const GpuDevice& device : devices) {
    if (device.uuid == uuid) return device.index;
    if (!device.uuid.empty() && absl::StartsWith(device.uuid, uuid))
      matches.push_back(device.index);
  }
  if (matches.size() == 1) return matches[0];
  if (matches.size() > 1) {
    return absl::InvalidArgumentError(absl::StrCat("CUDA_VISIBLE_DEVICES entry ", std::string(uuid),
                                                   " matches several GPUs' UUIDs"));
  }
  std::vector<std::string> known;
  for (const GpuDevice& device : devices) {
    if (!device.uuid.empty()) known.push_back(device.uuid);
  }
  return absl::InvalidArgumentError(absl::StrCat(
      "CUDA_VISIBLE_DEVICES names ", std::string(uuid), ", which is none of this machine's GPUs (",
      known.empty() ? std::string("their UUIDs are unknown") : absl::StrJoin(known, ", "),
      "); unset it or pass --gpus"));
}

}  // namespace

absl::StatusOr<std::vector<int>> ParseGpuList(std::string_view text) {
  const std::string quoted = absl::StrCat("--gpus \"", std::string(text), "\"");
  if (absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(View(text)), "none"))
    return std::vector<int>();
  std::vector<int> gpus;
  for (absl::string_view entry : Entries(text)) {
    int index = 0;
    if (!absl::SimpleAtoi(entry, &index)) {
      return absl::InvalidArgumentError(
          absl::StrCat(quoted, ": \"", std::string(entry),
                       "\" is not a GPU index; give indexes such as 0,1,2,3, or none"));
    }
    if (index < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat(quoted, ": GPU index ", index, " is negative"));
    }
    if (std::find(gpus.begin(), gpus.end(), index) != gpus.end()) {
      return absl::InvalidArgumentError(absl::StrCat(quoted, ": GPU ", index, " is listed twice"));
    }
    gpus.push_back(index);
  }
  return gpus;
}

absl::StatusOr<std::vector<int>> FilterByCudaVisibleDevices(const std::vector<GpuDevice>& devices,
                                                            std::string_view cuda_visible_devices) {
  std::vector<int> visible;
  if (absl::StripAsciiWhitespace(View(cuda_visible_devices)).empty()) return visible;
  for (absl::string_view entry : Entries(cuda_visible_devices)) {
    int index = 0;
    if (absl::StartsWith(entry, "MIG-")) {
      return absl::InvalidArgumentError(
          absl::StrCat("CUDA_VISIBLE_DEVICES names the MIG device ", std::string(entry),
                       "; Vernier grants whole GPUs: unset it or pass --gpus"));
    }
    if (absl::StartsWith(entry, "GPU-")) {
      absl::StatusOr<int> found = DeviceWithUuid(devices, entry);
      if (!found.ok()) return found.status();
      index = *found;
    } else if (!absl::SimpleAtoi(entry, &index)) {
      return absl::InvalidArgumentError(
          absl::StrCat("CUDA_VISIBLE_DEVICES=\"", std::string(cuda_visible_devices), "\": \"",
                       std::string(entry), "\" is neither a GPU index nor a GPU-UUID"));
    } else if (index < 0) {
      break;  // CUDA ignores the rest of the list.
    } else if (std::none_of(devices.begin(), devices.end(),
                            [&](const GpuDevice& device) { return device.index == index; })) {
      return absl::InvalidArgumentError(
          absl::StrCat("CUDA_VISIBLE_DEVICES names GPU ", index, ", but this machine's GPUs are ",
                       Indexes(devices), "; unset it or pass --gpus"));
    }
    if (std::find(visible.begin(), visible.end(), index) != visible.end()) {
      return absl::InvalidArgumentError(absl::StrCat("CUDA_VISIBLE_DEVICES=\"",
                                                     std::string(cuda_visible_devices),
                                                     "\" names GPU ", index, " twice"));
    }
    visible.push_back(index);
  }
  return visible;
}

absl::StatusOr<GpuInventory> TakeGpuInventory(std::string_view gpus_flag,
                                              const char* cuda_visible_devices,
                                              const std::vector<GpuSource>& sources) {
  GpuInventory inventory;
  if (!gpus_flag.empty()) {
    absl::StatusOr<std::vector<int>> gpus = ParseGpuList(gpus_flag);
    if (!gpus.ok()) return gpus.status();
    inventory.gpus = *std::move(gpus);
    inventory.source = "--gpus";
    return inventory;
  }
  std::vector<std::string> failures;
  for (const GpuSource& source : sources) {
    absl::StatusOr<std::vector<GpuDevice>> devices = source.list();
    if (!devices.ok()) {
      failures.push_back(absl::StrCat(source.name, ": ", devices.status().message()));
      continue;
    }
    inventory.source = source.name;
    if (cuda_visible_devices == nullptr) {
      for (const GpuDevice& device : *devices) inventory.gpus.push_back(device.index);
    } else {
      absl::StatusOr<std::vector<int>> visible =
          FilterByCudaVisibleDevices(*devices, cuda_visible_devices);
      if (!visible.ok()) return visible.status();
      inventory.gpus = *std::move(visible);
      failures.push_back(absl::StrCat("of GPUs ", Indexes(*devices), ", CUDA_VISIBLE_DEVICES=\"",
                                      cuda_visible_devices, "\" leaves these"));
    }
    inventory.detail = absl::StrJoin(failures, "; ");
    return inventory;
  }
  inventory.source = "none found";
  inventory.detail = absl::StrJoin(failures, "; ");
  return inventory;
}

std::vector<GpuSource> LocalGpuSources() {
  return {GpuSource{"NVML", [] { return ListNvmlGpus(); }},
          GpuSource{"nvidia-smi", ListNvidiaSmiGpus}};
}

}  // namespace vernier::scheduler
