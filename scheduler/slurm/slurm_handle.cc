#include "scheduler/slurm/slurm_handle.h"

#include <cstdint>

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace vernier::scheduler {
namespace {

constexpr absl::string_view kPrefix = "slurm:";
constexpr absl::string_view kJobAttribute = ";job=";

}  // namespace

std::string SlurmHandle::Format() const {
  return absl::StrCat(kPrefix, slurm_job_id, kJobAttribute, job_id);
}

absl::StatusOr<SlurmHandle> SlurmHandle::Parse(absl::string_view handle) {
  const auto invalid = [&](absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("backend_handle '", handle, "' is not a Slurm backend handle: ", why));
  };
  if (!absl::StartsWith(handle, kPrefix)) {
    return invalid(absl::StrCat("it does not start with '", kPrefix, "'"));
  }
  absl::string_view rest = handle.substr(kPrefix.size());
  SlurmHandle parsed;
  // The job id goes last so that it may hold any character.
  if (const size_t job = rest.find(kJobAttribute); job != absl::string_view::npos) {
    parsed.job_id = std::string(rest.substr(job + kJobAttribute.size()));
    rest = rest.substr(0, job);
  }
  uint64_t number = 0;
  if (!absl::SimpleAtoi(rest, &number)) {
    return invalid(absl::StrCat("'", rest, "' is not a Slurm job id"));
  }
  parsed.slurm_job_id = std::string(rest);
  return parsed;
}

}  // namespace vernier::scheduler
