#include "scheduler/gpu_share_policy.h"

#include "absl/strings/str_cat.h"

namespace vernier::scheduler {

double GpuSharePolicy::WeightOf(std::string_view user) const {
  auto weight = weights.find(user);
  return weight == weights.end() ? 1.0 : weight->second;
}

std::optional<int> GpuSharePolicy::QuotaOf(std::string_view user) const {
  auto quota = user_quotas.find(user);
  if (quota != user_quotas.end()) return quota->second;
  return quota_per_user;
}

std::string GpuSharePolicy::QuotaFlagOf(std::string_view user) const {
  auto quota = user_quotas.find(user);
  if (quota != user_quotas.end())
    return absl::StrCat("--gpu-quota ", std::string(user), "=", quota->second);
  return quota_per_user.has_value() ? absl::StrCat("--gpu-quota-per-user ", *quota_per_user) : "";
}

}  // namespace vernier::scheduler
