#include "tuner/config/replica_spec_builder.h"

#include <algorithm>
#include <string>
#include <utility>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"

namespace vernier::config {
namespace {

// One role of the job as trainingInput gives it: its proto field names,
// machine type, count and replica config.
struct RoleGroup {
  std::string role;
  // The trainingInput field prefix: "master", "worker", "parameter_server".
  std::string field;
  std::string machine_type;
  int64_t count = 0;
  const v1::ReplicaConfig* config = nullptr;
  // Where the machine type comes from: "master_type", or "scale_tier" for a
  // predefined tier.
  std::string type_field;
};

std::vector<RoleGroup> RoleGroups(const v1::TrainingInput& input, const ScaleTier* tier) {
  const std::string master_role = input.use_chief_in_tf_config() ? "chief" : "master";
  if (tier != nullptr) {
    return {{master_role, "master", tier->master_type, 1, &input.master_config(), "scale_tier"},
            {"worker", "worker", tier->worker_type, tier->worker_count, &input.worker_config(),
             "scale_tier"},
            {"ps", "parameter_server", tier->parameter_server_type, tier->parameter_server_count,
             &input.parameter_server_config(), "scale_tier"}};
  }
  return {{master_role, "master", input.master_type(), 1, &input.master_config(), "master_type"},
          {"worker", "worker", input.worker_type(), input.worker_count(), &input.worker_config(),
           "worker_type"},
          {"ps", "parameter_server", input.parameter_server_type(), input.parameter_server_count(),
           &input.parameter_server_config(), "parameter_server_type"},
          {"evaluator", "evaluator", input.evaluator_type(), input.evaluator_count(),
           &input.evaluator_config(), "evaluator_type"}};
}

std::string FormatCounts(const std::vector<int>& counts) {
  std::vector<std::string> texts;
  for (int count : counts) texts.push_back(absl::StrCat(count));
  if (texts.size() == 1) return texts[0];
  const std::string last = texts.back();
  texts.pop_back();
  return absl::StrCat(absl::StrJoin(texts, ", "), " or ", last);
}

// The GPUs (count, type) one replica of `group` gets on `type`.
absl::StatusOr<std::pair<int, std::string>> GroupGpus(const RoleGroup& group,
                                                      const MachineType& type, bool custom,
                                                      const MachineTypeCatalog& catalog,
                                                      const Locator& locate) {
  const v1::AcceleratorConfig& accelerators = group.config->accelerator_config();
  const std::string config_path = absl::StrCat(group.field, "_config.accelerator_config");
  const bool asked = accelerators.count() != 0 || !accelerators.type().empty();
  if (!asked) return std::pair{type.gpus, type.gpu_type};
  if (!custom) {
    return InvalidField(
        locate, config_path,
        "acceleratorConfig is only used with the CUSTOM scale tier; a predefined tier "
        "brings its own GPUs");
  }
  if (type.gpus > 0) {
    return InvalidField(
        locate, config_path,
        absl::StrCat("machine type \"", type.name, "\" has ", type.gpus, " ", type.gpu_type,
                     " GPU(s) built in and takes no acceleratorConfig; remove it or "
                     "use a type without GPUs such as n1-standard-8"));
  }
  if (type.accelerator_counts.empty()) {
    return InvalidField(locate, config_path,
                        absl::StrCat("machine type \"", type.name,
                                     "\" takes no GPUs; use a Compute Engine type such as "
                                     "n1-standard-8 for acceleratorConfig"));
  }
  if (!catalog.HasAcceleratorType(accelerators.type())) {
    return InvalidField(locate, absl::StrCat(config_path, ".type"),
                        catalog.UnknownAcceleratorTypeProblem(accelerators.type()));
  }
  const std::vector<int>& allowed = type.accelerator_counts;
  if (std::find(allowed.begin(), allowed.end(), accelerators.count()) == allowed.end()) {
    return InvalidField(locate, absl::StrCat(config_path, ".count"),
                        absl::StrCat("machine type \"", type.name, "\" takes ",
                                     FormatCounts(allowed), " GPUs, got ", accelerators.count()));
  }
  return std::pair{static_cast<int>(accelerators.count()), accelerators.type()};
}

// The field that asks for a replica's GPUs: its acceleratorConfig.count when
// it has one, else what chose its machine type.
std::string GpuField(const v1::TrainingInput& input, const v1::ReplicaSpec& replica) {
  const bool custom = input.scale_tier() == "CUSTOM";
  const ScaleTier any_tier;
  for (const RoleGroup& group : RoleGroups(input, custom ? nullptr : &any_tier)) {
    if (group.role != replica.role()) continue;
    if (group.config->accelerator_config().count() > 0) {
      return absl::StrCat(group.field, "_config.accelerator_config.count");
    }
    return group.type_field;
  }
  return "scale_tier";
}

}  // namespace

absl::StatusOr<std::vector<v1::ReplicaSpec>> BuildReplicaSpecs(const v1::TrainingInput& input,
                                                               const MachineTypeCatalog& catalog,
                                                               const Locator& locate) {
  const bool custom = input.scale_tier() == "CUSTOM";
  const ScaleTier* tier = nullptr;
  if (!custom) {
    tier = catalog.FindScaleTier(input.scale_tier());
    if (tier == nullptr && input.scale_tier() == "BASIC_TPU") {
      return InvalidField(
          locate, "scale_tier",
          "BASIC_TPU needs Cloud TPUs, which Vernier does not run; use BASIC_GPU, or "
          "CUSTOM with acceleratorConfig for GPUs");
    }
    if (tier == nullptr) {
      std::vector<std::string> offered;
      for (const auto& [name, unused] : catalog.scale_tiers()) offered.push_back(name);
      offered.push_back("CUSTOM");
      return InvalidField(
          locate, "scale_tier",
          absl::StrCat("scale tier \"", input.scale_tier(),
                       "\" is not offered by this server's machine types; offered: ",
                       absl::StrJoin(offered, ", ")));
    }
  }
  const std::vector<RoleGroup> groups = RoleGroups(input, tier);
  int64_t total = 0;
  for (const RoleGroup& group : groups) total += group.count;
  if (total > kMaxReplicasPerTrial) {
    return InvalidField(locate, custom ? "worker_count" : "scale_tier",
                        absl::StrCat("a trial of ", total, " replicas is more than the ",
                                     kMaxReplicasPerTrial, " Vernier runs per trial"));
  }
  std::vector<v1::ReplicaSpec> replicas;
  for (const RoleGroup& group : groups) {
    if (group.count == 0) continue;
    const MachineType* type = catalog.FindMachineType(group.machine_type);
    if (type == nullptr) {
      return InvalidField(locate, group.type_field,
                          catalog.UnknownMachineTypeProblem(group.machine_type));
    }
    absl::StatusOr<std::pair<int, std::string>> gpus =
        GroupGpus(group, *type, custom, catalog, locate);
    if (!gpus.ok()) return gpus.status();
    for (int64_t index = 0; index < group.count; ++index) {
      v1::ReplicaSpec& replica = replicas.emplace_back();
      replica.set_role(group.role);
      replica.set_index(static_cast<int32_t>(index));
      replica.set_machine_type(type->name);
      replica.set_gpu_count(gpus->first);
      replica.set_gpu_type(gpus->second);
      replica.set_cpu_count(type->cpus);
      replica.set_memory_mb(type->memory_mb);
      replica.set_image_uri(group.config->image_uri());
      *replica.mutable_env() = group.config->env();
    }
  }
  return replicas;
}

absl::StatusOr<std::vector<v1::ReplicaSpec>> PlanReplicas(const v1::TrainingInput& input,
                                                          const MachineTypeCatalog& catalog,
                                                          scheduler::Admission& admission,
                                                          const scheduler::GangOwner& owner,
                                                          const Locator& locate) {
  VERNIER_ASSIGN_OR_RETURN(std::vector<v1::ReplicaSpec> replicas,
                           BuildReplicaSpecs(input, catalog, locate));
  absl::Status capacity = admission.CheckCapacity(replicas, owner);
  if (capacity.ok()) return replicas;
  const auto largest =
      std::max_element(replicas.begin(), replicas.end(),
                       [](const auto& a, const auto& b) { return a.gpu_count() < b.gpu_count(); });
  return absl::Status(capacity.code(),
                      absl::StrCat(locate(GpuField(input, *largest)), ": ", capacity.message()));
}

std::vector<int> GpusPerReplica(const std::vector<v1::ReplicaSpec>& replicas) {
  std::vector<int> gpus;
  gpus.reserve(replicas.size());
  for (const v1::ReplicaSpec& replica : replicas) gpus.push_back(replica.gpu_count());
  return gpus;
}

}  // namespace vernier::config
