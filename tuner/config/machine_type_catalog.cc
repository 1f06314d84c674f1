#include "tuner/config/machine_type_catalog.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <limits>
#include <set>
#include <sstream>
#include <tuple>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "text/absl_view.h"
#include "tuner/config/closest_match.h"
#include "tuner/config/hyperparameter_validator.h"
#include "tuner/config/strict_scalar.h"
#include "tuner/config/yaml_loader.h"

namespace vernier::config {
namespace {

using text::AbslView;

// cpus, gpus and accelerator counts are ints.
constexpr int64_t kMaxCount = std::numeric_limits<int>::max();
// memoryGb is kept in whole MB: from 1 MB to 1 EiB.
constexpr double kMaxMemoryMb = 1024.0 * 1024 * 1024 * 1024;

// "unknown WHAT "NAME"; did you mean "X"?" or "...; known: A, B, C".
std::string UnknownNameProblem(absl::string_view what, std::string_view name,
                               const std::vector<std::string>& known) {
  std::vector<absl::string_view> candidates(known.begin(), known.end());
  const std::string head = absl::StrCat("unknown ", what, " \"", AbslView(name), "\"");
  if (std::optional<absl::string_view> match = ClosestMatch(AbslView(name), candidates)) {
    return absl::StrCat(head, "; did you mean \"", *match, "\"?");
  }
  return absl::StrCat(head, "; known: ", absl::StrJoin(known, ", "));
}

template <typename Map>
std::vector<std::string> Keys(const Map& map) {
  std::vector<std::string> keys;
  for (const auto& entry : map) keys.push_back(entry.first);
  return keys;
}

}  // namespace

// Reads the catalog YAML; every error names FILE:LINE:COLUMN and the field.
class MachineTypeCatalogParser {
 public:
  explicit MachineTypeCatalogParser(std::string_view file_name) : file_name_(file_name) {}

  absl::StatusOr<MachineTypeCatalog> Parse(std::string_view yaml_text) {
    absl::StatusOr<YAML::Node> loaded = YamlLoader::Load(yaml_text, file_name_);
    if (!loaded.ok()) return loaded.status();
    YAML::Node document = *std::move(loaded);
    if (!document.IsMap()) {
      return Error(document.Mark(), "",
                   "expected a mapping with machineTypes, scaleTiers and acceleratorTypes");
    }
    MachineTypeCatalog catalog;
    std::optional<YAML::Node> machine_types;
    std::optional<YAML::Node> scale_tiers;
    absl::Status status =
        ReadMapping(document, "",
                    {{"acceleratorTypes",
                      [&](const YAML::Node& value, const std::string& path) {
                        return ReadAcceleratorTypes(value, path, catalog);
                      }},
                     {"machineTypes",
                      [&](const YAML::Node& value, const std::string&) {
                        machine_types = value;
                        return absl::OkStatus();
                      }},
                     {"scaleTiers", [&](const YAML::Node& value, const std::string&) {
                        scale_tiers = value;
                        return absl::OkStatus();
                      }}});
    if (!status.ok()) return status;
    // Machine types name accelerator types, tiers name machine types: read
    // them in that order whatever the file's order.
    if (!machine_types.has_value()) {
      return Error(document.Mark(), "machineTypes", "is required: the machine types offered");
    }
    if (status = ReadMachineTypes(*machine_types, catalog); !status.ok()) return status;
    if (scale_tiers.has_value()) {
      if (status = ReadScaleTiers(*scale_tiers, catalog); !status.ok()) return status;
    }
    return catalog;
  }

 private:
  using ValueReader = std::function<absl::Status(const YAML::Node&, const std::string&)>;
  struct KeyReader {
    absl::string_view key;
    ValueReader read;
  };

  absl::Status Error(const YAML::Mark& mark, absl::string_view field,
                     absl::string_view problem) const {
    const std::string where =
        mark.is_null() ? absl::StrCat(file_name_, ":1:1")
                       : absl::StrCat(file_name_, ":", mark.line + 1, ":", mark.column + 1);
    if (field.empty()) return absl::InvalidArgumentError(absl::StrCat(where, ": ", problem));
    return absl::InvalidArgumentError(absl::StrCat(where, ": ", field, ": ", problem));
  }

