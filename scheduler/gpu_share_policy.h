#ifndef VERNIER_SCHEDULER_GPU_SHARE_POLICY_H_
#define VERNIER_SCHEDULER_GPU_SHARE_POLICY_H_

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>

namespace vernier::scheduler {

// How the local backend's GPUs are shared between users and jobs (`vernier
// serve --gpu-share`, `--gpu-quota-per-user`, `--gpu-quota`,
// `--gpu-quota-per-job`; docs/cli-reference.md, "Sharing the GPUs between
// users"). Users are Job.owner; jobs stored before owners existed count as
// one user named "".
struct GpuSharePolicy {
  // Each named user's weight; the others weigh 1. While several users want
  // GPUs, each one's share is the GPUs times its weight over the sum of the
  // weights of the users holding or waiting for GPUs.
  std::map<std::string, double, std::less<>> weights;
  // The most GPUs any one user may hold at once; nullopt: no limit.
  std::optional<int> quota_per_user;
  // A user's own quota, in place of quota_per_user.
  std::map<std::string, int, std::less<>> user_quotas;
  // The most GPUs one job may hold at once; nullopt: no limit.
  std::optional<int> quota_per_job;

  double WeightOf(std::string_view user) const;
  // The user's quota (its own, else quota_per_user); nullopt: none.
  std::optional<int> QuotaOf(std::string_view user) const;
  // The flag that sets the user's quota, for messages: `--gpu-quota
  // alice=4` or `--gpu-quota-per-user 4`.
  std::string QuotaFlagOf(std::string_view user) const;
};

}  // namespace vernier::scheduler

#endif  // VERNIER_SCHEDULER_GPU_SHARE_POLICY_H_
