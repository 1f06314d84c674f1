#include "scheduler/backend.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "scheduler/shell_quote.h"

namespace vernier::scheduler {

absl::StatusOr<std::string> Backend::PreviewLaunch(const TrialLaunch& launch) const {
  std::string text;
  for (const ReplicaLaunch& replica : launch.replicas) {
    absl::StrAppend(&text, "# ", replica.role, "-", replica.index, ": ", replica.gpu_count,
                    " GPU(s)", replica.gpus.empty() ? "" : " [", absl::StrJoin(replica.gpus, ","),
                    replica.gpus.empty() ? "" : "]", ", log ", replica.log_path, "\n");
    absl::StrAppend(&text, "cd ", ShellQuote(replica.working_dir), " &&\n");
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
