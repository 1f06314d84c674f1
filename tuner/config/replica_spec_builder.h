#ifndef VERNIER_TUNER_CONFIG_REPLICA_SPEC_BUILDER_H_
#define VERNIER_TUNER_CONFIG_REPLICA_SPEC_BUILDER_H_

#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "scheduler/admission.h"
#include "tuner/config/hyperparameter_validator.h"
#include "tuner/config/machine_type_catalog.h"
#include "vernier/v1/job.pb.h"

namespace vernier::config {

// More replicas than this in one trial is a typo, not a job.
inline constexpr int kMaxReplicasPerTrial = 1024;

// The job model: the replicas every trial of a job runs, from a trainingInput
// that passed ValidateTrainingInput. Master first (role "chief" when
// useChiefInTfConfig is set, "master" otherwise), then workerCount "worker",
// parameterServerCount "ps" and evaluatorCount "evaluator" replicas, indexed
// from 0 within their role. A predefined scale tier takes its replicas from
// the catalog; CUSTOM from masterType, workerType... Each replica gets its
// machine type's CPUs and memory, and either the type's fixed GPUs or its
// role's acceleratorConfig (count and type).
//
// INVALID_ARGUMENT, the field named through `locate`, for: a tier the catalog
// does not offer (BASIC_TPU: no TPUs here); an unknown machine or accelerator
// type (with the closest name); acceleratorConfig outside CUSTOM, on a type
// with fixed GPUs, on a type that takes none, or with a count the type does
// not accept; more than kMaxReplicasPerTrial replicas.
absl::StatusOr<std::vector<v1::ReplicaSpec>> BuildReplicaSpecs(const v1::TrainingInput& input,
                                                               const MachineTypeCatalog& catalog,
                                                               const Locator& locate);

// What the server does at submit: BuildReplicaSpecs, then whether the
// scheduler can ever start a trial of them for `owner` (`admission.
// CheckCapacity`: the GPUs it has, the owner's quotas; its problem prefixed
// with the field that asks for the most GPUs).
absl::StatusOr<std::vector<v1::ReplicaSpec>> PlanReplicas(const v1::TrainingInput& input,
                                                          const MachineTypeCatalog& catalog,
                                                          scheduler::Admission& admission,
                                                          const scheduler::GangOwner& owner,
                                                          const Locator& locate);

// GPUs of each replica, in replica order: what an Admission's Request takes.
std::vector<int> GpusPerReplica(const std::vector<v1::ReplicaSpec>& replicas);

}  // namespace vernier::config

#endif  // VERNIER_TUNER_CONFIG_REPLICA_SPEC_BUILDER_H_
