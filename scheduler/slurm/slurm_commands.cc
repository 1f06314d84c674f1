#include "scheduler/slurm/slurm_commands.h"

#include <algorithm>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "scheduler/transient_backend_error.h"

namespace vernier::scheduler {
namespace {

// What Slurm's client commands print when they cannot reach slurmctld (down,
// restarting, overloaded), after their own connection retries
// (MessageTimeout).
bool ControllerUnreachable(absl::string_view err) {
  constexpr absl::string_view kUnreachable[] = {
      "Unable to contact slurm controller",
      "Socket timed out on send/recv operation",
      "Zero Bytes were transmitted or received",
      "Communication connection failure",
      "Connection refused",
      "Connection timed out",
      "Transport endpoint is not connected",
      "Slurm temporarily unable to accept job",
      "Resource temporarily unavailable",
      "in standby mode",
  };
  for (absl::string_view message : kUnreachable) {
    if (absl::StrContains(err, message)) return true;
  }
  return false;
}

absl::Status CommandFailed(const std::vector<std::string>& argv, const CommandOutput& output) {
  return absl::UnavailableError(absl::StrCat("`", absl::StrJoin(argv, " "), "` exited with code ",
                                             output.exit_code, ": ",
                                             absl::StripAsciiWhitespace(output.err)));
}

}  // namespace

SlurmCommands::SlurmCommands(SlurmCommandsOptions options)
    : options_(std::move(options)), outage_(std::make_shared<SlurmOutage>()) {}

absl::StatusOr<CommandOutput> SlurmCommands::RunObserved(
    const std::vector<std::string>& argv, const std::map<std::string, std::string>& env) const {
  std::map<std::string, std::string> merged = options_.env;
  for (const auto& [name, value] : env) merged[name] = value;
  absl::StatusOr<CommandOutput> output = RunCommand(argv, merged, options_.timeout);
  absl::Status outcome;
  if (!output.ok()) {
    // Out of time: slurmctld too busy to answer, or its answer lost.
    outcome = absl::IsDeadlineExceeded(output.status()) ? MarkBackendTransient(output.status())
                                                        : output.status();
  } else if (output->exit_code != 0 && ControllerUnreachable(output->err)) {
    outcome = MarkBackendTransient(CommandFailed(argv, *output));
  }
  outage_->Observe(outcome, absl::Now());
  if (!outcome.ok()) return outcome;
  return output;
}

absl::StatusOr<CommandOutput> SlurmCommands::Run(
    const std::vector<std::string>& argv, const std::map<std::string, std::string>& env) const {
  absl::StatusOr<CommandOutput> output = RunObserved(argv, env);
  if (!output.ok()) return output.status();
  if (output->exit_code != 0) return CommandFailed(argv, *output);
  return output;
}

absl::StatusOr<std::string> SlurmCommands::Submit(const std::string& script_path) const {
  absl::StatusOr<CommandOutput> output = Run({"sbatch", "--parsable", script_path});
  if (!output.ok()) return output.status();
  return ParseSbatchJobId(output->out);
}

absl::StatusOr<std::optional<std::string>> SlurmCommands::FindSubmitted(
    const std::string& name, const std::string& comment, const std::string& work_dir,
    absl::Time not_before) const {
  // Submit times as Unix seconds; the working directory last, since it may
  // hold a '|'.
  absl::StatusOr<CommandOutput> output =
      Run({"squeue", "-h", "--states=all", absl::StrCat("--name=", name), "--format=%i|%V|%k|%Z"},
          {{"SLURM_TIME_FORMAT", "%s"}});
  if (!output.ok()) return output.status();
  int64_t newest = -1;
  for (absl::string_view line : absl::StrSplit(output->out, '\n', absl::SkipWhitespace())) {
    const std::vector<absl::string_view> fields =
        absl::StrSplit(absl::StripTrailingAsciiWhitespace(line), absl::MaxSplits('|', 3));
    int64_t id = 0;
    int64_t submitted = 0;
    if (fields.size() != 4 || !absl::SimpleAtoi(absl::StripAsciiWhitespace(fields[0]), &id) ||
        !absl::SimpleAtoi(fields[1], &submitted)) {
      continue;
    }
    if (fields[2] != comment || fields[3] != work_dir) continue;
    // Slurm keeps whole seconds.
    if (submitted < absl::ToUnixSeconds(not_before)) continue;
    newest = std::max(newest, id);
  }
  if (newest < 0) return std::nullopt;
  return absl::StrCat(newest);
}

absl::StatusOr<std::optional<SlurmJobInfo>> SlurmCommands::ShowJob(
    const std::string& job_id) const {
  const std::vector<std::string> argv = {"scontrol", "show", "job", "-d", "-o", job_id};
  absl::StatusOr<CommandOutput> output = RunObserved(argv);
  if (!output.ok()) return output.status();
  if (output->exit_code != 0) {
    if (absl::StrContains(output->err, "Invalid job id")) return std::nullopt;
    return CommandFailed(argv, *output);
  }
  absl::StatusOr<SlurmJobInfo> job = ParseScontrolJob(output->out);
  if (!job.ok()) return job.status();
  return *job;
}

absl::StatusOr<std::optional<SlurmJobInfo>> SlurmCommands::AccountedJob(
    const std::string& job_id) const {
  const std::vector<std::string> argv = {
      "sacct", "-n", "-P", "-X", "-o", "JobID,State,ExitCode,NodeList", "-j", job_id};
  // sacct asks slurmdbd, not slurmctld: its answer says nothing of an outage.
  absl::StatusOr<CommandOutput> output = RunCommand(argv, options_.env, options_.timeout);
  if (!output.ok()) {
    return absl::IsDeadlineExceeded(output.status()) ? MarkBackendTransient(output.status())
                                                     : output.status();
  }
  // Without slurmdbd sacct says so, with exit code 0 or 1 by version.
  if (absl::StrContains(output->err, "accounting storage is disabled")) return std::nullopt;
  if (output->exit_code != 0) {
    absl::Status failed = CommandFailed(argv, *output);
    return ControllerUnreachable(output->err) ? MarkBackendTransient(failed) : failed;
  }
  absl::StatusOr<SlurmJobInfo> job = ParseSacctJob(output->out);
  if (absl::IsNotFound(job.status())) return std::nullopt;
  if (!job.ok()) return job.status();
  return *job;
}

absl::Status SlurmCommands::Scancel(std::vector<std::string> argv) const {
  absl::StatusOr<CommandOutput> output = RunObserved(argv);
  if (!output.ok()) return output.status();
  if (output->exit_code == 0) return absl::OkStatus();
  if (absl::StrContains(output->err, "already completing or completed") ||
      absl::StrContains(output->err, "Invalid job id")) {
    return absl::OkStatus();
  }
  return CommandFailed(argv, *output);
}

absl::Status SlurmCommands::Signal(const std::string& job_id, const std::string& signal_name,
                                   bool full) const {
  std::vector<std::string> argv = {"scancel", absl::StrCat("--signal=", signal_name)};
  if (full) argv.push_back("--full");
  argv.push_back(job_id);
  return Scancel(std::move(argv));
}

absl::Status SlurmCommands::Cancel(const std::string& job_id) const {
  return Scancel({"scancel", job_id});
}

absl::StatusOr<std::vector<SlurmNodeInfo>> SlurmCommands::Nodes(
    const std::string& partition) const {
  std::vector<std::string> argv = {"sinfo", "-h", "-N", "-o", "%N|%G|%t"};
  if (!partition.empty()) argv.push_back(absl::StrCat("--partition=", partition));
  absl::StatusOr<CommandOutput> output = Run(argv);
  if (!output.ok()) return output.status();
  return ParseSinfoNodes(output->out);
}

}  // namespace vernier::scheduler
