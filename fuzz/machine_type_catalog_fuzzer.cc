// Fuzzes the machine-types reader (`vernier serve --machine-types FILE`):
// any text either gives a catalog or INVALID_ARGUMENT, and what a catalog
// holds obeys the rules the reader checks (positive CPUs and memory, tiers
// naming machine types it has).
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "absl/status/statusor.h"
#include "tuner/config/machine_type_catalog.h"

using vernier::config::MachineTypeCatalog;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const absl::StatusOr<MachineTypeCatalog> catalog = MachineTypeCatalog::Parse(text, "fuzz.yaml");
  if (!catalog.ok()) {
    if (!absl::IsInvalidArgument(catalog.status())) std::abort();
    return 0;
  }
  for (const auto& [name, type] : catalog->machine_types()) {
    if (type.cpus < 1 || type.memory_mb < 1 || type.gpus < 0) std::abort();
    for (int count : type.accelerator_counts) {
      if (count < 1) std::abort();
    }
  }
  for (const auto& [name, tier] : catalog->scale_tiers()) {
    if (catalog->FindMachineType(tier.master_type) == nullptr) std::abort();
    if (tier.worker_count < 0 || tier.parameter_server_count < 0) std::abort();
  }
  // The error texts look names up among the catalog's own.
  (void)catalog->UnknownMachineTypeProblem(text.substr(0, 16));
  (void)catalog->UnknownAcceleratorTypeProblem(text.substr(0, 16));
  return 0;
}
