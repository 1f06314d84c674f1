#include "scheduler/local/local_handle.h"

#include "absl/status/status.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace vernier::scheduler {
namespace {

constexpr absl::string_view kPrefix = "local:";
constexpr absl::string_view kJobAttribute = ";job=";

absl::Status Invalid(absl::string_view handle, absl::string_view why) {
  return absl::InvalidArgumentError(
      absl::StrCat("backend_handle '", handle, "' is not a local backend handle: ", why));
}

}  // namespace

std::string LocalHandle::Format() const {
  return absl::StrCat(kPrefix,
                      absl::StrJoin(replicas, ",",
                                    [](std::string* out, const ProcessIdentity& identity) {
                                      absl::StrAppend(out, identity.pid, "@",
                                                      identity.start_time_ticks);
                                    }),
                      kJobAttribute, job_id);
}

absl::StatusOr<LocalHandle> LocalHandle::Parse(absl::string_view handle) {
  if (!absl::StartsWith(handle, kPrefix)) {
    return Invalid(handle, absl::StrCat("it does not start with '", kPrefix, "'"));
  }
  absl::string_view rest = handle.substr(kPrefix.size());
  LocalHandle parsed;
  // The job id goes last so that it may hold any character.
  if (const size_t job = rest.find(kJobAttribute); job != absl::string_view::npos) {
    parsed.job_id = std::string(rest.substr(job + kJobAttribute.size()));
    rest = rest.substr(0, job);
  }
  if (rest.empty()) return Invalid(handle, "it names no process");
  for (absl::string_view replica : absl::StrSplit(rest, ',')) {
    const std::vector<absl::string_view> parts = absl::StrSplit(replica, '@');
    ProcessIdentity identity;
    if (parts.size() != 2 || !absl::SimpleAtoi(parts[0], &identity.pid) || identity.pid <= 0 ||
        !absl::SimpleAtoi(parts[1], &identity.start_time_ticks)) {
      return Invalid(handle, absl::StrCat("'", replica, "' is not PID@START_TIME"));
    }
    parsed.replicas.push_back(identity);
  }
  return parsed;
}

}  // namespace vernier::scheduler
