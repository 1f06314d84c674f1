#include "scheduler/slurm/sbatch_script_builder.h"

#include <cctype>
#include <filesystem>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/status_macros.h"
#include "scheduler/shell_quote.h"

namespace vernier::scheduler {
namespace {

// The step's variables a replica keeps on Slurm (docs/jobs.md).
constexpr const char* kSlurmVariablesKept[] = {"SLURM_JOB_ID",        "SLURM_JOB_NAME",
                                               "SLURM_JOB_PARTITION", "SLURM_JOB_NODELIST",
                                               "SLURM_STEP_ID",       "SLURMD_NODENAME"};

// How long srun may wait for Slurm to create a step (--immediate) before it
// gives up, and the step counts as not started (tried again below). The
// allocation holds every replica's CPUs and GPUs, so a step never waits for
// resources; it waits only on Slurm itself: a slurmctld that restarted holds
// a step asked for before the node registered with it until another step
// of the job ends, which may be never. Well under the agent timeout (60 s
// by default), which counts while a step waits.
constexpr int kStepPendingSeconds = 20;

// Defined once at the top of the script: whether slurmctld is away: no
// controller answers `scontrol ping`, or one that restarted has not heard
// from this node yet (its SlurmdStartTime is None until the node registers;
// Slurm 22.05 holds a step asked for before then until another step of the
// job ends, which may be never). Without scontrol, never.
constexpr char kSlurmctldAway[] =
    "slurmctld_away() {\n"
    "  command -v scontrol >/dev/null || return 1\n"
    "  scontrol ping 2>/dev/null | grep -q ' is UP' || return 0\n"
    "  [ -n \"${SLURMD_NODENAME:-}\" ] || return 1\n"
    "  scontrol show node \"$SLURMD_NODENAME\" 2>/dev/null | grep -q 'SlurmdStartTime=None'\n"
    "}\n";

// In a replica's loop, after srun returned without its step having started:
// while slurmctld is away, wait for it (up to `wait_limit`) and try again;
// else try again (3 tries in all); past either, stop with srun's status.
std::string StepNotStarted(absl::Duration wait_limit) {
  const int64_t limit = absl::ToInt64Seconds(wait_limit);
  return absl::StrCat(
      "    if slurmctld_away; then\n"
      "      echo \"vernier: $(date '+%F %T'): the step did not start: slurmctld does not answer; "
      "starting it once slurmctld answers\"\n"
      "      away_since=$SECONDS\n"
      "      while slurmctld_away; do\n"
      "        if [ $((SECONDS - away_since)) -ge ",
      limit,
      " ]; then\n"
      "          echo \"vernier: $(date '+%F %T'): slurmctld stayed unreachable for longer than ",
      absl::FormatDuration(wait_limit),
      " (--slurm-outage-limit); the replica fails without starting\"\n"
      "          break 2\n"
      "        fi\n"
      "        sleep 2\n"
      "      done\n"
      "    else\n"
      "      tries=$((tries + 1))\n"
      "      [ \"$tries\" -lt 3 ] || break\n"
      "      echo \"vernier: $(date '+%F %T'): the step did not start (srun: exit code $code); "
      "trying again\"\n"
      "      sleep 2\n"
      "    fi\n"
      "  done\n");
}

bool IsShellIdentifier(const std::string& name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  for (char c : name) {
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  }
  return true;
}

std::string ReplicaName(const ReplicaLaunch& replica) {
  return absl::StrCat(replica.role, "-", replica.index);
}

absl::Status CheckWord(const ReplicaLaunch& replica, const std::string& what,
                       const std::string& word) {
  if (word.find('\0') == std::string::npos) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat("replica ", ReplicaName(replica), ": ", what,
                                                 " holds a NUL byte, which a script cannot carry"));
}

std::string Quoted(const std::vector<std::string>& words) {
  return absl::StrJoin(
      words, " ", [](std::string* out, const std::string& word) { out->append(ShellQuote(word)); });
}

}  // namespace

// Job names show in squeue; Slurm cuts them at 1024 characters.
std::string SlurmJobName(const TrialLaunch& launch) {
  return absl::StrCat("vernier-", launch.job_id, "-", launch.trial_id);
}

std::string SlurmJobComment(const TrialLaunch& launch) {
  return absl::StrCat("vernier-attempt-", launch.attempt);
}

std::string ReplicaExitPath(const std::string& log_path) { return absl::StrCat(log_path, ".exit"); }

std::string ReplicaGpusPath(const std::string& log_path) { return absl::StrCat(log_path, ".gpus"); }

std::string BatchOutputPath(const TrialLaunch& launch) {
  const std::string log_dir =
      launch.replicas.empty()
          ? absl::StrCat(launch.trial_dir, "/logs")
          : std::filesystem::path(launch.replicas.front().log_path).parent_path().string();
  return absl::StrCat(log_dir, "/slurm-batch.out");
}