  static std::string Child(absl::string_view parent, absl::string_view key) {
    return parent.empty() ? std::string(key) : absl::StrCat(parent, ".", key);
  }

  absl::Status ReadMapping(const YAML::Node& node, const std::string& path,
                           const std::vector<KeyReader>& readers) {
    if (!node.IsMap()) return Error(node.Mark(), path, "expected a mapping");
    std::set<std::string> seen;
    for (const auto& entry : node) {
      const std::string name = entry.first.Scalar();
      const std::string key_path = Child(path, name);
      if (!seen.insert(name).second) {
        return Error(entry.first.Mark(), key_path, absl::StrCat("duplicate key \"", name, "\""));
      }
      const KeyReader* reader = nullptr;
      std::vector<std::string> allowed;
      for (const KeyReader& candidate : readers) {
        if (candidate.key == name) reader = &candidate;
        allowed.emplace_back(candidate.key);
      }
      if (reader == nullptr) {
        return Error(entry.first.Mark(), key_path, UnknownNameProblem("key", name, allowed));
      }
      if (absl::Status status = reader->read(entry.second, key_path); !status.ok()) return status;
    }
    return absl::OkStatus();
  }

  absl::StatusOr<std::string> ReadString(const YAML::Node& value, const std::string& path) const {
    if (!value.IsScalar() || value.Scalar().empty()) {
      return Error(value.Mark(), path, "expected a name");
    }
    return value.Scalar();
  }

  absl::StatusOr<int64_t> ReadInteger(const YAML::Node& value, const std::string& path, int64_t min,
                                      int64_t max) const {
    absl::StatusOr<int64_t> number = value.IsScalar()
                                         ? ParseStrictInteger(value.Scalar())
                                         : absl::InvalidArgumentError("expected an integer");
    if (!number.ok()) return Error(value.Mark(), path, number.status().message());
    if (*number < min) {
      return Error(value.Mark(), path, absl::StrCat("must be at least ", min, ", got ", *number));
    }
    if (*number > max) {
      return Error(value.Mark(), path, absl::StrCat("must be at most ", max, ", got ", *number));
    }
    return *number;
  }

  ValueReader Integer(int64_t min, int64_t max, std::function<void(int64_t)> set) const {
    return [this, min, max, set](const YAML::Node& value, const std::string& path) -> absl::Status {
      absl::StatusOr<int64_t> number = ReadInteger(value, path, min, max);
      if (!number.ok()) return number.status();
      set(*number);
      return absl::OkStatus();
    };
  }

  ValueReader Name(std::string* out) const {
    return [this, out](const YAML::Node& value, const std::string& path) -> absl::Status {
      absl::StatusOr<std::string> name = ReadString(value, path);
      if (!name.ok()) return name.status();
      *out = *std::move(name);
      return absl::OkStatus();
    };
  }

  absl::Status ReadAcceleratorTypes(const YAML::Node& node, const std::string& path,
                                    MachineTypeCatalog& catalog) {
    if (!node.IsSequence()) return Error(node.Mark(), path, "expected a list of names");
    for (size_t i = 0; i < node.size(); ++i) {
      absl::StatusOr<std::string> name = ReadString(node[i], absl::StrCat(path, "[", i, "]"));
      if (!name.ok()) return name.status();
      catalog.accelerator_types_.push_back(*std::move(name));
    }
    return absl::OkStatus();
  }

  absl::Status ReadMachineTypes(const YAML::Node& node, MachineTypeCatalog& catalog) {
    const std::string path = "machineTypes";
    if (!node.IsMap() || node.size() == 0) {
      return Error(node.Mark(), path, "expected a mapping of machine type names to machines");
    }
    std::vector<KeyReader> readers;
    for (const auto& entry : node) {
      readers.push_back(
          {entry.first.Scalar(), [&](const YAML::Node& value, const std::string& type_path) {
             return ReadMachineType(value, type_path, catalog);
           }});
    }
    return ReadMapping(node, path, readers);
  }

