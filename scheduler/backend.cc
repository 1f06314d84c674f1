#include "scheduler/backend.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "scheduler/shell_quote.h"

namespace vernier::scheduler {

absl::StatusOr<std::optional<v1::TrialRun>> Backend::FindSubmitted(
    const std::string& /*job_id*/, const std::string& /*study_name*/, const v1::TrialRun& /*run*/) {
  return std::nullopt;
}

absl::StatusOr<std::string> Backend::PreviewLaunch(const TrialLaunch& launch) const {
  std::string text;
  for (const ReplicaLaunch& replica : launch.replicas) {
    // The comment and the paths are lines of their own: a newline in one
    // would start a line the job's author wrote.
    const std::string name = absl::StrCat(replica.role, "-", replica.index);
    VERNIER_RETURN_IF_ERROR(RequireOneLine(absl::StrCat("replica role ", name), replica.role));
    VERNIER_RETURN_IF_ERROR(
        RequireOneLine(absl::StrCat("replica ", name, ": log path"), replica.log_path));
    VERNIER_RETURN_IF_ERROR(
        RequireOneLine(absl::StrCat("replica ", name, ": working dir"), replica.working_dir));
    for (const auto& [env_name, value] : replica.env) {
      VERNIER_RETURN_IF_ERROR(
          RequireOneLine(absl::StrCat("replica ", name, ": environment variable name"), env_name));
    }
    absl::StrAppend(&text, "# ", name, ": ", replica.gpu_count, " GPU(s)",
                    replica.gpus.empty() ? "" : " [", absl::StrJoin(replica.gpus, ","),
                    replica.gpus.empty() ? "" : "]", ", log ", ShellQuote(replica.log_path), "\n");
    absl::StrAppend(&text, "cd ", ShellQuote(replica.working_dir), " &&\n");
    // The replica's whole environment: nothing else of the server's.
    absl::StrAppend(&text, "env -i \\\n");
    for (const auto& [name, value] : replica.env) {
      absl::StrAppend(&text, name, "=", ShellQuote(value), " \\\n");
    }
    absl::StrAppend(&text,
                    absl::StrJoin(replica.argv, " ",
                                  [](std::string* out, const std::string& word) {
                                    out->append(ShellQuote(word));
                                  }),
                    "\n");
  }
  return text;
}

}  // namespace vernier::scheduler
