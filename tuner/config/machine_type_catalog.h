#ifndef VERNIER_TUNER_CONFIG_MACHINE_TYPE_CATALOG_H_
#define VERNIER_TUNER_CONFIG_MACHINE_TYPE_CATALOG_H_

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace vernier::config {

// What one replica of a trial runs on.
struct MachineType {
  std::string name;
  int cpus = 0;
  int64_t memory_mb = 0;
  // GPUs the type always has; such a type takes no acceleratorConfig.
  int gpus = 0;
  std::string gpu_type;
  // The acceleratorConfig.count values the type accepts; empty: none.
  std::vector<int> accelerator_counts;
};

// The replicas of a predefined scale tier, in trainingInput's words.
struct ScaleTier {
  std::string name;
  std::string master_type;
  std::string worker_type;
  int64_t worker_count = 0;
  std::string parameter_server_type;
  int64_t parameter_server_count = 0;
};

// The machine types, scale tiers and accelerator types a server offers, read
// from YAML (config/machine-types.yaml is built into the binary; `vernier
// serve --machine-types FILE` replaces it). Immutable once read.
class MachineTypeCatalog {
 public:
  // Every error is INVALID_ARGUMENT and reads "FILE:LINE:COLUMN: FIELD:
  // PROBLEM", e.g. `types.yaml:12:3: scaleTiers.BASIC.masterType: unknown
  // machine type "standart"; did you mean "standard"?`.
  static absl::StatusOr<MachineTypeCatalog> Parse(std::string_view yaml_text,
                                                  std::string_view file_name);
  // NOT_FOUND when there is no such file.
  static absl::StatusOr<MachineTypeCatalog> Load(const std::string& path);
  // The built-in config/machine-types.yaml.
  static const MachineTypeCatalog& Default();

  const MachineType* FindMachineType(std::string_view name) const;
  // CUSTOM and BASIC_TPU are never in the catalog.
  const ScaleTier* FindScaleTier(std::string_view name) const;
  bool HasAcceleratorType(std::string_view name) const;

  // "unknown machine type "X"" with the closest name as a suggestion, or
  // the list of names when none is close.
  std::string UnknownMachineTypeProblem(std::string_view name) const;
  std::string UnknownAcceleratorTypeProblem(std::string_view name) const;

  const std::map<std::string, MachineType, std::less<>>& machine_types() const {
    return machine_types_;
  }
  const std::map<std::string, ScaleTier, std::less<>>& scale_tiers() const { return scale_tiers_; }
  const std::vector<std::string>& accelerator_types() const { return accelerator_types_; }

 private:
  friend class MachineTypeCatalogParser;

  std::map<std::string, MachineType, std::less<>> machine_types_;
  std::map<std::string, ScaleTier, std::less<>> scale_tiers_;
  std::vector<std::string> accelerator_types_;
};

// The text of config/machine-types.yaml as it was at build time.
std::string_view DefaultMachineTypesYaml();

}  // namespace vernier::config

#endif  // VERNIER_TUNER_CONFIG_MACHINE_TYPE_CATALOG_H_