  absl::Status ReadMachineType(const YAML::Node& node, const std::string& path,
                               MachineTypeCatalog& catalog) {
    MachineType type;
    type.name = path.substr(path.find('.') + 1);
    std::optional<double> memory_gb;
    YAML::Node gpu_type_node;
    YAML::Node counts_node;
    absl::Status status = ReadMapping(
        node, path,
        {{"cpus", Integer(1, kMaxCount, [&](int64_t cpus) { type.cpus = static_cast<int>(cpus); })},
         {"memoryGb",
          [&](const YAML::Node& value, const std::string& field) -> absl::Status {
            absl::StatusOr<double> number = value.IsScalar()
                                                ? ParseStrictFiniteDouble(value.Scalar())
                                                : absl::InvalidArgumentError("expected a number");
            if (!number.ok()) return Error(value.Mark(), field, number.status().message());
            if (*number <= 0) return Error(value.Mark(), field, "must be positive");
            const double megabytes = std::round(*number * 1024);
            if (megabytes < 1 || megabytes > kMaxMemoryMb) {
              return Error(value.Mark(), field,
                           absl::StrCat("must be from 1 MB to 1 EiB (0.0009765625 to "
                                        "1073741824), got ",
                                        value.Scalar()));
            }
            memory_gb = *number;
            return absl::OkStatus();
          }},
         {"gpus", Integer(0, kMaxCount, [&](int64_t gpus) { type.gpus = static_cast<int>(gpus); })},
         {"gpuType",
          [&](const YAML::Node& value, const std::string& field) -> absl::Status {
            gpu_type_node = value;
            return Name(&type.gpu_type)(value, field);
          }},
         {"acceleratorCounts",
          [&](const YAML::Node& value, const std::string& field) -> absl::Status {
            counts_node = value;
            if (!value.IsSequence() || value.size() == 0) {
              return Error(value.Mark(), field, "expected a list of GPU counts");
            }
            for (size_t i = 0; i < value.size(); ++i) {
              absl::StatusOr<int64_t> count =
                  ReadInteger(value[i], absl::StrCat(field, "[", i, "]"), 1, kMaxCount);
              if (!count.ok()) return count.status();
              type.accelerator_counts.push_back(static_cast<int>(*count));
            }
            return absl::OkStatus();
          }}});
    if (!status.ok()) return status;
    if (type.cpus == 0) return Error(node.Mark(), Child(path, "cpus"), "is required");
    if (!memory_gb.has_value()) return Error(node.Mark(), Child(path, "memoryGb"), "is required");
    type.memory_mb = std::llround(*memory_gb * 1024);
    if (type.gpus > 0 && type.gpu_type.empty()) {
      return Error(node.Mark(), Child(path, "gpuType"),
                   absl::StrCat("is required with gpus: ", type.gpus));
    }
    if (!type.gpu_type.empty()) {
      if (type.gpus == 0) {
        return Error(gpu_type_node.Mark(), Child(path, "gpuType"),
                     "is only meaningful with a positive gpus count");
      }
      if (!catalog.HasAcceleratorType(type.gpu_type)) {
        return Error(gpu_type_node.Mark(), Child(path, "gpuType"),
                     catalog.UnknownAcceleratorTypeProblem(type.gpu_type));
      }
    }
    if (type.gpus > 0 && !type.accelerator_counts.empty()) {
      return Error(counts_node.Mark(), Child(path, "acceleratorCounts"),
                   "a type with fixed gpus takes no acceleratorConfig");
    }
    catalog.machine_types_.emplace(type.name, std::move(type));
    return absl::OkStatus();
  }

  absl::Status ReadScaleTiers(const YAML::Node& node, MachineTypeCatalog& catalog) {
    std::vector<KeyReader> readers;
    for (std::string_view tier : kScaleTiers) {
      if (tier == "CUSTOM" || tier == "BASIC_TPU") continue;
      readers.push_back(
          {AbslView(tier), [&, tier](const YAML::Node& value, const std::string& path) {
             return ReadScaleTier(value, path, std::string(tier), catalog);
           }});
    }
    return ReadMapping(node, "scaleTiers", readers);
  }

