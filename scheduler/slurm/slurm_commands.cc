#include "scheduler/slurm/slurm_commands.h"

#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"

namespace vernier::scheduler {
namespace {

absl::Status CommandFailed(const std::vector<std::string>& argv, const CommandOutput& output) {
  return absl::UnavailableError(absl::StrCat("`", absl::StrJoin(argv, " "), "` exited with code ",
                                             output.exit_code, ": ",
                                             absl::StripAsciiWhitespace(output.err)));
}

}  // namespace

SlurmCommands::SlurmCommands(SlurmCommandsOptions options) : options_(std::move(options)) {}

absl::StatusOr<CommandOutput> SlurmCommands::Run(const std::vector<std::string>& argv) const {
  absl::StatusOr<CommandOutput> output = RunCommand(argv, options_.env, options_.timeout);
  if (!output.ok()) return output.status();
  if (output->exit_code != 0) return CommandFailed(argv, *output);
  return output;
}

absl::StatusOr<std::string> SlurmCommands::Submit(const std::string& script_path) const {
  absl::StatusOr<CommandOutput> output = Run({"sbatch", "--parsable", script_path});
  if (!output.ok()) return output.status();
  return ParseSbatchJobId(output->out);
}

absl::StatusOr<std::optional<SlurmJobInfo>> SlurmCommands::ShowJob(
    const std::string& job_id) const {
  const std::vector<std::string> argv = {"scontrol", "show", "job", "-d", "-o", job_id};
  absl::StatusOr<CommandOutput> output = RunCommand(argv, options_.env, options_.timeout);
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
  absl::StatusOr<CommandOutput> output = RunCommand(argv, options_.env, options_.timeout);
  if (!output.ok()) return output.status();
  // Without slurmdbd sacct says so, with exit code 0 or 1 by version.
  if (absl::StrContains(output->err, "accounting storage is disabled")) return std::nullopt;
  if (output->exit_code != 0) return CommandFailed(argv, *output);
  absl::StatusOr<SlurmJobInfo> job = ParseSacctJob(output->out);
  if (absl::IsNotFound(job.status())) return std::nullopt;
  if (!job.ok()) return job.status();
  return *job;
}

absl::Status SlurmCommands::Scancel(std::vector<std::string> argv) const {
  absl::StatusOr<CommandOutput> output = RunCommand(argv, options_.env, options_.timeout);
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