std::string SlurmAccountOf(const TrialLaunch& launch, const SbatchOptions& options) {
  auto account = options.accounts.find(launch.owner);
  if (account != options.accounts.end()) return account->second;
  return options.account_from_owner ? launch.owner : "";
}

std::string SlurmQosOf(const TrialLaunch& launch, const SbatchOptions& options) {
  auto qos = options.qos.find(launch.owner);
  return qos == options.qos.end() ? "" : qos->second;
}

absl::StatusOr<std::string> BuildSbatchScript(const TrialLaunch& launch,
                                              const SbatchOptions& options) {
  if (launch.replicas.empty()) {
    return absl::InvalidArgumentError(absl::StrCat(
        "job=", launch.job_id, " trial=", launch.trial_id, ": the launch has no replicas"));
  }
  // What goes on a directive, a comment or a path: one line each, or a
  // newline in a job dir would end an #SBATCH line and run the next as a
  // command of the batch script.
  VERNIER_RETURN_IF_ERROR(RequireOneLine("job id", launch.job_id));
  VERNIER_RETURN_IF_ERROR(RequireOneLine("study name", launch.study_name));
  VERNIER_RETURN_IF_ERROR(RequireOneLine("trial dir (under the job dir)", launch.trial_dir));
  VERNIER_RETURN_IF_ERROR(RequireOneLine("Slurm partition", options.partition));
  const std::string account = SlurmAccountOf(launch, options);
  const std::string qos = SlurmQosOf(launch, options);
  VERNIER_RETURN_IF_ERROR(RequireOneLine("Slurm account", account));
  VERNIER_RETURN_IF_ERROR(RequireOneLine("Slurm QoS", qos));
  int total_gpus = 0;
  for (const ReplicaLaunch& replica : launch.replicas) {
    const std::string name = ReplicaName(replica);
    VERNIER_RETURN_IF_ERROR(RequireOneLine(absl::StrCat("replica role ", name), replica.role));
    VERNIER_RETURN_IF_ERROR(
        RequireOneLine(absl::StrCat("replica ", name, ": log path"), replica.log_path));
    VERNIER_RETURN_IF_ERROR(
        RequireOneLine(absl::StrCat("replica ", name, ": working dir"), replica.working_dir));
    if (replica.argv.empty()) {
      return absl::InvalidArgumentError(
          absl::StrCat("replica ", ReplicaName(replica), " has an empty command line"));
    }
    if (replica.gpu_count < 0) {
      return absl::InvalidArgumentError(
          absl::StrCat("replica ", ReplicaName(replica), " asks for ", replica.gpu_count, " GPUs"));
    }
    for (const std::string& word : replica.argv) {
      if (absl::Status status = CheckWord(replica, "an argument", word); !status.ok()) {
        return status;
      }
    }
    for (const auto& [name, value] : replica.env) {
      if (!IsShellIdentifier(name)) {
        return absl::InvalidArgumentError(
            absl::StrCat("replica ", ReplicaName(replica), ": environment variable name '", name,
                         "' is not a shell identifier (letters, digits, _; not first a digit)"));
      }
      if (absl::Status status = CheckWord(replica, absl::StrCat("$", name), value); !status.ok()) {
        return status;
      }
    }
    total_gpus += replica.gpu_count;
  }

  std::string script = "#!/bin/bash\n";
  absl::StrAppend(&script, "# Trial ", launch.trial_id, " of job ", ShellQuote(launch.job_id),
                  " (study ", ShellQuote(launch.study_name), ", attempt ", launch.attempt,
                  "), written by vernier serve.\n");
  const auto directive = [&script](const std::string& option) {
    absl::StrAppend(&script, "#SBATCH ", option, "\n");
  };
  directive(absl::StrCat("--job-name=", ShellQuote(SlurmJobName(launch))));
  directive(absl::StrCat("--comment=", SlurmJobComment(launch)));
  // One node: the replicas reach each other on it, and the allocation is
  // all or nothing.
  directive("--nodes=1");
  directive(absl::StrCat("--ntasks=", launch.replicas.size()));
  if (total_gpus > 0) directive(absl::StrCat("--gpus=", total_gpus));
  if (!options.partition.empty()) {
    directive(absl::StrCat("--partition=", ShellQuote(options.partition)));
  }
  // Slurm's fair share between the server's users.
  if (!account.empty()) directive(absl::StrCat("--account=", ShellQuote(account)));
  if (!qos.empty()) directive(absl::StrCat("--qos=", ShellQuote(qos)));
  directive(absl::StrCat("--chdir=", ShellQuote(launch.trial_dir)));
  directive(absl::StrCat("--output=", ShellQuote(BatchOutputPath(launch))));
  directive("--open-mode=append");
  // Retries are the server's decision, not Slurm's.
  directive("--no-requeue");
  script +=
      "\n"
      "# sbatch's GPU request would otherwise leak into every step below.\n"
      "unset SLURM_GPUS SLURM_TRES_PER_JOB SLURM_GPUS_PER_TASK SLURM_TRES_PER_TASK\n";
  script += kSlurmctldAway;
  script += "pids=()\n";

  for (const ReplicaLaunch& replica : launch.replicas) {
    absl::StrAppend(&script, "\n# ", ShellQuote(ReplicaName(replica)), ": ", replica.gpu_count,
                    " GPU(s)\n(\n");
    for (const auto& [name, value] : replica.env) {
      if (name == "CUDA_VISIBLE_DEVICES") continue;  // Slurm sets it per step.
      absl::StrAppend(&script, "  export ", name, "=", ShellQuote(value), "\n");
    }
    const std::string exit_path = ShellQuote(ReplicaExitPath(replica.log_path));
    // The step first records the GPUs Slurm gave it (or, if it cannot,
    // runs nothing: the record says the step ran), then becomes the
    // replica's command with exactly the replica's environment: the
    // variables exported above (names only here, so no value shows in
    // `ps`) and the step's CUDA_VISIBLE_DEVICES; nothing of the server's
    // own environment, which sbatch passed down, but the step's job id,
    // name, partition, node list and node (kSlurmVariablesKept). Slurm removes
    // CUDA_VISIBLE_DEVICES from a step without GPUs, which CUDA would read
    // as "every GPU of the node": such a step sets it empty.
    std::string kept;
    // What Slurm says of the step's job, as set (not SLURM_NTASKS or
    // SLURM_PROCID: a framework would take those for the trial's ranks).
    for (const char* slurm : kSlurmVariablesKept) {
      absl::StrAppend(&kept, " ${", slurm, "+\"", slurm, "=$", slurm, "\"}");
    }
    for (const auto& [name, value] : replica.env) {
      if (name == "CUDA_VISIBLE_DEVICES") continue;
      absl::StrAppend(&kept, " ", name, "=\"$", name, "\"");
    }
    const std::string step_wrapper = absl::StrCat(
        "'printf \"%s\\n\" \"${SLURM_STEP_GPUS-}\" >\"$0\" || exit 1; exec /usr/bin/env -i ",
        replica.gpu_count == 0
            ? "CUDA_VISIBLE_DEVICES="
            : "${CUDA_VISIBLE_DEVICES+\"CUDA_VISIBLE_DEVICES=$CUDA_VISIBLE_DEVICES\"}",
        kept, " \"$@\"'");
    // The step's first act is to write its GPUs file: without it, srun
    // never started the step, and nothing of the replica ran. While
    // slurmctld is away (restarting) srun cannot create a step ("Unable to
    // contact slurm controller"): the replica waits until slurmctld answers
    // and starts then, as a trial due meanwhile waits in the server, instead
    // of failing (for up to SbatchOptions::slurmctld_wait_limit, the
    // server's --slurm-outage-limit). Any other step that never started is
    // tried 3 times in all. A step that ran is never run again: its status
    // is the replica's.
    const std::string gpus_path = ShellQuote(ReplicaGpusPath(replica.log_path));
    absl::StrAppend(
        &script, "  tries=0\n  while :; do\n    rm -f ", gpus_path, "\n",
        "    srun --exact --immediate=", kStepPendingSeconds,
        " --nodes=1 --ntasks=1 --gpus-per-task=", replica.gpu_count,
        " --job-name=", ShellQuote(ReplicaName(replica)), " --chdir=",
        ShellQuote(replica.working_dir.empty() ? launch.trial_dir : replica.working_dir),
        " \\\n      /bin/sh -c ", step_wrapper, " ", gpus_path, " \\\n      ", Quoted(replica.argv),
        "\n    code=$?\n    [ -e ", gpus_path, " ] && break\n",
        StepNotStarted(options.slurmctld_wait_limit), "  printf '%s\\n' \"$code\" >", exit_path,
        ".tmp && mv ", exit_path, ".tmp ", exit_path, "\n  exit \"$code\"\n) >>",
        ShellQuote(replica.log_path), " 2>&1 </dev/null &\npids+=($!)\n");
  }
  script +=
      "\n"
      "# The trial's status is its first replica's (master or chief).\n"
      "status=0\n"
      "for i in \"${!pids[@]}\"; do\n"
      "  wait \"${pids[$i]}\"\n"
      "  code=$?\n"
      "  if [ \"$i\" = 0 ]; then status=$code; fi\n"
      "done\n"
      "exit \"$status\"\n";
  return script;
}

}  // namespace vernier::scheduler