  absl::Status ReadScaleTier(const YAML::Node& node, const std::string& path, std::string name,
                             MachineTypeCatalog& catalog) {
    ScaleTier tier;
    tier.name = std::move(name);
    std::map<std::string, YAML::Mark> type_marks;
    auto machine_type = [&](std::string* out) {
      return [&, out](const YAML::Node& value, const std::string& field) -> absl::Status {
        type_marks[field] = value.Mark();
        return Name(out)(value, field);
      };
    };
    absl::Status status =
        ReadMapping(node, path,
                    {{"masterType", machine_type(&tier.master_type)},
                     {"workerType", machine_type(&tier.worker_type)},
                     {"workerCount", Integer(0, std::numeric_limits<int64_t>::max(),
                                             [&](int64_t count) { tier.worker_count = count; })},
                     {"parameterServerType", machine_type(&tier.parameter_server_type)},
                     {"parameterServerCount",
                      Integer(0, std::numeric_limits<int64_t>::max(),
                              [&](int64_t count) { tier.parameter_server_count = count; })}});
    if (!status.ok()) return status;
    if (tier.master_type.empty()) {
      return Error(node.Mark(), Child(path, "masterType"), "is required");
    }
    for (const auto& [field, mark] : type_marks) {
      const std::string& type = field.ends_with("masterType")   ? tier.master_type
                                : field.ends_with("workerType") ? tier.worker_type
                                                                : tier.parameter_server_type;
      if (catalog.FindMachineType(type) == nullptr) {
        return Error(mark, field, catalog.UnknownMachineTypeProblem(type));
      }
    }
    for (const auto& [type, count, role] :
         {std::tuple{tier.worker_type, tier.worker_count, "worker"},
          std::tuple{tier.parameter_server_type, tier.parameter_server_count, "parameterServer"}}) {
      if (type.empty() != (count == 0)) {
        return Error(node.Mark(), path,
                     absl::StrCat(role, "Type and ", role, "Count go together: give both or none"));
      }
    }
    catalog.scale_tiers_.emplace(tier.name, std::move(tier));
    return absl::OkStatus();
  }

  std::string file_name_;
};

absl::StatusOr<MachineTypeCatalog> MachineTypeCatalog::Parse(std::string_view yaml_text,
                                                             std::string_view file_name) {
  return MachineTypeCatalogParser(file_name).Parse(yaml_text);
}

absl::StatusOr<MachineTypeCatalog> MachineTypeCatalog::Load(const std::string& path) {
  if (!std::filesystem::exists(path)) {
    return absl::NotFoundError(absl::StrCat("machine types file \"", path, "\" does not exist"));
  }
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  if (!file) {
    return absl::InvalidArgumentError(
        absl::StrCat("cannot read machine types file \"", path, "\" (is it a directory?)"));
  }
  return Parse(text.str(), path);
}

const MachineTypeCatalog& MachineTypeCatalog::Default() {
  static const MachineTypeCatalog* const catalog = [] {
    absl::StatusOr<MachineTypeCatalog> parsed =
        Parse(DefaultMachineTypesYaml(), "config/machine-types.yaml");
    // The build's own file; the catalog test keeps it valid.
    if (!parsed.ok()) std::abort();
    return new MachineTypeCatalog(*std::move(parsed));
  }();
  return *catalog;
}

const MachineType* MachineTypeCatalog::FindMachineType(std::string_view name) const {
  auto it = machine_types_.find(name);
  return it == machine_types_.end() ? nullptr : &it->second;
}

const ScaleTier* MachineTypeCatalog::FindScaleTier(std::string_view name) const {
  auto it = scale_tiers_.find(name);
  return it == scale_tiers_.end() ? nullptr : &it->second;
}

bool MachineTypeCatalog::HasAcceleratorType(std::string_view name) const {
  return std::find(accelerator_types_.begin(), accelerator_types_.end(), name) !=
         accelerator_types_.end();
}

std::string MachineTypeCatalog::UnknownMachineTypeProblem(std::string_view name) const {
  return UnknownNameProblem("machine type", name, Keys(machine_types_));
}

std::string MachineTypeCatalog::UnknownAcceleratorTypeProblem(std::string_view name) const {
  return UnknownNameProblem("accelerator type", name, accelerator_types_);
}

}  // namespace vernier::config
